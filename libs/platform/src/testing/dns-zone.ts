import DNS from 'dns2';

export interface ZoneRecord {
  cname?: string;
  a?: string[];
  txt?: string[];
  /** Answer SERVFAIL for every query of this name (a broken authoritative server). */
  servfail?: boolean;
}

/**
 * An authoritative DNS server for tests on 127.0.0.1 (UDP, a free port), built on dns2: answers CNAME, A (following
 * a CNAME to a name it knows, as a recursive resolver would) and TXT from `records`, NXDOMAIN for names it does not
 * know, no data for a known name without the asked type. TTL 0, so the resolver keeps nothing between checks; tests
 * change `records` to move a domain.
 */
export class DnsZone {
  readonly records = new Map<string, ZoneRecord>();
  readonly queries: Array<{ name: string; type: number }> = [];
  private server!: DNS.DnsServer;
  port = 0;

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  set(name: string, record: ZoneRecord | null): void {
    if (record) this.records.set(name, record);
    else this.records.delete(name);
  }

  async start(): Promise<this> {
    const { Packet } = DNS;
    // the wire encoder reads plain records; dns2's Resource type names its class form
    const rr = (r: Record<string, unknown>) => r as unknown as DNS.Packet.Resource;
    this.server = DNS.createServer({
      udp: true,
      handle: (request, send) => {
        const response = Packet.createResponseFromRequest(request);
        const [q] = request.questions;
        const name = q.name.toLowerCase();
        this.queries.push({ name, type: q.type });
        const rec = this.records.get(name);
        if (!rec) {
          response.header.rcode = Packet.RCODE.NXDOMAIN;
          return send(response);
        }
        if (rec.servfail) {
          response.header.rcode = Packet.RCODE.SERVFAIL;
          return send(response);
        }
        const base = { name, class: Packet.CLASS.IN, ttl: 0 };
        if (rec.cname && (q.type === Packet.TYPE.CNAME || q.type === Packet.TYPE.A)) {
          response.answers.push(rr({ ...base, type: Packet.TYPE.CNAME, domain: rec.cname }));
          const target = this.records.get(rec.cname);
          if (q.type === Packet.TYPE.A) for (const address of target?.a ?? []) response.answers.push(rr({ ...base, name: rec.cname, type: Packet.TYPE.A, address }));
        } else if (q.type === Packet.TYPE.A) {
          for (const address of rec.a ?? []) response.answers.push(rr({ ...base, type: Packet.TYPE.A, address }));
        } else if (q.type === Packet.TYPE.TXT) {
          for (const data of rec.txt ?? []) response.answers.push(rr({ ...base, type: Packet.TYPE.TXT, data }));
        }
        return send(response);
      },
    });
    const listening = await this.server.listen({ udp: { port: 0, address: '127.0.0.1' } });
    this.port = (listening as { udp: { port: number } }).udp.port;
    return this;
  }

  async stop(): Promise<void> {
    await this.server.close();
  }
}
