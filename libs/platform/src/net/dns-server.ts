import DNS from 'dns2';

/** What an authoritative server answers for one name. */
export interface ZoneRecord {
  cname?: string;
  a?: string[];
  txt?: string[];
  /** Answer SERVFAIL for every query of this name (a broken authoritative server). */
  servfail?: boolean;
}

/** The record of a name (lower case, no trailing dot); null or undefined: no such name (NXDOMAIN). */
export type ZoneSource = (name: string) => ZoneRecord | null | undefined | Promise<ZoneRecord | null | undefined>;

export interface RunningDnsServer {
  port: number;
  /** `127.0.0.1:port`, as a resolver's server list takes it. */
  address: string;
  stop(): Promise<void>;
}

/**
 * An authoritative DNS server on 127.0.0.1 (UDP; port 0: a free one), built on dns2, answering from `source`: CNAME, A
 * (following a CNAME to a name the source knows, as a recursive resolver would) and TXT; NXDOMAIN for a name the source
 * does not know, no data for a known name without the asked type, SERVFAIL when the source throws. TTL 0, so a resolver
 * keeps nothing between checks. The tests' zone (`DnsZone`) and embedded mode's DNS simulator answer through it.
 */
export async function startDnsServer(source: ZoneSource, options: { port?: number; onQuery?: (name: string, type: number) => void } = {}): Promise<RunningDnsServer> {
  const { Packet } = DNS;
  // the wire encoder reads plain records; dns2's Resource type names its class form
  const rr = (r: Record<string, unknown>) => r as unknown as DNS.Packet.Resource;
  const answer = async (request: DNS.Packet): Promise<DNS.Packet> => {
    const response = Packet.createResponseFromRequest(request);
    const [q] = request.questions;
    const name = q.name.toLowerCase().replace(/\.$/, '');
    options.onQuery?.(name, q.type);
    let rec: ZoneRecord | null | undefined;
    try {
      rec = await source(name);
    } catch {
      rec = { servfail: true };
    }
    if (!rec) {
      response.header.rcode = Packet.RCODE.NXDOMAIN;
      return response;
    }
    if (rec.servfail) {
      response.header.rcode = Packet.RCODE.SERVFAIL;
      return response;
    }
    const base = { name, class: Packet.CLASS.IN, ttl: 0 };
    if (rec.cname && (q.type === Packet.TYPE.CNAME || q.type === Packet.TYPE.A)) {
      response.answers.push(rr({ ...base, type: Packet.TYPE.CNAME, domain: rec.cname }));
      if (q.type === Packet.TYPE.A) {
        const target = await Promise.resolve(source(rec.cname)).catch(() => null);
        for (const address of target?.a ?? []) response.answers.push(rr({ ...base, name: rec.cname, type: Packet.TYPE.A, address }));
      }
    } else if (q.type === Packet.TYPE.A) {
      for (const address of rec.a ?? []) response.answers.push(rr({ ...base, type: Packet.TYPE.A, address }));
    } else if (q.type === Packet.TYPE.TXT) {
      for (const data of rec.txt ?? []) response.answers.push(rr({ ...base, type: Packet.TYPE.TXT, data }));
    }
    return response;
  };
  const server = DNS.createServer({
    udp: true,
    handle: (request, send) => {
      void answer(request).then(send);
    },
  });
  const listening = await server.listen({ udp: { port: options.port ?? 0, address: '127.0.0.1' } });
  const port = (listening as { udp: { port: number } }).udp.port;
  return { port, address: `127.0.0.1:${port}`, stop: async () => void (await server.close()) };
}
