/**
 * Event bus throughput with a group-committing consumer, per driver and per subscription `concurrency`.
 *
 *   node scripts/build.mjs --server-only
 *   node dist/bench/bus-throughput.js [events=100000] [concurrency=1,500] [drivers=memory,kafka]
 *
 * Workload, fixed: `events` events (about 450 bytes of JSON each, 1,000 distinct keys) published to one topic and
 * consumed by one group whose handler joins a simulated group commit: the first event to arrive opens a 20 ms
 * window, and every handler that arrives within it resolves when it closes (one multi-row INSERT and its commit,
 * as services/dispatch stores accepted messages). Nothing else runs: the figure is what the bus lets through.
 *
 * Drivers: the in-memory bus (8 lanes, its default) and the Kafka bus against librdkafka's mock cluster (kcat, one
 * broker, topics auto-created with 4 partitions; partitionsConsumedConcurrently 4, maxWaitTimeMs 100). The mock keeps
 * only the newest few thousand records per partition, so the producer stays at most BACKLOG events ahead of the
 * consumer there. A run ends when every event was handled, or after BENCH_MAX_SECONDS (default 20 s; concurrency 1 is
 * bound to lanes / 20 ms and would take minutes), and reports events/s over what it handled, and the process' CPU
 * time per event (bus, kafkajs clients and the producer; the mock broker is another process).
 * Kafka consumer tuning to try: BENCH_MIN_BYTES, BENCH_MAX_BYTES_PER_PARTITION, BENCH_MAX_WAIT_MS (defaults: the bus').
 */
import * as os from 'node:os';
import { randomUUID } from 'node:crypto';
import { logLevel } from 'kafkajs';
import { InMemoryEventBus, KafkaEventBus, type EventBus, type OutgoingEvent } from '@switchboard/platform';
import { startKafkaMock } from '@switchboard/platform/testing';

const COMMIT_MS = 20;
const KEYS = 1000;
/** Events a publish() call: the mock broker answers a fetch with one record batch (one produce request) a partition. */
const PUBLISH_BATCH = Number(process.env.BENCH_PUBLISH_BATCH ?? 2000);
const BACKLOG = { memory: Number.POSITIVE_INFINITY, kafka: Number(process.env.BENCH_BACKLOG ?? 4 * PUBLISH_BATCH) };
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 20);

type Driver = 'memory' | 'kafka';

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

const load = (): string => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/** A group commit: handlers arriving within one window share its 20 ms. */
class GroupCommit {
  commits = 0;
  largest = 0;
  private window: { size: number; done: Promise<void> } | null = null;

  join(): Promise<void> {
    if (!this.window) {
      const window = { size: 0, done: new Promise<void>((resolve) => setTimeout(resolve, COMMIT_MS)) };
      this.window = window;
      void window.done.then(() => {
        this.window = null;
        this.commits++;
        this.largest = Math.max(this.largest, window.size);
      });
    }
    this.window.size++;
    return this.window.done;
  }
}

function event(topic: string, n: number): OutgoingEvent {
  const key = `msg-${n % KEYS}`;
  return {
    id: randomUUID(),
    type: 'streams.message.accepted',
    version: 1,
    occurredAt: new Date().toISOString(),
    source: 'bench',
    accountId: '00000000-0000-4000-8000-000000000001',
    traceId: null,
    key,
    topic,
    data: {
      n,
      messageId: randomUUID(),
      streamId: '00000000-0000-4000-8000-000000000002',
      to: `+4477009${String(n % 1_000_000).padStart(6, '0')}`,
      from: 'Switchboard',
      text: 'Your verification code is 123456. It expires in 10 minutes. Do not share it with anyone.',
      encoding: 'gsm7',
      parts: 1,
      priceMicros: 41000,
      countryCode: 'GB',
    },
  };
}

interface RunResult {
  driver: Driver;
  concurrency: number;
  handled: number;
  seconds: number;
  commits: number;
  largest: number;
  duplicates: number;
  cpuMs: number;
}

const envNumber = (name: string): number | undefined => (process.env[name] ? Number(process.env[name]) : undefined);

async function run(driver: Driver, concurrency: number, total: number, kafkaBrokers: string[]): Promise<RunResult> {
  const topic = `bench.bus.${driver}.${concurrency}.${Date.now()}`;
  const kafka = (clientId: string) =>
    new KafkaEventBus({
      clientId,
      brokers: kafkaBrokers,
      logLevel: logLevel.NOTHING,
      consumer: {
        partitionsConsumedConcurrently: 4,
        maxWaitTimeMs: envNumber('BENCH_MAX_WAIT_MS') ?? 100,
        minBytes: envNumber('BENCH_MIN_BYTES'),
        maxBytesPerPartition: envNumber('BENCH_MAX_BYTES_PER_PARTITION'),
      },
    });
  const bus: EventBus = driver === 'memory' ? new InMemoryEventBus() : kafka('bench-consumer');
  const producer: EventBus = driver === 'memory' ? bus : kafka('bench-producer');
  const commit = new GroupCommit();
  const seen = new Uint8Array(total);
  let handled = 0;
  let duplicates = 0;

  await bus.subscribe({
    group: `bench.${driver}.${concurrency}`,
    topics: [topic],
    concurrency,
    handler: async (e) => {
      await commit.join();
      const { n } = e.data as { n: number };
      if (seen[n]) duplicates++;
      else handled++;
      seen[n] = 1;
    },
  });
  let published = 0;
  if (driver === 'kafka') {
    // The first produce auto-creates the topic: the group then joins with all its partitions from the start.
    await producer.publish([event(topic, 0)]);
    published = 1;
  }
  await bus.start();

  const cpu = process.cpuUsage();
  const started = Date.now();
  const deadline = started + MAX_SECONDS * 1000;
  while (handled < total && Date.now() < deadline) {
    while (published < total && published - handled < BACKLOG[driver]) {
      const n = Math.min(PUBLISH_BATCH, total - published);
      await producer.publish(Array.from({ length: n }, (_, i) => event(topic, published + i)));
      published += n;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const seconds = (Date.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const result = { driver, concurrency, handled, seconds, commits: commit.commits, largest: commit.largest, duplicates, cpuMs };
  await bus.stop();
  if (producer !== bus) await producer.stop();
  return result;
}

async function main(): Promise<void> {
  const [eventsArg, concurrencyArg, driversArg] = process.argv.slice(2);
  const total = Number(eventsArg ?? 100_000);
  const concurrencies = (concurrencyArg ?? '1,500').split(',').map(Number);
  const drivers = (driversArg ?? 'memory,kafka').split(',') as Driver[];
  const tuning = ['BENCH_MIN_BYTES', 'BENCH_MAX_BYTES_PER_PARTITION', 'BENCH_MAX_WAIT_MS'].filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`);
  console.log(`bus-throughput: ${total.toLocaleString('en')} events, ${COMMIT_MS} ms group commit, ${machine()}, load ${load()}${tuning.length ? `, ${tuning.join(' ')}` : ''}`);

  const mock = drivers.includes('kafka') ? await startKafkaMock(1) : null;
  try {
    for (const driver of drivers) {
      for (const concurrency of concurrencies) {
        const r = await run(driver, concurrency, total, mock?.url.split(',') ?? []);
        const complete = r.handled >= total ? 'all' : `${r.handled.toLocaleString('en')} of ${total.toLocaleString('en')} (time cap)`;
        console.log(
          `  ${driver.padEnd(6)} concurrency ${String(concurrency).padStart(4)}: ${Math.round(r.handled / r.seconds).toLocaleString('en').padStart(7)} events/s; ` +
            `${complete} in ${r.seconds.toFixed(1)} s; ${r.commits} commits, ${(r.handled / Math.max(1, r.commits)).toFixed(1)} events a commit (largest ${r.largest}); ` +
            `${r.duplicates} redelivered; CPU ${((r.cpuMs * 1000) / Math.max(1, r.handled)).toFixed(0)} µs an event (${Math.round((r.cpuMs / 10) / r.seconds)}% of a core); load ${load()}`,
        );
      }
    }
  } finally {
    await mock?.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
