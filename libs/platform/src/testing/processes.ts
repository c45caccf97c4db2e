import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { logLevel } from 'kafkajs';
import { Pool } from 'pg';
import { MessageAcceptedV1, type EventData } from '@switchboard/contracts';
import { generateSigningKeys, type KeyPair } from '../auth/tokens';
import { createEnvelope, type OutgoingEvent } from '../bus/event-bus';
import { KafkaEventBus } from '../bus/kafka-event-bus';
import { freePort } from '../database/embedded-postgres';
import { startKafkaMock, type RunningBroker } from './brokers';

/**
 * Node processes started by tests and benches (a service's built `main.js`, or a bench file re-run as its own child):
 * what distributed mode and the crash and fault drills are made of. Every process started here is SIGKILLed when the
 * parent exits, so a failing run leaves none behind.
 */
export interface NodeProcess {
  child: ChildProcess;
  /** stdout and stderr so far (empty with `output: 'inherit'`). */
  output: () => string;
  /** Resolves with the first match of `re` in the output; rejects when the process exits first or after `timeoutMs`. */
  waitFor: (re: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
  /** Resolves with the exit code when the process ends. */
  exited: () => Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) unless it has ended, and resolves when it has. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  /** Whether it still runs. */
  alive: () => boolean;
}

export interface NodeProcessOptions {
  /** Arguments after the script. */
  args?: string[];
  /** Added to the parent's environment (or, with `inheritEnv: false`, the whole environment but `PATH`). */
  env?: NodeJS.ProcessEnv;
  /** Whether the child gets the parent's environment under `env` (default true). */
  inheritEnv?: boolean;
  /** Node's own flags (default `--enable-source-maps`). */
  execArgv?: string[];
  cwd?: string;
  /** `capture` (default) keeps stdout and stderr for `output()`/`waitFor()`; `inherit` prints them with the parent's. */
  stdio?: 'capture' | 'inherit';
  /** An IPC channel to the child (for `process.send('ready')`); off by default, as a deployed server has none. */
  ipc?: boolean;
}

const running = new Set<ChildProcess>();
let reaping = false;

function reapAtExit(): void {
  if (reaping) return;
  reaping = true;
  process.on('exit', () => {
    for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  });
}

/** Starts `node [execArgv] script [args]`. */
export function spawnNodeProcess(script: string, opts: NodeProcessOptions = {}): NodeProcess {
  reapAtExit();
  const capture = (opts.stdio ?? 'capture') === 'capture';
  const child = spawn(process.execPath, [...(opts.execArgv ?? ['--enable-source-maps']), script, ...(opts.args ?? [])], {
    cwd: opts.cwd,
    env: opts.inheritEnv === false ? { PATH: process.env.PATH, ...opts.env } : { ...process.env, ...opts.env },
    stdio: [...(capture ? (['ignore', 'pipe', 'pipe'] as const) : (['ignore', 'inherit', 'inherit'] as const)), ...(opts.ipc ? (['ipc'] as const) : [])],
  });
  running.add(child);
  let out = '';
  const waiters: Array<() => void> = [];
  const onData = (b: Buffer) => {
    out += b.toString();
    // a long-lived process: keep the last megabyte
    if (out.length > 2_000_000) out = out.slice(-1_000_000);
    waiters.splice(0).forEach((w) => w());
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      waiters.splice(0).forEach((w) => w());
      resolve(code);
    }),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    output: () => out,
    alive,
    waitFor: (re, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} in output:\n${out.slice(-3000)}`)), timeoutMs);
        const check = () => {
          const m = re.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          } else if (!alive()) {
            clearTimeout(timer);
            reject(new Error(`process exited (${child.exitCode ?? child.signalCode}) before ${re}:\n${out.slice(-3000)}`));
          } else waiters.push(check);
        };
        check();
      }),
    exited: () => exited,
    stop: async (signal = 'SIGTERM') => {
      if (alive()) child.kill(signal);
      return exited;
    },
  };
}

/** How a started process tells it is ready. */
export type Readiness =
  /** it sends any IPC message (`process.send('ready')`) */
  | { ipc: true }
  /** this URL answers 200 (a service's `/api/health`, which waits for its consumer groups) */
  | { url: string };

/** Starts a node process and resolves once it is ready; rejects (and kills it) if it exits or is not ready in time. */
export async function startNodeProcess(script: string, ready: Readiness, opts: NodeProcessOptions & { readyTimeoutMs?: number } = {}): Promise<NodeProcess> {
  const p = spawnNodeProcess(script, { ...opts, ipc: opts.ipc || 'ipc' in ready });
  const timeoutMs = opts.readyTimeoutMs ?? 90_000;
  const failed = (why: string) => new Error(`${script} ${(opts.args ?? []).join(' ')}: ${why}\n${p.output().slice(-3000)}`);
  try {
    if ('ipc' in ready) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(failed(`not ready in ${timeoutMs} ms`)), timeoutMs);
        p.child.once('message', () => {
          clearTimeout(timer);
          resolve();
        });
        void p.exited().then((code) => {
          clearTimeout(timer);
          reject(failed(`exited early (${code ?? p.child.signalCode})`));
        });
      });
    } else {
      await waitForHttp(ready.url, timeoutMs, () => (p.alive() ? null : failed(`exited early (${p.child.exitCode ?? p.child.signalCode})`)));
    }
  } catch (e) {
    await p.stop('SIGKILL');
    throw e instanceof Error && e.message.includes(script) ? e : failed(String(e));
  }
  return p;
}

/** Polls `url` until it answers 200; `gone()` returning an error stops waiting (the server died). */
export async function waitForHttp(url: string, timeoutMs = 60_000, gone: () => Error | null = () => null): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    const err = gone();
    if (err) throw err;
    if (Date.now() > end) throw new Error(`${url} did not answer 200 in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A service started from the build (`startServiceProcess`): its port and base URL. */
export interface ServiceProcess extends NodeProcess {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
}

/**
 * Starts a service as distributed mode runs it: `node dist/services/<service>/src/main.js` (or `script`) under `root`,
 * on `PORT` (a free one unless given) and `HOST=127.0.0.1`, with `env` added; resolves once its `/api/health` answers
 * 200, which waits for HTTP and for every consumer group to have joined (docs/decisions/0030).
 */
export async function startServiceProcess(
  root: string,
  service: string,
  env: NodeJS.ProcessEnv,
  opts: { port?: number; script?: string; readyTimeoutMs?: number; stdio?: 'capture' | 'inherit'; healthPath?: string; inheritEnv?: boolean } = {},
): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const p = await startNodeProcess(path.join(root, 'dist/services', service, 'src', opts.script ?? 'main.js'), { url: `${url}${opts.healthPath ?? '/api/health'}` }, {
    cwd: root,
    stdio: opts.stdio,
    readyTimeoutMs: opts.readyTimeoutMs,
    inheritEnv: opts.inheritEnv,
    // HOST is left to the service's default (127.0.0.1) with only the given environment
    env: { ...(opts.inheritEnv === false ? {} : { HOST: '127.0.0.1' }), ...env, PORT: String(port) },
  });
  return Object.assign(p, { port, url });
}

/**
 * Service processes on a Kafka mock cluster of their own (kcat, `brokers` brokers), sharing one database and one NATS:
 * what the crash and fault drills start. `env` is what every service reads (database, brokers, NATS, the public key,
 * migrations at boot); `producer` publishes events as another service would; `pool` reads the database.
 */
export interface ServiceCluster {
  kafka: RunningBroker;
  producer: KafkaEventBus;
  pool: Pool;
  keys: KeyPair;
  env: Record<string, string>;
  /** Starts `service` (see `startServiceProcess`) with `env` and `extra`; every process started is SIGKILLed by `stop()`. */
  start: (service: string, extra?: NodeJS.ProcessEnv, opts?: Parameters<typeof startServiceProcess>[3]) => Promise<ServiceProcess>;
  /** SIGKILLs the processes still running, then closes the producer, the pool and the Kafka mock (not the database). */
  stop: () => Promise<void>;
}

export async function startServiceCluster(opts: { root: string; databaseUrl: string; natsUrl?: string; clientId: string; brokers?: number }): Promise<ServiceCluster> {
  const kafka = await startKafkaMock(opts.brokers ?? 1);
  const keys = generateSigningKeys();
  const producer = new KafkaEventBus({ clientId: opts.clientId, brokers: kafka.url.split(','), logLevel: logLevel.NOTHING });
  const pool = new Pool({ connectionString: opts.databaseUrl, max: 2 });
  const env: Record<string, string> = {
    DATABASE_URL: opts.databaseUrl,
    KAFKA_BROKERS: kafka.url,
    ...(opts.natsUrl ? { NATS_URL: opts.natsUrl } : {}),
    JWT_PUBLIC_KEY: Buffer.from(keys.publicKey).toString('base64'),
    MIGRATIONS_RUN: 'true',
  };
  const started: ServiceProcess[] = [];
  return {
    kafka,
    producer,
    pool,
    keys,
    env,
    start: async (service, extra = {}, o = {}) => {
      const p = await startServiceProcess(opts.root, service, { ...env, ...extra }, o);
      started.push(p);
      return p;
    },
    stop: async () => {
      for (const p of started) await p.stop('SIGKILL');
      await producer.stop();
      await pool.end();
      await kafka.stop();
    },
  };
}

/**
 * A `streams.message.accepted` event as streams publishes it, for feeding dispatch directly in tests and benches: an
 * SMS to a German mobile number made from `i`, one GSM-7 segment; the text is `m <i>` unless given (an SMSC peer
 * identifies messages by it).
 */
export function acceptedMessage(i: number, to: { accountId: string; streamId: string; sender: string; text?: string | ((messageUuid: string) => string); source?: string }): OutgoingEvent<EventData<typeof MessageAcceptedV1>> {
  const messageUuid = randomUUID();
  const data: EventData<typeof MessageAcceptedV1> = {
    messageUuid,
    accountId: to.accountId,
    streamId: to.streamId,
    streamUid: `stream-${to.streamId}`,
    streamType: 2,
    channel: 'sms',
    sender: to.sender,
    destination: `+49151${String(10_000_000 + (i % 89_999_999)).padStart(8, '0')}`,
    iso2: 'DE',
    text: typeof to.text === 'function' ? to.text(messageUuid) : (to.text ?? `m ${i}`),
    encoding: 'GSM7',
    segments: 1,
    priceMicros: 45_000,
    currency: 'EUR',
    payload: null,
    campaignId: null,
    notBefore: null,
    acceptedAt: new Date().toISOString(),
  };
  return createEnvelope(MessageAcceptedV1, data, { accountId: to.accountId, source: to.source ?? 'streams' });
}
