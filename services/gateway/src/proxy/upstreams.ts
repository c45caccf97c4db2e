import * as http from 'node:http';
import * as https from 'node:https';

/**
 * The replicas of one service the gateway proxies to (`GATEWAY_ROUTES`: `dispatch=http://d1:3006|http://d2:3006`;
 * docs/decisions/0030-deployment.md). Requests go round-robin over the replicas believed up. A replica that refuses a
 * connection (or cannot be resolved or reached) is marked down for 1 s, doubling on each further failure up to 30 s,
 * and the request goes to the next one; while a replica is down it is probed (`GET /api/health/live`) every second and
 * taken back as soon as it answers. When every replica is down the request still tries them, the one that went down
 * first first, so a recovered service is found without waiting for a probe. A single URL (a Kubernetes Service name,
 * balanced by the cluster) is a pool of one.
 */
export class UpstreamPool {
  readonly urls: URL[];
  private next = 0;
  private readonly down = new Map<string, { until: number; failures: number; since: number }>();
  private probe: NodeJS.Timeout | null = null;
  private probing = false;

  constructor(
    value: string,
    private readonly probeMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.urls = upstreamsOf(value).map((u) => new URL(u));
    if (this.urls.length === 0) throw new Error('an upstream pool needs at least one URL');
  }

  /** The replicas to try for one request, in order: those up (round-robin), then those down (longest down first). */
  order(): URL[] {
    const now = this.now();
    const n = this.urls.length;
    const start = this.next;
    this.next = (this.next + 1) % n;
    const up: URL[] = [];
    const down: Array<{ url: URL; since: number }> = [];
    for (let i = 0; i < n; i++) {
      const url = this.urls[(start + i) % n];
      const d = this.down.get(url.href);
      if (!d || d.until <= now) up.push(url);
      else down.push({ url, since: d.since });
    }
    return [...up, ...down.sort((a, b) => a.since - b.since).map((d) => d.url)];
  }

  /** The first replica believed up (for a single call such as the websocket's room checks). */
  pick(): URL {
    return this.order()[0];
  }

  isDown(url: URL): boolean {
    const d = this.down.get(url.href);
    return !!d && d.until > this.now();
  }

  markDown(url: URL): void {
    const prev = this.down.get(url.href);
    const failures = (prev?.failures ?? 0) + 1;
    this.down.set(url.href, { failures, since: prev?.since ?? this.now(), until: this.now() + Math.min(30_000, 1000 * 2 ** (failures - 1)) });
    this.startProbing();
  }

  markUp(url: URL): void {
    this.down.delete(url.href);
  }

  close(): void {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
  }

  private startProbing(): void {
    if (this.probe || this.urls.length < 2) return;
    this.probe = setInterval(() => void this.probeDown(), this.probeMs);
    this.probe.unref();
  }

  private async probeDown(): Promise<void> {
    if (this.probing) return;
    if (this.down.size === 0) return this.close();
    this.probing = true;
    try {
      await Promise.all([...this.down.keys()].map((href) => this.check(new URL(href))));
    } finally {
      this.probing = false;
    }
  }

  private check(url: URL): Promise<void> {
    return new Promise((resolve) => {
      const secure = url.protocol === 'https:';
      const req = (secure ? https : http).get(
        { hostname: url.hostname, port: url.port || (secure ? 443 : 80), path: `${url.pathname.replace(/\/$/, '')}/api/health/live`, timeout: 1000, agent: false },
        (res) => {
          res.resume();
          if (res.statusCode === 200) this.markUp(url);
          resolve();
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve());
    });
  }
}

/** The URLs of one `GATEWAY_ROUTES` entry's value (`|` between replicas). */
export function upstreamsOf(value: string | undefined): string[] {
  return (value ?? '').split('|').map((u) => u.trim()).filter(Boolean);
}

/** Errors that mean the request never reached the replica: safe to send to another one. */
const NOT_REACHED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

export function neverReached(err: unknown, connected: boolean): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  return NOT_REACHED.has(code) || (!connected && (code === 'ECONNRESET' || code === 'ETIMEDOUT'));
}

const pools = new Map<string, UpstreamPool>();

/** One pool per route value, shared by the proxy and the websocket, so both see the same health. */
export function poolFor(value: string): UpstreamPool {
  let p = pools.get(value);
  if (!p) {
    p = new UpstreamPool(value);
    pools.set(value, p);
  }
  return p;
}
