import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateSigningKeys } from '../auth/tokens';
import { freePort } from '../database/embedded-postgres';
import { startServiceProcess, type ServiceProcess } from './processes';

/**
 * Distributed mode as an SRE starts it from the README alone: every service of the README's `PORT` row as its own
 * process from the build, each given exactly the variables the README's distributed-mode table documents for it, with
 * the values of `deploy/.env.example` (its empty secrets filled in as its comments say), only the addresses of this
 * machine's PostgreSQL, Kafka, NATS, SMTP relay and ports changed. Nothing else reaches the processes (not even the
 * parent's environment): a variable a service needs that the README does not document for it makes it refuse to start.
 */

/** The README's distributed-mode table: variable -> its services cell ("all", "all but gateway", "auth, accounts"). */
export function readmeConfigTable(root: string): Map<string, string> {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('## Distributed mode');
  if (start < 0) throw new Error('README.md has no "## Distributed mode" section');
  const end = readme.indexOf('\n## ', start + 1);
  const rows = new Map<string, string>();
  for (const line of readme.slice(start, end === -1 ? undefined : end).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1].startsWith('`')) continue;
    for (const m of cells[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) rows.set(m[1], cells[2]);
  }
  return rows;
}

/** Whether a table's services cell ("all", "all but gateway", "auth, accounts") names the service. */
export function documentedFor(cell: string, service: string): boolean {
  const named = new RegExp(`\\b${service}\\b`).test(cell);
  if (/^all\b/.test(cell)) return !(/\bbut\b/.test(cell) && named);
  return named;
}

/** `KEY="value"` lines of an env file, as compose reads them (surrounding quotes removed), with the comment above each. */
export function readEnvFile(file: string): Map<string, { value: string; comment: string }> {
  const vars = new Map<string, { value: string; comment: string }>();
  let comment = '';
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('#')) {
      comment += `${line.slice(1).trim()} `;
      continue;
    }
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) vars.set(m[1], { value: m[2].replace(/^"(.*)"$/, '$1'), comment });
    comment = '';
  }
  return vars;
}

/** The services of the README's `PORT` row ("gateway 3000, auth 3001, ..."), in its order. */
export function documentedServices(root: string): string[] {
  const cell = [...fs.readFileSync(path.join(root, 'README.md'), 'utf8').split('\n')].find((l) => l.startsWith('| `PORT` | all |'));
  if (!cell) throw new Error('README.md: no `PORT` row in the distributed-mode table');
  return [...cell.matchAll(/\b([a-z]+) 30\d\d\b/g)].map((m) => m[1]);
}

/**
 * The processes of distributed mode: every service of the README's `PORT` row, and the short links' redirect server
 * (`links-redirect`, `node dist/services/links/src/main-redirect.js`, public, not behind the gateway) beside links.
 */
export function documentedProcesses(root: string): string[] {
  const services = documentedServices(root);
  return services.includes('links') ? [...services, 'links-redirect'] : services;
}

/** How a process of distributed mode is started: its service folder, its script and the path it answers 200 on when ready. */
function processSpec(name: string): { service: string; script?: string; healthPath?: string } {
  // the redirect answers /-/health (raw node:http, no /api prefix: it serves short codes at the root)
  if (name === 'links-redirect') return { service: 'links', script: 'main-redirect.js', healthPath: '/-/health' };
  return { service: name };
}

export interface DistributedOptions {
  root: string;
  databaseUrl: string;
  kafkaBrokers: string;
  natsUrl: string;
  smtpUrl: string;
  /** The first super administrator's password (`.env.example` leaves it to the operator). */
  adminPassword: string;
  /** Processes to start (default: every service the README lists and the redirect, `documentedProcesses`); the gateway routes to the services started. */
  services?: string[];
  /** Documented variables to set differently for a service (checked against the table like the rest). */
  override?: (service: string) => Record<string, string>;
  stdio?: 'capture' | 'inherit';
  /** How long each process may take to answer its health check (360 s: a loaded 2-core runner boots many at once). */
  readyTimeoutMs?: number;
}

export interface DistributedMode {
  /** The gateway's URL. */
  url: string;
  processes: Map<string, ServiceProcess>;
  /** The environment each service was given. */
  env: Map<string, Record<string, string>>;
  /** The values `.env.example` gives (with the secrets filled in). */
  example: Map<string, string>;
  /** Starts `service` again with the environment it had (after a kill), on its port. */
  restart: (service: string) => Promise<ServiceProcess>;
  /** Starts one more replica of `service` on a new port (the gateway does not know it). */
  addReplica: (service: string) => Promise<ServiceProcess>;
  scratch: string;
  stop: () => Promise<void>;
}

/** Values the operator puts in `.env.example`'s empty entries, read from the comment above each. */
function fillIn(example: Map<string, { value: string; comment: string }>, adminPassword: string): Map<string, string> {
  const keys = generateSigningKeys();
  const out = new Map<string, string>();
  for (const [k, { value, comment }] of example) {
    if (value !== '') out.set(k, value);
    else if (k === 'JWT_PRIVATE_KEY') out.set(k, Buffer.from(keys.privateKey).toString('base64'));
    else if (k === 'JWT_PUBLIC_KEY') out.set(k, Buffer.from(keys.publicKey).toString('base64'));
    else if (k === 'SWITCHBOARD_ADMIN_PASSWORD') out.set(k, adminPassword);
    // "64 hex characters", "at least 16 characters": a key the operator generates
    else if (/hex characters|at least 16 characters/.test(comment)) out.set(k, randomBytes(32).toString('hex'));
    // the rest ("empty: turned off") stays empty, as compose passes it
    else out.set(k, '');
  }
  return out;
}

/**
 * What each service is given: every variable the README's table documents for it, valued from `local` (this machine's
 * addresses) or else deploy/.env.example (`example`, secrets filled in); variables without either keep their defaults.
 * Throws if an override names a variable not documented for the service.
 */
export function documentedEnvironment(root: string, services: string[], local: Record<string, string>, example: Map<string, string>, override: (service: string) => Record<string, string> = () => ({})): Map<string, Record<string, string>> {
  const table = readmeConfigTable(root);
  const envs = new Map<string, Record<string, string>>();
  for (const s of services) {
    const env: Record<string, string> = {};
    for (const [v, cell] of table) {
      if (!documentedFor(cell, s) || v === 'PORT') continue;
      const value = local[v] ?? example.get(v);
      if (value !== undefined) env[v] = value;
    }
    Object.assign(env, override(s));
    for (const v of Object.keys(env)) {
      if (!table.has(v) || !documentedFor(table.get(v) ?? '', s)) throw new Error(`${s}: ${v} is not documented for it in the README's distributed-mode table`);
    }
    envs.set(s, env);
  }
  return envs;
}

/** deploy/.env.example's values, its empty secrets filled in as an operator would (see its comments). */
export function exampleEnvironment(root: string, adminPassword: string): Map<string, string> {
  return fillIn(readEnvFile(path.join(root, 'deploy/.env.example')), adminPassword);
}

/** This machine's addresses, ports and directories for `services` (the rest of the environment is documented values). */
export function localEnvironment(opts: { databaseUrl: string; kafkaBrokers: string; natsUrl: string; smtpUrl: string; scratch: string; ports: Map<string, number> }): Record<string, string> {
  const gateway = `http://127.0.0.1:${opts.ports.get('gateway') ?? 0}`;
  return {
    DATABASE_URL: opts.databaseUrl,
    KAFKA_BROKERS: opts.kafkaBrokers,
    NATS_URL: opts.natsUrl,
    SMTP_URL: opts.smtpUrl,
    APP_URL: gateway,
    STREAMS_PUBLIC_API_URL: gateway,
    // the compose file runs migrate.js first; here each service migrates at boot (replicas take turns on a lock)
    MIGRATIONS_RUN: 'true',
    CONTACTS_STORAGE_DIR: path.join(opts.scratch, 'contacts'),
    STATS_EXPORT_DIR: path.join(opts.scratch, 'stats-exports'),
    INBOX_MEDIA_DIR: path.join(opts.scratch, 'inbox-media'),
    INBOX_DISPATCH_URL: `http://127.0.0.1:${opts.ports.get('dispatch') ?? 0}`,
    GATEWAY_ROUTES: [...opts.ports]
      // the redirect is public on its own port, not behind the gateway
      .filter(([s]) => s !== 'gateway' && s !== 'links-redirect')
      .map(([s, port]) => `${s}=http://127.0.0.1:${port}`)
      .join(','),
  };
}

export async function startDistributedMode(opts: DistributedOptions): Promise<DistributedMode> {
  const example = exampleEnvironment(opts.root, opts.adminPassword);
  const services = opts.services ?? documentedProcesses(opts.root);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-distributed-'));
  const ports = new Map<string, number>();
  for (const s of services) ports.set(s, await freePort());
  const gateway = `http://127.0.0.1:${ports.get('gateway') ?? 0}`;
  const envs = documentedEnvironment(opts.root, services, localEnvironment({ ...opts, scratch, ports }), example, opts.override);
  const processes = new Map<string, ServiceProcess>();
  const extra: ServiceProcess[] = [];
  const start = (s: string, port?: number) => {
    const spec = processSpec(s);
    return startServiceProcess(opts.root, spec.service, envs.get(s) ?? {}, { port, script: spec.script, healthPath: spec.healthPath, inheritEnv: false, stdio: opts.stdio, readyTimeoutMs: opts.readyTimeoutMs ?? 360_000 });
  };
  try {
    // the gateway last: it answers for services that are up
    const started = await Promise.allSettled(services.filter((s) => s !== 'gateway').map(async (s) => processes.set(s, await start(s, ports.get(s)))));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (services.includes('gateway')) processes.set('gateway', await start('gateway', ports.get('gateway')));
  } catch (e) {
    for (const p of processes.values()) await p.stop('SIGKILL');
    fs.rmSync(scratch, { recursive: true, force: true });
    throw e;
  }
  return {
    url: gateway,
    processes,
    env: envs,
    example,
    scratch,
    restart: async (s) => {
      const p = await start(s, ports.get(s));
      processes.set(s, p);
      return p;
    },
    addReplica: async (s) => {
      const p = await start(s);
      extra.push(p);
      return p;
    },
    stop: async () => {
      await Promise.all([...processes.values(), ...extra].map((p) => p.stop('SIGKILL')));
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
}
