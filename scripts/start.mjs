#!/usr/bin/env node
// `npm start`: builds what is missing or stale, then runs the embedded server (every service in one process).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === 'dist') continue;
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

const adminIndex = path.join(root, 'apps/admin/dist/index.html');
const adminStale = !fs.existsSync(adminIndex) || newestMtime(path.join(root, 'apps/admin/src')) > fs.statSync(adminIndex).mtimeMs;
const args = ['scripts/build.mjs'];
if (!adminStale) args.push('--server-only');
const build = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const child = spawn(process.execPath, ['--enable-source-maps', '--max-semi-space-size=64', 'dist/apps/platform/src/main.js'], { cwd: root, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
