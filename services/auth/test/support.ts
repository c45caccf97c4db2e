import { Topics, type EventEnvelope } from '@switchboard/contracts';
import { InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import type { StoredMail } from '@switchboard/platform';
import { AuthBootstrapService, AuthModule, ManualClock, type AuthModuleOptions } from '../src';
import { AuthOutboxRelay } from '../src/services/auth-events.service';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface AuthTestApp {
  t: TestApp;
  clock: ManualClock;
  seed: AuthBootstrapService;
  call: <T = Record<string, unknown>>(method: string, path: string, opts?: { body?: unknown; token?: string; headers?: Record<string, string> }) => Promise<Answer<T>>;
  /** The PIN of the newest sign-in mail to `email`. */
  lastPin: (email: string) => string;
  /** login_check, then login/manual with the mailed PIN. */
  signIn: (email: string, password: string) => Promise<{ token: string; refresh_token: string }>;
  /** Auth events published so far (after the bus has delivered them). */
  events: () => Promise<EventEnvelope[]>;
  /** A query on the test database (a pooled connection of its own). */
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  /** An access token as auth would sign it for a user session (ROLE_USER), with chosen account and permissions. */
  tokenFor: (userId: string, accountId: string | null, perms?: readonly string[], extra?: { sa?: boolean; imp?: string | null; sid?: string }) => string;
  /** The newest mail to `email`. */
  mailTo: (email: string) => StoredMail;
  close: () => Promise<void>;
}

export interface StartAuthOptions {
  trustProxy?: string | false;
}

/** The auth module on a fresh database, captcha off, a movable clock, and the IP limit out of the way unless asked for. */
export async function startAuth(options: Partial<AuthModuleOptions> = {}, app: StartAuthOptions = {}): Promise<AuthTestApp> {
  const clock = new ManualClock(Date.now());
  const t = await createTestApp(({ keys }) => ({
    trustProxy: app.trustProxy,
    imports: [
      AuthModule.register({
        privateKey: keys.privateKey,
        captcha: 'none',
        clock,
        ...options,
        throttle: { perIp: { limit: 10_000 }, ...options.throttle },
      }),
    ],
  }));
  const published: EventEnvelope[] = [];
  await t.bus.subscribe({ group: 'auth-test', topics: [Topics.Auth], handler: async (e) => void published.push(e) });
  const call: AuthTestApp['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${t.url}/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  const lastPin = (email: string): string => {
    const mail = t.mailbox.list().find((m) => m.to === email);
    const pin = mail && /\b(\d{6})\b/.exec(mail.text)?.[1];
    if (!pin) throw new Error(`no PIN mail for ${email}`);
    return pin;
  };
  const pool = new Pool({ connectionString: t.db.url, max: 2 });
  return {
    t,
    clock,
    sql: async <T,>(text: string, params: unknown[] = []) => (await pool.query(text, params)).rows as T[],
    tokenFor: (userId, accountId, perms = [], extra = {}) =>
      t.token({ sub: userId, acc: accountId, perms: [...perms], roles: ['ROLE_USER'], sa: extra.sa ?? false, imp: extra.imp ?? null, sid: extra.sid ?? randomUUID() }),
    mailTo: (email) => {
      const mail = t.mailbox.list().find((m) => m.to === email);
      if (!mail) throw new Error(`no mail to ${email}`);
      return mail;
    },
    seed: t.app.get(AuthBootstrapService),
    call,
    lastPin,
    signIn: async (email, password) => {
      const check = await call('POST', '/login_check', { body: { username: email, password, gCaptchaToken: 'dev-placeholder' } });
      if (check.status !== 200) throw new Error(`login_check answered ${check.status}: ${JSON.stringify(check.body)}`);
      const login = await call<{ token: string; refresh_token: string }>('POST', '/login/manual', {
        body: { username: email, password, pin: lastPin(email), gCaptchaToken: 'dev-placeholder' },
      });
      if (login.status !== 200) throw new Error(`login/manual answered ${login.status}: ${JSON.stringify(login.body)}`);
      return login.body;
    },
    events: async () => {
      // the relay publishes asynchronously: flush what is committed, then let the bus deliver it
      const relay = t.app.get(AuthOutboxRelay).relay;
      const db = new Client({ connectionString: t.db.url });
      await db.connect();
      try {
        for (let i = 0; i < 100; i++) {
          await relay.flush();
          const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM auth.outbox WHERE published_at IS NULL');
          if (rows[0].n === 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        await db.end();
      }
      if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
      return published;
    },
    close: async () => {
      await pool.end();
      await t.close();
    },
  };
}

/** The claims of a JWT, unverified (the tests check what the server put in). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A PIN that is not `pin`. */
export const otherPin = (pin: string): string => String((Number(pin) + 1) % 1_000_000).padStart(6, '0');
