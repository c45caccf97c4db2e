import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..');

/** Lints a probe file as if it lived at `filePath`, without writing it (ESLint reads it from stdin). */
function lintProbe(filePath: string, code: string): { status: number | null; output: string } {
  spawnSync(process.execPath, [path.join(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], { cwd: root, encoding: 'utf8' });
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/eslint/bin/eslint.js'), '--stdin', '--stdin-filename', filePath], {
    cwd: root,
    input: code,
    encoding: 'utf8',
  });
  return { status: r.status, output: r.stdout + r.stderr };
}

/** ARCHITECTURE.md section 1: services never import each other; they share only libs. */
describe('module boundaries', () => {
  it('refuses a service importing another service', () => {
    const r = lintProbe('services/gateway/src/probe.ts', "import { AuthModule } from '@switchboard/auth';\nexport const m = AuthModule;\n");
    expect(r.status).toBe(1);
    expect(r.output).toContain('@nx/enforce-module-boundaries');
  }, 60000);

  it('lets a service import the shared libraries', () => {
    const r = lintProbe('services/gateway/src/probe.ts', "import { ErrorCode } from '@switchboard/contracts';\nimport { AppError } from '@switchboard/platform';\nexport const e = new AppError(400, ErrorCode.RequestValidation, 'x');\n");
    expect(r.output).not.toContain('enforce-module-boundaries');
    expect(r.status).toBe(0);
  }, 60000);

  it('lets the embedded server import services', () => {
    const r = lintProbe('apps/platform/src/probe.ts', "import { AuthModule } from '@switchboard/auth';\nexport const m = AuthModule;\n");
    expect(r.output).not.toContain('enforce-module-boundaries');
  }, 60000);
});
