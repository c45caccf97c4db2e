import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../../..');

/**
 * Compiles the server sources to dist/ (about a second), so the test runs what `npm start` runs. Under `npm test` the
 * build step has just done it (scripts/test.mjs sets SWITCHBOARD_TEST_BUILT): building again there would rewrite dist/
 * while other test files' servers are loading it, and a server could read a half-written module.
 */
export function buildServer(): void {
  if (process.env.SWITCHBOARD_TEST_BUILT === '1') return;
  const r = spawnSync(process.execPath, ['scripts/build.mjs', '--server-only'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed: ${r.stderr || r.stdout}`);
}

export interface ServerProcess {
  child: ChildProcess;
  output: () => string;
  waitFor: (re: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  /** Resolves with the exit code when the process ends by itself. */
  exited: () => Promise<number | null>;
}

export function startProcess(script: string, env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(process.execPath, ['--enable-source-maps', script], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters: Array<() => void> = [];
  const onData = (b: Buffer) => {
    out += b.toString();
    waiters.splice(0).forEach((w) => w());
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    waitFor: (re, timeoutMs = 60000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} in output:\n${out.slice(-3000)}`)), timeoutMs);
        const check = () => {
          const m = re.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m);
          } else if (child.exitCode !== null) {
            clearTimeout(timer);
            reject(new Error(`process exited (${child.exitCode}) before ${re}:\n${out.slice(-3000)}`));
          } else waiters.push(check);
        };
        check();
      }),
    exited: () => exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 500)}`);
  }
}
