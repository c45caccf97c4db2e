#!/usr/bin/env node
// Builds the server code (libs, services, apps/platform, bench) to dist/ with swc, keeping the source layout so that
// the tsconfig path aliases become relative requires, and the admin console with Vite (skip with --server-only).
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';

const require = createRequire(import.meta.url);
const swc = require('@swc/core');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.join(root, 'dist');
const swcrc = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.base.json'), 'utf8'));
const paths = tsconfig.compilerOptions.paths;

const sourceDirs = [];
for (const group of ['libs', 'services']) {
  for (const name of fs.readdirSync(path.join(root, group))) {
    const src = path.join(group, name, 'src');
    if (fs.existsSync(path.join(root, src))) sourceDirs.push(src);
  }
}
sourceDirs.push('apps/platform/src');
if (fs.existsSync(path.join(root, 'bench'))) sourceDirs.push('bench');

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

let count = 0;
const started = Date.now();
for (const rel of sourceDirs) {
  const abs = path.join(root, rel);
  if (!fs.existsSync(abs)) continue;
  for (const file of walk(abs)) {
    const relFile = path.relative(root, file);
    const target = path.join(out, relFile);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (/\.(spec|int-spec|e2e-spec)\.ts$/.test(file) || file.endsWith('.d.ts')) continue;
    if (file.endsWith('.ts')) {
      const { code, map } = swc.transformFileSync(file, {
        ...swcrc,
        swcrc: false,
        filename: file,
        sourceFileName: path.relative(path.dirname(target), file),
        jsc: { ...swcrc.jsc, baseUrl: root, paths },
      });
      const js = target.replace(/\.ts$/, '.js');
      fs.writeFileSync(js, code + `\n//# sourceMappingURL=${path.basename(js)}.map`);
      if (map) fs.writeFileSync(js + '.map', map);
      count++;
    } else if (!/\.(md)$/.test(file)) {
      fs.copyFileSync(file, target);
    }
  }
}
console.log(`server: ${count} files compiled to dist/ in ${Date.now() - started} ms`);

if (!process.argv.includes('--server-only')) {
  const vite = path.join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: path.join(root, 'apps/admin'), stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
  console.log('admin: built to apps/admin/dist');
}
