import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadAll } from 'js-yaml';
import { GATEWAY_ROUTE_TABLE } from '@switchboard/gateway';

const root = path.resolve(__dirname, '..');
type Doc = { kind?: string; metadata?: { name?: string }; spec?: Record<string, unknown> };

function docs(file: string): Doc[] {
  return loadAll(fs.readFileSync(path.join(root, file), 'utf8')) as Doc[];
}

/** Every standalone service (a services/<name>/src/main.ts) is deployable: k8s, compose, and reachable through the gateway. */
describe('deployment manifests', () => {
  const services = fs.readdirSync(path.join(root, 'services')).filter((s) => fs.existsSync(path.join(root, 'services', s, 'src/main.ts')));
  const k8s = fs
    .readdirSync(path.join(root, 'k8s'))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => docs(`k8s/${f}`));
  const compose = docs('deploy/compose.yaml')[0] as { services: Record<string, { command?: string[] }> };

  it('gives each service a Deployment with liveness and readiness probes', () => {
    for (const s of services) {
      const dep = k8s.find((d) => d.kind === 'Deployment' && d.metadata?.name === s);
      expect({ s, found: !!dep }).toEqual({ s, found: true });
      const container = (dep?.spec as { template: { spec: { containers: Array<{ livenessProbe?: unknown; readinessProbe?: unknown; command: string[] }> } } }).template.spec.containers[0];
      expect(container.livenessProbe).toBeDefined();
      expect(container.readinessProbe).toBeDefined();
      expect(container.command.join(' ')).toContain(`dist/services/${s}/src/main.js`);
    }
  });

  it('runs each database-owning service migrations in a Job and in compose', () => {
    const migrating = services.filter((s) => fs.existsSync(path.join(root, 'services', s, 'src/migrate.ts')));
    expect(migrating.length).toBeGreaterThan(0);
    const migrate = compose.services.migrate.command?.join(' ') ?? '';
    for (const s of migrating) {
      expect(k8s.some((d) => d.kind === 'Job' && d.metadata?.name === `${s}-migrate`)).toBe(true);
      expect(migrate.includes(`dist/services/${s}/src/migrate.js`) || migrate.includes('for s in') && migrate.includes(s)).toBe(true);
    }
  });

  it('starts every service in compose and routes the gateway to each one that owns API paths', () => {
    const owners = new Set(Object.values(GATEWAY_ROUTE_TABLE));
    const config = k8s.find((d) => d.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    for (const s of services) {
      expect(Object.keys(compose.services)).toContain(s);
      if (owners.has(s)) {
        expect(config.data.GATEWAY_ROUTES).toContain(`${s}=http://${s}.switchboard.svc`);
        expect(JSON.stringify(compose.services.gateway)).toContain(`${s}=http://${s}:`);
      }
    }
  });

  it('declares each Kafka topic of the contracts with its dead-letter twin', () => {
    const topics = k8s.filter((d) => d.kind === 'KafkaTopic').map((d) => (d.spec as { topicName: string }).topicName);
    for (const s of ['auth', 'accounts', 'contacts', 'streams', 'dispatch']) {
      expect(topics).toEqual(expect.arrayContaining([`switchboard.${s}`, `switchboard.${s}.dlq`]));
    }
  });
});
