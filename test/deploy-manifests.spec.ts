import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { loadAll } from 'js-yaml';
import { z } from 'zod';
import { GATEWAY_ROUTE_TABLE } from '@switchboard/gateway';
import { trustProxySetting } from '@switchboard/platform';
import { documentedFor, readEnvFile, readmeConfigTable } from '@switchboard/platform/testing';
import { dispatchModuleOptionsFromConfig, loadDispatchConfig } from '../services/dispatch/src/dispatch.config';
import { REDIRECT_NODE_FLAGS, redirectConfigSchema } from '../services/links/src/redirect/redirect.config';

const root = path.resolve(__dirname, '..');
type Doc = { kind?: string; metadata?: { name?: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> }; spec?: Record<string, unknown> };
type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } };
type EnvFrom = { configMapRef?: { name: string }; secretRef?: { name: string } };
type Resources = { requests?: { cpu?: string; memory?: string }; limits?: { cpu?: string; memory?: string } };
type Container = { name: string; command: string[]; env?: EnvVar[]; envFrom?: EnvFrom[]; resources?: Resources };
type PodSpec = { containers: Container[]; initContainers?: Container[] };
type Workload = Doc & { spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } } };
const podSpec = (d: Doc | undefined): PodSpec => (d as unknown as Workload).spec.template.spec;

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
  const deployment = (s: string) => k8s.find((d) => d.kind === 'Deployment' && d.metadata?.name === s);

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

  it("starts the short links' redirect with its node flags (its young generation, docs/decisions/0190) in compose and k8s", () => {
    expect(REDIRECT_NODE_FLAGS.length).toBeGreaterThan(0);
    const script = 'dist/services/links/src/main-redirect.js';
    const k8sCommand = podSpec(deployment('links-redirect')).containers[0].command;
    for (const command of [compose.services['links-redirect'].command ?? [], k8sCommand]) {
      // node's own flags go before the script (after it they would be the script's arguments)
      const flags = command.slice(1, command.indexOf(script));
      expect({ command, node: command[0], flags: REDIRECT_NODE_FLAGS.filter((f) => flags.includes(f)) }).toEqual({ command, node: 'node', flags: [...REDIRECT_NODE_FLAGS] });
    }
  });

  it('migrates each database-owning service before it starts: an initContainer in k8s, the migrate step in compose', () => {
    const migrating = services.filter((s) => fs.existsSync(path.join(root, 'services', s, 'src/migrate.ts')));
    expect(migrating.length).toBeGreaterThan(0);
    const migrate = compose.services.migrate.command?.join(' ') ?? '';
    for (const s of migrating) {
      const pod = podSpec(deployment(s));
      const init = (pod.initContainers ?? []).find((c) => c.command.join(' ').includes(`dist/services/${s}/src/migrate.js`));
      expect({ s, init: !!init }).toEqual({ s, init: true });
      // the migration needs the database alone
      expect({ s, env: (init?.env ?? []).map((e) => e.name), envFrom: init?.envFrom ?? [] }).toEqual({ s, env: ['DATABASE_URL'], envFrom: [] });
      expect(pod.containers[0].env?.find((e) => e.name === 'MIGRATIONS_RUN')?.value).toBe('false');
      expect(migrate.includes(`dist/services/${s}/src/migrate.js`) || (migrate.includes('for s in') && migrate.includes(s))).toBe(true);
    }
    // Helm hooks do nothing under kustomize: none may suggest an ordering that does not happen
    for (const d of k8s) expect({ name: d.metadata?.name, annotations: Object.keys(d.metadata?.annotations ?? {}).filter((a) => a.startsWith('helm.sh/')) }).toEqual({ name: d.metadata?.name, annotations: [] });
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
    const gatewayTrust = /^TRUST_PROXY="?([^"]*)"?$/m.exec(envExample)?.[1];
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
    const policy = k8s.find((d) => d.kind === 'NetworkPolicy' && d.metadata?.name === 'services-only-from-gateway')?.spec as Policy | undefined;
    expect(policy?.podSelector.matchExpressions[0]).toMatchObject({ key: 'app', operator: 'In' });
    expect([...(policy?.podSelector.matchExpressions[0].values ?? [])].sort()).toEqual([...behind].sort());
    expect(policy?.ingress).toEqual([expect.objectContaining({ from: [{ podSelector: { matchLabels: { app: 'gateway' } } }] })]);
  });
});

/** Each service's config schema (services/<name>/src/<name>.config.ts, `<name>ConfigSchema`): the variables it reads. */
function serviceSchemas(): Map<string, { keys: Set<string>; required: Set<string>; schema: z.ZodTypeAny }> {
  const out = new Map<string, { keys: Set<string>; required: Set<string>; schema: z.ZodTypeAny }>();
  for (const s of fs.readdirSync(path.join(root, 'services'))) {
    const file = path.join(root, 'services', s, 'src', `${s}.config.ts`);
    if (!fs.existsSync(path.join(root, 'services', s, 'src/main.ts'))) continue;
    expect({ s, config: fs.existsSync(file) }).toEqual({ s, config: true });
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- one module per service, found on disk
    const mod = require(file) as Record<string, unknown>;
    const schema = Object.entries(mod).find(([name]) => name === `${s}ConfigSchema`)?.[1] as z.ZodTypeAny | undefined;
    expect({ s, schema: !!schema }).toEqual({ s, schema: true });
    let inner = schema as z.ZodTypeAny;
    while (inner instanceof z.ZodEffects) inner = inner.innerType();
    const shape = (inner as z.ZodObject<z.ZodRawShape>).shape;
    const keys = new Set(Object.keys(shape));
    const required = new Set([...keys].filter((k) => !(shape[k] as z.ZodTypeAny).safeParse(undefined).success));
    out.set(s, { keys, required, schema: schema as z.ZodTypeAny });
  }
  return out;
}

describe('deployment configuration', () => {
  const schemas = serviceSchemas();
  const services = [...schemas.keys()];
  const k8s = fs
    .readdirSync(path.join(root, 'k8s'))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => docs(`k8s/${f}`).map((d) => Object.assign(d, { file: f })));
  const deployment = (s: string) => k8s.find((d) => d.kind === 'Deployment' && d.metadata?.name === s);
  const configMap = k8s.find((d) => d.kind === 'ConfigMap' && d.metadata?.name === 'switchboard-config') as unknown as { data: Record<string, string> };
  const secrets = new Map(
    k8s.filter((d) => d.kind === 'Secret').map((d) => [d.metadata?.name as string, new Set(Object.keys((d as unknown as { stringData: Record<string, string> }).stringData))]),
  );
  const knownElsewhere = (v: string) =>
    // read by links' redirect process (main-redirect.js, its own schema)
    v in redirectConfigSchema.shape ||
    // read by the platform library itself (the outbox relay's byte limits)
    fs
      .readdirSync(path.join(root, 'libs/platform/src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.includes('spec') && !f.startsWith('testing'))
      .some((f) => fs.readFileSync(path.join(root, 'libs/platform/src', f), 'utf8').includes(`'${v}'`));

  it('documents every variable each service reads in the README table, for exactly the services that read it', () => {
    const table = readmeConfigTable(root);
    expect(services.length).toBeGreaterThan(0);
    for (const [s, { keys }] of schemas) {
      for (const v of keys) {
        expect({ s, v, documented: table.has(v) }).toEqual({ s, v, documented: true });
      }
    }
    const all = new Set(services.flatMap((s) => [...(schemas.get(s)?.keys ?? [])]));
    for (const [v, cell] of table) {
      if (!all.has(v)) {
        // nothing documented is unknown
        expect({ v, known: knownElsewhere(v) }).toEqual({ v, known: true });
        continue;
      }
      for (const s of services) expect({ v, s, claimed: documentedFor(cell, s) }).toEqual({ v, s, claimed: schemas.get(s)?.keys.has(v) });
    }
  });

  it('has deploy/.env.example readable by a shell, naming only real variables and every one without a default', () => {
    const file = new Map([...readEnvFile(path.join(root, 'deploy/.env.example'))].map(([k, { value }]) => [k, value]));
    const run = spawnSync('bash', ['-c', `set -a; . ./deploy/.env.example; set +a; "${process.execPath}" -e 'process.stdout.write(JSON.stringify(process.env))'`], {
      cwd: root,
      // a clean environment; SHLVL and no stdin socket keep Debian's bash from reading ~/.bashrc
      env: { PATH: process.env.PATH ?? '', SHLVL: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    const sourced = JSON.parse(run.stdout) as Record<string, string>;
    expect(file.size).toBeGreaterThan(0);
    // the shell reads each value exactly as compose does
    for (const [k, v] of file) expect({ k, value: sourced[k] }).toEqual({ k, value: v });
    expect(file.get('MAIL_FROM')).toContain('<');

    const all = new Set(services.flatMap((s) => [...(schemas.get(s)?.keys ?? [])]));
    for (const k of file.keys()) expect({ k, known: all.has(k) }).toEqual({ k, known: true });
    type ComposeService = { environment?: Record<string, string>; command?: string[] };
    const composeServices = (docs('deploy/compose.yaml')[0] as { services: Record<string, ComposeService> }).services;
    for (const [s, { required }] of schemas) {
      for (const v of required) {
        const given = file.has(v) || composeServices[s]?.environment?.[v] !== undefined;
        expect({ s, v, given }).toEqual({ s, v, given: true });
      }
    }
    // the first administrator, and a development mail sink the SMTP URL points at
    expect(file.has('SWITCHBOARD_ADMIN_EMAIL') && file.has('SWITCHBOARD_ADMIN_PASSWORD')).toBe(true);
    const sink = new URL(file.get('SMTP_URL') as string).hostname;
    expect(composeServices[sink]).toBeDefined();
  });

  it('listens on 127.0.0.1 unless told, and compose and k8s say 0.0.0.0', () => {
    type ComposeService = { environment?: Record<string, string>; command?: string[] };
    const composeServices = (docs('deploy/compose.yaml')[0] as { services: Record<string, ComposeService> }).services;
    for (const [s, { schema }] of schemas) {
      let inner = schema;
      while (inner instanceof z.ZodEffects) inner = inner.innerType();
      expect({ s, host: ((inner as z.ZodObject<z.ZodRawShape>).shape.HOST as z.ZodTypeAny).parse(undefined) }).toEqual({ s, host: '127.0.0.1' });
      expect({ s, compose: composeServices[s]?.environment?.HOST }).toEqual({ s, compose: '0.0.0.0' });
      const container = podSpec(deployment(s)).containers[0];
      const host = container.env?.find((e) => e.name === 'HOST')?.value ?? (container.envFrom?.some((e) => e.configMapRef?.name === 'switchboard-config') ? configMap.data.HOST : undefined);
      expect({ s, k8s: host }).toEqual({ s, k8s: '0.0.0.0' });
    }
  });

  it('gives each service its own secret with only what it reads, and every variable it needs', () => {
    for (const [s, { keys, required }] of schemas) {
      const pod = podSpec(deployment(s));
      const provided = new Set<string>();
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        for (const from of c.envFrom ?? []) {
          if (from.secretRef) {
            expect({ s, secret: from.secretRef.name }).toEqual({ s, secret: `${s}-secrets` });
            const held = [...(secrets.get(from.secretRef.name) ?? [])];
            expect({ s, held: held.length > 0 }).toEqual({ s, held: true });
            // least privilege: nothing the service does not read
            expect({ s, extra: held.filter((k) => !keys.has(k)) }).toEqual({ s, extra: [] });
            if (c === pod.containers[0]) held.forEach((k) => provided.add(k));
          }
          if (from.configMapRef && c === pod.containers[0]) Object.keys(configMap.data).forEach((k) => provided.add(k));
        }
        for (const e of c.env ?? []) {
          if (e.valueFrom?.secretKeyRef) expect({ s, secret: e.valueFrom.secretKeyRef.name }).toEqual({ s, secret: `${s}-secrets` });
          if (c === pod.containers[0]) provided.add(e.name);
        }
      }
      for (const v of required) expect({ s, v, provided: provided.has(v) }).toEqual({ s, v, provided: true });
      if (s !== 'auth') expect({ s, privateKey: provided.has('JWT_PRIVATE_KEY') }).toEqual({ s, privateKey: false });
    }
    // the shared ConfigMap holds nothing a Secret holds
    const secretKeys = new Set([...secrets.values()].flatMap((k) => [...k]));
    expect(Object.keys(configMap.data).filter((k) => secretKeys.has(k))).toEqual([]);
    expect(Object.keys(configMap.data)).toEqual(expect.arrayContaining(['SWITCHBOARD_ADMIN_EMAIL', 'APP_URL', 'STREAMS_PUBLIC_API_URL']));
    expect([...(secrets.get('auth-secrets') ?? [])]).toEqual(expect.arrayContaining(['SWITCHBOARD_ADMIN_PASSWORD', 'JWT_PRIVATE_KEY']));
  });

  it('gives every workload container requests and a memory limit, and every Deployment and StatefulSet a PodDisruptionBudget', () => {
    const workloads = k8s.filter((d) => ['Deployment', 'StatefulSet', 'Job'].includes(d.kind ?? ''));
    expect(workloads.length).toBeGreaterThan(0);
    for (const w of workloads) {
      const pod = podSpec(w);
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        const r = c.resources ?? {};
        expect({ w: w.metadata?.name, c: c.name, cpu: !!r.requests?.cpu, memory: !!r.requests?.memory, limit: !!r.limits?.memory }).toEqual({
          w: w.metadata?.name,
          c: c.name,
          cpu: true,
          memory: true,
          limit: true,
        });
      }
      if (w.kind === 'Job') continue;
      const labels = (w as unknown as Workload).spec.selector.matchLabels;
      const pdb = k8s.find(
        (d) => d.kind === 'PodDisruptionBudget' && d.metadata?.namespace === w.metadata?.namespace && JSON.stringify((d.spec as { selector: { matchLabels: unknown } }).selector.matchLabels) === JSON.stringify(labels),
      );
      expect({ w: w.metadata?.name, pdb: !!pdb }).toEqual({ w: w.metadata?.name, pdb: true });
      // a budget that still lets a node drain
      const spec = pdb?.spec as { minAvailable?: number; maxUnavailable?: number };
      const replicas = (w.spec as { replicas?: number }).replicas ?? 1;
      expect({ w: w.metadata?.name, drains: spec.maxUnavailable !== undefined ? spec.maxUnavailable > 0 : (spec.minAvailable ?? replicas) < replicas }).toEqual({ w: w.metadata?.name, drains: true });
    }
  });

  it('keeps every resource in its own namespace under kustomize, the KafkaTopics in kafka', () => {
    const kustomization = docs('k8s/kustomization.yaml')[0] as unknown as { namespace?: string; resources: string[] };
    const listed = new Set(kustomization.resources);
    for (const f of fs.readdirSync(path.join(root, 'k8s')).filter((x) => x.endsWith('.yaml') && !['kustomization.yaml', 'secrets.example.yaml'].includes(x))) {
      expect({ f, listed: listed.has(f) }).toEqual({ f, listed: true });
    }
    const applied = k8s.filter((d) => listed.has((d as Doc & { file: string }).file) && d.kind !== 'Namespace');
    const topics = applied.filter((d) => d.kind === 'KafkaTopic');
    expect(topics.length).toBeGreaterThan(0);
    // kustomize's `namespace:` would override each resource's own, the topics' too
    const effective = (d: Doc) => kustomization.namespace ?? d.metadata?.namespace;
    for (const t of topics) expect({ t: t.metadata?.name, ns: effective(t) }).toEqual({ t: t.metadata?.name, ns: 'kafka' });
    for (const d of applied.filter((x) => x.kind !== 'KafkaTopic')) expect({ d: d.metadata?.name, ns: effective(d) }).toEqual({ d: d.metadata?.name, ns: 'switchboard' });
  });

  it('creates the same topics with the same partitions in compose as in k8s, and no service creates its own', () => {
    const declared = new Map(
      k8s.filter((d) => d.kind === 'KafkaTopic').map((d) => [(d.spec as { topicName: string }).topicName, (d.spec as { partitions: number }).partitions]),
    );
    type ComposeService = { environment?: Record<string, string>; command?: string[] };
    const composeServices = (docs('deploy/compose.yaml')[0] as { services: Record<string, ComposeService> }).services;
    const script = (composeServices['kafka-topics']?.command ?? []).join(' ');
    const created = new Map([...script.matchAll(/create (\S+) (\d+)/g)].map((m) => [m[1], Number(m[2])]));
    expect(created).toEqual(declared);
    for (const s of services) {
      if (schemas.get(s)?.keys.has('KAFKA_CREATE_TOPICS')) expect({ s, create: composeServices[s]?.environment?.KAFKA_CREATE_TOPICS }).toEqual({ s, create: 'false' });
    }
    expect(configMap.data.KAFKA_CREATE_TOPICS).toBe('false');
  });

  it("copies every workspace's package.json into the image before npm install", () => {
    const dockerfile = fs.readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
    const beforeInstall = dockerfile.slice(0, dockerfile.indexOf('RUN npm install'));
    expect(beforeInstall.length).toBeGreaterThan(0);
    const copied = new Set([...beforeInstall.matchAll(/^COPY (\S+)\/package\.json \1\/$/gm)].map((m) => m[1]));
    const { workspaces } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
    const dirs = workspaces.flatMap((glob) => {
      expect(glob).toMatch(/^[\w-]+\/\*$/);
      const parent = glob.slice(0, -2);
      return fs
        .readdirSync(path.join(root, parent))
        .filter((d) => fs.existsSync(path.join(root, parent, d, 'package.json')))
        .map((d) => `${parent}/${d}`);
    });
    expect(dirs.length).toBeGreaterThan(0);
    for (const d of dirs) expect({ d, copied: copied.has(d) }).toEqual({ d, copied: true });
  });

  it("has dispatch read APP_URL like auth, with PUBLIC_URL as a deprecated alias", () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const base = { DATABASE_URL: 'postgres://u:p@db:5432/x', JWT_PUBLIC_KEY: publicKey, KAFKA_BROKERS: 'kafka:9092', PROVIDER_SECRETS_KEY: 'x'.repeat(32) };
    expect(dispatchModuleOptionsFromConfig(loadDispatchConfig({ ...base, APP_URL: 'https://sb.example.com' })).publicUrl).toBe('https://sb.example.com');
    expect(dispatchModuleOptionsFromConfig(loadDispatchConfig({ ...base, PUBLIC_URL: 'https://old.example.com' })).publicUrl).toBe('https://old.example.com');
    expect(dispatchModuleOptionsFromConfig(loadDispatchConfig({ ...base, APP_URL: 'https://sb.example.com', PUBLIC_URL: 'https://old.example.com' })).publicUrl).toBe('https://sb.example.com');
  });

  it('has dispatch read the inbound media keeper from the environment: production refuses loopback media URLs, and kept bytes are bounded', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    const base = { DATABASE_URL: 'postgres://u:p@db:5432/x', JWT_PUBLIC_KEY: publicKey, KAFKA_BROKERS: 'kafka:9092', PROVIDER_SECRETS_KEY: 'x'.repeat(32) };
    expect(dispatchModuleOptionsFromConfig(loadDispatchConfig(base)).inboundMedia).toEqual({
      timeoutMs: 30_000,
      maxBytes: 100 * 1024 * 1024,
      keepConcurrency: 2,
      keepPollMs: 1000,
      keepRetryMs: 5000,
      keepForMs: 90 * 86_400_000,
      maxTotalBytes: 10_240 * 1024 * 1024,
      pruneEveryMs: 60_000,
      allowLoopback: false,
    });
    const set = dispatchModuleOptionsFromConfig(
      loadDispatchConfig({ ...base, DISPATCH_INBOUND_MEDIA_KEEP_DAYS: '7', DISPATCH_INBOUND_MEDIA_MAX_TOTAL_MB: '512', DISPATCH_INBOUND_MEDIA_KEEP_CONCURRENCY: '4', DISPATCH_INBOUND_MEDIA_ALLOW_LOOPBACK: 'true' }),
    ).inboundMedia;
    expect(set).toMatchObject({ keepForMs: 7 * 86_400_000, maxTotalBytes: 512 * 1024 * 1024, keepConcurrency: 4, allowLoopback: true });
    expect(() => loadDispatchConfig({ ...base, DISPATCH_INBOUND_MEDIA_KEEP_DAYS: '0' })).toThrow(/DISPATCH_INBOUND_MEDIA_KEEP_DAYS/);
  });
});

/** What Prometheus scrapes and what the dashboard and alerts query exist (docs/decisions/0039-observability.md). */
describe('monitoring manifests', () => {
  const k8sDocs = fs
    .readdirSync(path.join(root, 'k8s'))
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((f) => docs(`k8s/${f}`));
  const appOf = (d: Doc) => (d as unknown as Workload).spec.template.metadata.labels.app;
  const selected = (d: Doc | undefined) => ((d?.spec?.selector ?? d?.spec?.podSelector) as { matchExpressions: Array<{ values: string[] }> }).matchExpressions[0].values;
  const source = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'test' ? [] : source(p);
      return e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [fs.readFileSync(path.join(root, p), 'utf8')] : [];
    });

  it('scrapes every Deployment and lets the monitoring namespace reach it', () => {
    expect(docs('k8s/kustomization.yaml')[0]).toMatchObject({ resources: expect.arrayContaining(['monitoring.yaml']) });
    const monitors = k8sDocs.filter((d) => d.kind === 'PodMonitor');
    const selects = (m: Doc, app: string) => {
      const sel = m.spec?.selector as { matchLabels?: Record<string, string>; matchExpressions?: Array<{ values: string[] }> };
      return sel.matchLabels?.app === app || !!sel.matchExpressions?.[0].values.includes(app);
    };
    const policy = k8sDocs.find((d) => d.kind === 'NetworkPolicy' && d.metadata?.name === 'metrics-from-monitoring');
    for (const dep of k8sDocs.filter((d) => d.kind === 'Deployment' && d.metadata?.namespace === 'switchboard' && appOf(d) !== 'nats')) {
      const app = appOf(dep);
      expect({ app, scrapedBy: monitors.filter((m) => selects(m, app)).length, reachable: selected(policy).includes(app) }).toEqual({ app, scrapedBy: 1, reachable: true });
    }
  });

  it('queries only metrics the code defines, in the dashboard and in the alerts', () => {
    const code = [...source('libs/platform/src'), ...source('services')].join('\n');
    const dashboard = fs.readFileSync(path.join(root, 'deploy/grafana/switchboard-dashboard.json'), 'utf8');
    const rules = JSON.stringify(k8sDocs.find((d) => d.kind === 'PrometheusRule'));
    expect(JSON.parse(dashboard)).toMatchObject({ uid: 'switchboard' });
    const names = new Set([...`${dashboard}\n${rules}`.matchAll(/switchboard_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, '')));
    expect(names.size).toBeGreaterThan(10);
    for (const name of names) {
      // the process's default metrics (prom-client's collectDefaultMetrics, with our prefix)
      const builtIn = /^switchboard_(process|nodejs)_/.test(name);
      expect({ name, defined: builtIn || code.includes(`'${name}'`) }).toEqual({ name, defined: true });
    }
  });

  it('scales dispatch on the lag of its sender group', () => {
    const hpa = k8sDocs.find((d) => d.kind === 'HorizontalPodAutoscaler' && d.metadata?.name === 'dispatch');
    const metrics = (hpa?.spec as { metrics: Array<{ type: string; external?: { metric: { name: string; selector: { matchLabels: { group: string } } } } }> }).metrics;
    const lag = metrics.find((m) => m.type === 'External');
    expect(lag?.external?.metric.name).toBe('switchboard_kafka_partition_lag');
    expect(fs.readFileSync(path.join(root, 'services/dispatch/src/dispatch.options.ts'), 'utf8')).toContain(`SENDER_GROUP = '${lag?.external?.metric.selector.matchLabels.group}'`);
  });
});
