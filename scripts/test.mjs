#!/usr/bin/env node
// `npm test`: the system packages the broker and browser tests need (installed with apt when missing and possible),
// lint, type-check, build (the browser and end-to-end tests run the built server and admin), then jest.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import * as path from 'node:path';

const { provision } = createRequire(import.meta.url)('./provision.cjs');
console.log('\n=== system packages (nats-server, kcat, chromium) ===');
if (!provision()) process.exit(1);

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const steps = [
  // the module-boundaries lint rule reads Nx's project graph; compute it first (no daemon, no cloud)
  ['project graph', bin('nx'), ['show', 'projects']],
  ['lint', bin('eslint'), ['.', '--max-warnings', '0']],
  ['type-check (server)', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
  ['type-check (admin)', bin('tsc'), ['-p', 'apps/admin/tsconfig.json', '--noEmit']],
  ['build', process.execPath, ['scripts/build.mjs']],
  ['jest', process.execPath, ['--expose-gc', path.join(root, 'node_modules/jest/bin/jest.js'), '--ci', ...process.argv.slice(2)]],
];
for (const [name, cmd, args] of steps) {
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  // jest's e2e tests run the build made just above: none rebuilds dist/ while another's server is loading it
  const env = name === 'jest' ? { ...process.env, SWITCHBOARD_TEST_BUILT: '1' } : process.env;
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  console.log(`=== ${name}: ${r.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`);
  if (r.status !== 0) process.exit(r.status ?? 1);
}
