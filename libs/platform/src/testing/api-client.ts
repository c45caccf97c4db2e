import { Client } from 'pg';
import type { EventEnvelope } from '@switchboard/contracts';
import type { OutgoingEvent } from '../bus/event-bus';
import { InMemoryEventBus } from '../bus/in-memory-event-bus';
import type { TestApp } from './test-app';

/** An HTTP answer as tests read it: the status, the body parsed when it is JSON (else null), the text and headers. */
export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface CallOptions {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
}

export type ApiCall = <T = Record<string, unknown>>(method: string, path: string, opts?: CallOptions) => Promise<Answer<T>>;

/** Calls `<baseUrl>/api<path>` with a JSON body and a bearer token, as the console does. */
export function apiClient(baseUrl: string): ApiCall {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${baseUrl}/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { status: res.status, body: body as never, text, headers: res.headers };
  };
}

/** The parts every service's test support builds on a TestApp: HTTP calls, SQL on its database, publish-and-wait. */
export interface ServiceHarness {
  t: TestApp;
  bus: InMemoryEventBus;
  call: ApiCall;
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  /** Publishes the events and waits until every consumer handled them. */
  publish: (events: Array<OutgoingEvent<unknown> | EventEnvelope>) => Promise<void>;
  close: () => Promise<void>;
}

export async function serviceHarness(t: TestApp, bus: InMemoryEventBus): Promise<ServiceHarness> {
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  return {
    t,
    bus,
    call: apiClient(t.url),
    sql: async (text, params = []) => (await pg.query(text, params)).rows,
    publish: async (events) => {
      await bus.publish(events as Array<OutgoingEvent<unknown>>);
      await bus.drain();
    },
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
