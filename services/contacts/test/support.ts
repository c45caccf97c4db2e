import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ALL_PERMISSIONS, Topics, type EventEnvelope } from '@switchboard/contracts';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { configureHttpApp, DevMailbox, InMemoryEventBus, InMemoryRealtime, PlatformModule, TokenVerifier } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { Client } from 'pg';
import { ContactsModule, type ContactsModuleOptions } from '../src';
import { ContactsOutboxRelay } from '../src/services/contacts-events.service';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/** A GB mobile number, distinct per n (0..99 999 999). */
export const gb = (n: number): string => `+4474${String(n).padStart(8, '0')}`;

export interface ContactsTestApp {
  t: TestApp;
  storageDir: string;
  /** A member of `account` holding `perms` (default: every permission). */
  token: (account: string, perms?: readonly string[]) => string;
  call: <T = Record<string, unknown>>(method: string, path: string, opts?: { body?: unknown; token?: string }) => Promise<Answer<T>>;
  upload: <T = Record<string, unknown>>(token: string, file: Buffer | string, name: string, fields?: Record<string, string>) => Promise<Answer<T>>;
  /** Uploads, maps and starts; resolves with the import once it is parsed or in error. */
  importFile: (token: string, file: Buffer | string, name: string, mapping: Array<{ column: number; variable: string | number }>, opts?: { ignoreFirstLine?: boolean; type?: string; defaultCountry?: string }) => Promise<Record<string, unknown>>;
  waitImport: (token: string, id: number) => Promise<Record<string, unknown>>;
  waitTask: (token: string, id: number) => Promise<Record<string, unknown>>;
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  events: () => Promise<EventEnvelope[]>;
  realtime: Array<{ subject: string; type: string; data: Record<string, unknown> }>;
  close: () => Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The contacts module on a fresh database, jobs polled every 50 ms, small batches, files in a temp dir. */
export async function startContacts(options: Partial<ContactsModuleOptions> = {}): Promise<ContactsTestApp> {
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-contacts-'));
  const bus = new InMemoryEventBus();
  const rt = new InMemoryRealtime();
  const t = await createTestApp(() => ({
    imports: [ContactsModule.register({ storageDir, pollIntervalMs: 50, workers: 2, batchSize: 500, ...options })],
    bus,
    realtime: rt,
  }));
  return wrap(t, storageDir, bus, rt, true);
}

/**
 * A second process on the database and files of an earlier one (a restart): same keys, its own bus and realtime.
 * Closing it leaves the database in place.
 */
export async function restartContacts(previous: ContactsTestApp, options: Partial<ContactsModuleOptions> = {}): Promise<ContactsTestApp> {
  const bus = new InMemoryEventBus();
  const rt = new InMemoryRealtime();
  const moduleRef = await Test.createTestingModule({
    imports: [
      PlatformModule.forRoot({ bus, realtime: rt, mailer: new DevMailbox(), verifier: new TokenVerifier(previous.t.keys.publicKey), databaseUrl: previous.t.db.url, processName: 'test-restart' }),
      ContactsModule.register({ storageDir: previous.storageDir, pollIntervalMs: 50, workers: 2, batchSize: 500, ...options }),
    ],
  }).compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ logger: ['error', 'warn'] });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const t: TestApp = { ...previous.t, app, url: `http://127.0.0.1:${port}`, bus, realtime: rt, close: async () => app.close() };
  return wrap(t, previous.storageDir, bus, rt, false);
}

async function wrap(t: TestApp, storageDir: string, bus: InMemoryEventBus, rt: InMemoryRealtime, ownsStorage: boolean): Promise<ContactsTestApp> {
  const published: EventEnvelope[] = [];
  await bus.subscribe({ group: 'contacts-test', topics: [Topics.Contacts], handler: async (e) => void published.push(e) });
  const realtime: ContactsTestApp['realtime'] = [];
  await rt.subscribe('rt.>', (m) => realtime.push({ subject: m.subject, type: m.type, data: m.data as Record<string, unknown> }));
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  const call: ContactsTestApp['call'] = async (method, p, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${t.url}/api${p}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { status: res.status, body: body as never, text, headers: res.headers };
  };
  const upload: ContactsTestApp['upload'] = async (token, file, name, fields = {}) => {
    const fd = new FormData();
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    fd.append('file', new Blob([typeof file === 'string' ? Buffer.from(file, 'utf8') : file]), name);
    const res = await fetch(`${t.url}/api/import_lists`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: fd });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as never, text, headers: res.headers };
  };
  const waitFor = async (token: string, p: string, done: (b: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 1200; i++) {
      const r = await call(p.startsWith('/') ? 'GET' : 'GET', p, { token });
      if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.text}`);
      if (done(r.body)) return r.body;
      await sleep(50);
    }
    throw new Error(`${p} did not finish`);
  };
  const waitImport: ContactsTestApp['waitImport'] = (token, id) => waitFor(token, `/import_lists/${id}`, (b) => b.status === 'parsed' || b.status === 'error');
  const waitTask: ContactsTestApp['waitTask'] = (token, id) => waitFor(token, `/tasks/${id}`, (b) => b.status === 'done' || b.status === 'error');
  const importFile: ContactsTestApp['importFile'] = async (token, file, name, mapping, opts = {}) => {
    const up = await upload<{ id: number }>(token, file, name, opts.type ? { type: opts.type } : {});
    if (up.status !== 201) throw new Error(`upload: ${up.status} ${up.text}`);
    const start = await call('PUT', `/import_lists/${up.body.id}`, { token, body: { mapping, ignoreFirstLine: opts.ignoreFirstLine ?? true, start: true, ...(opts.defaultCountry ? { defaultCountry: opts.defaultCountry } : {}) } });
    if (start.status !== 200) throw new Error(`start: ${start.status} ${start.text}`);
    return waitImport(token, up.body.id);
  };
  return {
    t,
    storageDir,
    token: (account, perms = ALL_PERMISSIONS) => t.token({ sub: `user-${account}`, acc: account, perms: [...perms] }),
    call,
    upload,
    importFile,
    waitImport,
    waitTask,
    sql: async (text, params = []) => (await pg.query(text, params)).rows,
    events: async () => {
      // every event committed so far is published (by this flush or by the relay's own pass), then delivered
      for (let i = 0; i < 200; i++) {
        await t.app.get(ContactsOutboxRelay).relay.flush();
        const [{ n }] = (await pg.query(`SELECT count(*)::int AS n FROM contacts.outbox WHERE published_at IS NULL`)).rows;
        if (n === 0) break;
        await sleep(20);
      }
      await bus.drain();
      return published;
    },
    realtime,
    close: async () => {
      await pg.end();
      await t.close();
      if (ownsStorage) fs.rmSync(storageDir, { recursive: true, force: true });
    },
  };
}
