import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { spawnNodeProcess, type NodeProcess } from '@switchboard/platform/testing';

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

/** A server started from dist/ (see `spawnNodeProcess`). */
export type ServerProcess = NodeProcess;

export function startProcess(script: string, env: NodeJS.ProcessEnv): ServerProcess {
  return spawnNodeProcess(script, { env, cwd: repoRoot });
}

export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 500)}`);
  }
}
