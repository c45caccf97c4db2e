import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { ErrorCode } from '@switchboard/contracts';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

/**
 * Prometheus metrics of a process (docs/decisions/0039-observability.md). One registry per process, shared by every
 * module in it (embedded mode runs them all in one), with the process's default metrics (CPU, memory, event-loop lag,
 * GC). Metric names are `switchboard_<area>_<what>_<unit>`; labels are bounded sets (route templates, consumer
 * groups, event types, vendor ids), never ids of messages or accounts.
 */
export const metricsRegistry = new Registry();
let defaultsCollected = false;

function once<T extends Metric<string>>(name: string, make: () => T): T {
  return (metricsRegistry.getSingleMetric(name) as T | undefined) ?? make();
}

export function counter(name: string, help: string, labelNames: readonly string[] = [], collect?: (this: Counter<string>) => void | Promise<void>): Counter<string> {
  return once(name, () => new Counter({ name, help, labelNames, registers: [metricsRegistry], ...(collect ? { collect } : {}) }));
}

export function gauge(name: string, help: string, labelNames: readonly string[] = [], collect?: (this: Gauge<string>) => void | Promise<void>): Gauge<string> {
  return once(name, () => new Gauge({ name, help, labelNames, registers: [metricsRegistry], ...(collect ? { collect } : {}) }));
}

export function histogram(name: string, help: string, labelNames: readonly string[] = [], buckets?: number[]): Histogram<string> {
  return once(name, () => new Histogram({ name, help, labelNames, registers: [metricsRegistry], ...(buckets ? { buckets } : {}) }));
}

/** Latency buckets in seconds, from a quarter millisecond to ten seconds. */
export const LATENCY_BUCKETS = [0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const HttpMetrics = {
  requests: () => counter('switchboard_http_requests_total', 'HTTP requests answered, by method, route template and status code', ['method', 'route', 'status']),
  duration: () => histogram('switchboard_http_request_duration_seconds', 'HTTP request latency by method and route template', ['method', 'route'], LATENCY_BUCKETS),
};

export const BusMetrics = {
  handled: () => counter('switchboard_bus_events_handled_total', 'Events handled by a consumer group, by event type and outcome (ok, dead_lettered)', ['group', 'type', 'outcome']),
  handlerSeconds: () => histogram('switchboard_bus_handler_duration_seconds', 'Time a consumer group spends on one event, retries included', ['group'], LATENCY_BUCKETS),
  lagSeconds: () => gauge('switchboard_bus_consumer_lag_seconds', 'Age of the last event a consumer group finished, from when it occurred: how far behind the group is', ['group']),
  outageRetries: () => counter('switchboard_bus_outage_retries_total', 'Deliveries retried because the database or broker was away', ['group']),
};

interface GroupChildren {
  handled: Map<string, { inc: (n?: number) => void }>;
  seconds: { observe: (v: number) => void };
  lag: { set: (v: number) => void };
}
/** Label children per group (and type), so the hot path of a consumer does no label hashing per event. */
const groupChildren = new Map<string, GroupChildren>();

/** Records one finished delivery (both bus drivers call it through handleWithRetries). */
/** One handling of `count` events of a type (more than one: a chunk handed to a batch handler at once). */
export function observeDelivery(group: string, type: string, occurredAt: string, startedAt: number, outcome: 'ok' | 'dead_lettered', count = 1): void {
  const now = Date.now();
  let g = groupChildren.get(group);
  if (!g) {
    g = { handled: new Map(), seconds: BusMetrics.handlerSeconds().labels(group), lag: BusMetrics.lagSeconds().labels(group) };
    groupChildren.set(group, g);
  }
  const key = `${type}|${outcome}`;
  let handled = g.handled.get(key);
  if (!handled) {
    handled = BusMetrics.handled().labels(group, type, outcome);
    g.handled.set(key, handled);
  }
  handled.inc(count);
  g.seconds.observe((now - startedAt) / 1000);
  const at = Date.parse(occurredAt);
  if (Number.isFinite(at)) g.lag.set(Math.max(0, (now - at) / 1000));
}

export const KafkaMetrics = {
  partitionLag: () => gauge('switchboard_kafka_partition_lag', 'Messages behind the high watermark, per consumer group and partition, as of the last batch', ['group', 'topic', 'partition']),
  /** Alert on any increase: the group skipped records the broker deleted before it read them (docs/decisions/0085). */
  offsetResets: () =>
    counter('switchboard_kafka_offset_resets_total', "A consumer group's offset found out of range of the partition's log and reset to the oldest retained record, per group and topic", ['group', 'topic']),
};

/** An outbox whose backlog is reported at scrape time. */
export interface OutboxProbe {
  schema: string;
  backlog: () => Promise<{ count: number; oldestAgeSeconds: number }>;
}
const outboxes = new Set<OutboxProbe>();

/**
 * The outboxes' backlogs, read once a scrape: both outbox gauges are collected together (prom-client starts every
 * metric's collect at once), and share one reading, so that their figures are of the same moment. Read apart, a
 * relay's pass between the two could leave a backlog of 1 with an oldest age of 0.
 */
let reading: Promise<Array<{ schema: string; count: number; age: number }>> | null = null;
function collectOutboxes(): Promise<Array<{ schema: string; count: number; age: number }>> {
  if (reading) return reading;
  const r = readOutboxes();
  reading = r;
  void r.finally(() => {
    if (reading === r) reading = null;
  });
  return r;
}

async function readOutboxes(): Promise<Array<{ schema: string; count: number; age: number }>> {
  const out: Array<{ schema: string; count: number; age: number }> = [];
  for (const probe of outboxes) {
    try {
      const b = await probe.backlog();
      out.push({ schema: probe.schema, count: b.count, age: b.oldestAgeSeconds });
    } catch {
      // the database is away: the scrape still answers, the backlog series are missing for this schema
    }
  }
  return out;
}

export const OutboxMetrics = {
  backlog: () =>
    gauge('switchboard_outbox_backlog', 'Outbox events written and not yet published, per schema', ['schema'], async function (this: Gauge<string>) {
      this.reset();
      for (const r of await collectOutboxes()) this.set({ schema: r.schema }, r.count);
    }),
  oldestAge: () =>
    gauge('switchboard_outbox_oldest_age_seconds', 'Age of the oldest unpublished outbox event, per schema (0 when none)', ['schema'], async function (this: Gauge<string>) {
      this.reset();
      for (const r of await collectOutboxes()) this.set({ schema: r.schema }, r.age);
    }),
  published: () => counter('switchboard_outbox_published_total', 'Outbox events published, per schema', ['schema']),
  deadLettered: () => counter('switchboard_outbox_dead_lettered_total', 'Outbox events the relay gave up on (too large, refused by the broker), per schema', ['schema']),
};

/** Adds an outbox to the scrape (a relay while it runs); returns the removal. */
export function watchOutbox(probe: OutboxProbe): () => void {
  OutboxMetrics.backlog();
  OutboxMetrics.oldestAge();
  outboxes.add(probe);
  return () => outboxes.delete(probe);
}

/**
 * The route template of a request (`/api/campaigns/:id`), or `other` when no route matched (a 404, a proxied path):
 * label values stay a bounded set whatever clients ask for.
 */
export function routeOf(req: Request): string {
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl ?? ''}${route.path}`;
  return 'other';
}

/** Times every request; mounted first by configureHttpApp. */
export function httpMetricsMiddleware(req: Request, res: Response, next: NextFunction): void {
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = routeOf(req);
    HttpMetrics.requests().inc({ method: req.method, route, status: String(res.statusCode) });
    HttpMetrics.duration().observe({ method: req.method, route }, seconds);
  });
  next();
}

const PRIVATE_V4 = [/^10\./, /^127\./, /^192\.168\./, /^172\.(1[6-9]|2\d|3[01])\./, /^169\.254\./];

/** Loopback, private (RFC 1918, RFC 4193) or link-local: a scraper inside the deployment, not the internet. */
export function isInternalAddress(address: string | undefined | null): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  const family = isIP(a);
  if (family === 4) return PRIVATE_V4.some((r) => r.test(a));
  if (family === 6) return a === '::1' || /^f[cd]/i.test(a) || /^fe[89ab]/i.test(a);
  return false;
}

/**
 * GET /metrics in the Prometheus text format. Answered only to a caller that reached the process directly from
 * inside the deployment (loopback or a private address, and no proxy header): Prometheus scraping a pod or a
 * compose service. Through the public entry (an ingress or load balancer adds X-Forwarded-For / Forwarded) it is
 * a 404, like any unknown path, so the metrics never leak to the internet.
 */
export async function metricsHandler(req: Request, res: Response): Promise<void> {
  await serveMetrics(req, res);
}

/** The same answer on a bare node:http server (the short-link redirector's `/-/metrics`). */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const proxied = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined;
  if (proxied || !isInternalAddress(req.socket.remoteAddress)) {
    const body = JSON.stringify({ code: ErrorCode.NotFound, message: 'not found', status: 404 });
    res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  if (!defaultsCollected) {
    defaultsCollected = true;
    collectDefaultMetrics({ register: metricsRegistry, prefix: 'switchboard_' });
  }
  const body = await metricsRegistry.metrics();
  res.writeHead(200, { 'content-type': metricsRegistry.contentType });
  res.end(body);
}
