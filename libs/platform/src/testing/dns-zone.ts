import { startDnsServer, type RunningDnsServer, type ZoneRecord } from '../net/dns-server';

export type { ZoneRecord } from '../net/dns-server';

/**
 * An authoritative DNS server for tests on 127.0.0.1 (UDP, a free port): answers from `records` (see
 * `startDnsServer`), and keeps every query it was asked. TTL 0, so the resolver keeps nothing between checks; tests
 * change `records` to move a domain.
 */
export class DnsZone {
  readonly records = new Map<string, ZoneRecord>();
  readonly queries: Array<{ name: string; type: number }> = [];
  private server: RunningDnsServer | null = null;
  port = 0;

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  set(name: string, record: ZoneRecord | null): void {
    if (record) this.records.set(name, record);
    else this.records.delete(name);
  }

  async start(): Promise<this> {
    this.server = await startDnsServer((name) => this.records.get(name), { onQuery: (name, type) => this.queries.push({ name, type }) });
    this.port = this.server.port;
    return this;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
  }
}
