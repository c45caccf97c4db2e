import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { MessageAcceptedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, type OutgoingEvent } from '../bus/event-bus';

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
  /** Added to the parent's environment. */
  env?: NodeJS.ProcessEnv;
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
    env: { ...process.env, ...opts.env },
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
