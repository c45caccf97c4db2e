import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadAll } from 'js-yaml';
import { GATEWAY_ROUTE_TABLE } from '@switchboard/gateway';
import { trustProxySetting } from '@switchboard/platform';

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

  it('has every service behind the gateway trust exactly the gateway, and nothing trust every hop', () => {
    type ComposeService = { environment?: Record<string, string>; networks?: Record<string, { ipv4_address?: string }> };
    const full = docs('deploy/compose.yaml')[0] as { services: Record<string, ComposeService>; networks: { default: { ipam: { config: Array<{ subnet: string }> } } } };
    const gatewayAddress = full.services.gateway.networks?.default?.ipv4_address;
    expect(gatewayAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // inside the compose network's fixed subnet
    const [net, bits] = full.networks.default.ipam.config[0].subnet.split('/');
    const toInt = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    const size = 2 ** (32 - Number(bits));
    expect(Math.floor(toInt(gatewayAddress as string) / size)).toBe(Math.floor(toInt(net) / size));
    const behind = services.filter((s) => s !== 'gateway');
    expect(behind.length).toBeGreaterThan(0);
    for (const s of behind) expect({ s, trust: full.services[s].environment?.TRUST_PROXY }).toEqual({ s, trust: gatewayAddress });
    // the gateway's own setting (what is in front of it) is valid, never every hop or a hop count
    const envExample = fs.readFileSync(path.join(root, 'deploy/.env.example'), 'utf8');
    const gatewayTrust = /^TRUST_PROXY=(.*)$/m.exec(envExample)?.[1];
    expect(gatewayTrust).toBeDefined();
    expect(() => trustProxySetting(gatewayTrust)).not.toThrow();

    // k8s: the services trust the pod network, which a NetworkPolicy leaves to the gateway's pods alone
    const config = k8s.find((d) => d.kind === 'ConfigMap') as unknown as { data: Record<string, string> };
    expect(trustProxySetting(config.data.TRUST_PROXY)).not.toBe(false);
    expect(() => trustProxySetting(config.data.GATEWAY_TRUST_PROXY)).not.toThrow();
    type Container = { env?: Array<{ name: string; valueFrom?: { configMapKeyRef?: { key: string } } }> };
    const gatewayDep = k8s.find((d) => d.kind === 'Deployment' && d.metadata?.name === 'gateway');
    const gatewayEnv = ((gatewayDep?.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0].env ?? []).find((e) => e.name === 'TRUST_PROXY');
    expect(gatewayEnv?.valueFrom?.configMapKeyRef?.key).toBe('GATEWAY_TRUST_PROXY');
    for (const s of behind) {
      const dep = k8s.find((d) => d.kind === 'Deployment' && d.metadata?.name === s);
      const env = ((dep?.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0].env ?? []).map((e) => e.name);
      expect({ s, overrides: env.includes('TRUST_PROXY') }).toEqual({ s, overrides: false });
    }
    type Policy = { podSelector: { matchExpressions: Array<{ key: string; operator: string; values: string[] }> }; ingress: Array<{ from: Array<{ podSelector: { matchLabels: Record<string, string> } }> }> };
    const policy = k8s.find((d) => d.kind === 'NetworkPolicy')?.spec as Policy | undefined;
    expect(policy?.podSelector.matchExpressions[0]).toMatchObject({ key: 'app', operator: 'In' });
    expect([...(policy?.podSelector.matchExpressions[0].values ?? [])].sort()).toEqual([...behind].sort());
    expect(policy?.ingress).toEqual([expect.objectContaining({ from: [{ podSelector: { matchLabels: { app: 'gateway' } } }] })]);
  });
});
