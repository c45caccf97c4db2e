import { createSocket, type Socket } from 'node:dgram';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { ALL_PERMISSIONS, type EventDefinition } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { DeliveryService, ManualClock, WebhooksModule, type WebhooksModuleOptions } from '../src';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test answers are read field by field

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A customer's webhook receiver: records each request and answers what `answer` says (a status, or `hang` to never
 * answer, or a redirect).
 */
type Answer = { status: number; body?: string; headers?: Record<string, string> };

export class Receiver {
  readonly requests: Received[] = [];
  /** The answer to a request: at once, 'hang' (never), or later (a promise: the receiver answers when it settles). */
  answer: (r: Received) => Answer | 'hang' | Promise<Answer> = () => ({ status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } });
  private server!: Server;
  private readonly hanging = new Set<ServerResponse>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.requests.push(r);
        const a = this.answer(r);
        if (a === 'hang') {
          this.hanging.add(res);
          return;
        }
        void Promise.resolve(a).then((x) => {
          res.writeHead(x.status, x.headers ?? {});
          res.end(x.body ?? '');
        });
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/**
 * A DNS server on 127.0.0.1 (UDP) answering A queries from `answers`: each name's list of answer sets is used in
 * turn (the last one repeats), so a name can answer a public address first and 127.0.0.1 after (DNS rebinding).
 * AAAA queries get no records.
 */
export class FakeDns {
  readonly queries: Array<{ name: string; type: number }> = [];
  private socket!: Socket;
  private readonly turns = new Map<string, number>();
  port = 0;

  constructor(private readonly answers: Record<string, string[][]>) {}

  async start(): Promise<this> {
    this.socket = createSocket('udp4');
    this.socket.on('message', (msg, rinfo) => {
      let off = 12;
      const labels: string[] = [];
      while (msg[off] !== 0) {
        labels.push(msg.subarray(off + 1, off + 1 + msg[off]).toString('ascii'));
        off += msg[off] + 1;
      }
      off += 1;
      const type = msg.readUInt16BE(off);
      const question = msg.subarray(12, off + 4);
      const name = labels.join('.').toLowerCase();
      this.queries.push({ name, type });
      let records: string[] = [];
      if (type === 1 && this.answers[name]) {
        const sets = this.answers[name];
        const turn = this.turns.get(name) ?? 0;
        this.turns.set(name, turn + 1);
        records = sets[Math.min(turn, sets.length - 1)];
      }
      const header = Buffer.alloc(12);
      header.writeUInt16BE(msg.readUInt16BE(0), 0);
      header.writeUInt16BE(this.answers[name] ? 0x8180 : 0x8183, 2);
      header.writeUInt16BE(1, 4);
      header.writeUInt16BE(records.length, 6);
      const rrs = records.map((ip) => {
        const rr = Buffer.alloc(16);
        rr.writeUInt16BE(0xc00c, 0);
        rr.writeUInt16BE(1, 2);
        rr.writeUInt16BE(1, 4);
        rr.writeUInt32BE(0, 6);
        rr.writeUInt16BE(4, 10);
        ip.split('.').forEach((o, i) => rr.writeUInt8(Number(o), 12 + i));
        return rr;
      });
      this.socket.send(Buffer.concat([header, question, ...rrs]), rinfo.port, rinfo.address);
    });
    await new Promise<void>((r) => this.socket.bind(0, '127.0.0.1', r));
    this.port = this.socket.address().port;
    return this;
  }

  aQueries(name: string): number {
    return this.queries.filter((q) => q.name === name && q.type === 1).length;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => this.socket.close(() => r()));
  }
}

export interface WebhooksTestApp {
  t: TestApp;
  clock: ManualClock;
  deliveries: DeliveryService;
  call: <T = Json>(method: string, path: string, opts?: { body?: unknown; token?: string }) => Promise<{ status: number; body: T }>;
  member: (acc: string, perms?: readonly string[]) => string;
  /** An event from another service, handled (deliveries queued) before this resolves. */
  publish: <T>(def: EventDefinition<T>, data: T, id?: string) => Promise<OutgoingEvent<T>>;
  sql: <R = Json>(text: string, values?: unknown[]) => Promise<R[]>;
  close: () => Promise<void>;
}

export async function startWebhooks(options: Partial<WebhooksModuleOptions> = {}): Promise<WebhooksTestApp> {
  const clock = new ManualClock(Date.parse('2026-03-02T10:00:00Z'));
  const t = await createTestApp(() => ({
    imports: [WebhooksModule.register({ secret: 'test-secret-of-the-webhooks-module', clock, allowLoopback: true, allowedPorts: 'any', pollMs: 0, random: () => 0.5, timeoutMs: 2000, ...options })],
  }));
  const pg = new Client({ connectionString: t.db.url });
  await pg.connect();
  const call: WebhooksTestApp['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const res = await fetch(`${t.url}/api${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    t,
    clock,
    deliveries: t.app.get(DeliveryService),
    call,
    member: (acc, perms = ALL_PERMISSIONS) => t.token({ sub: `u${acc}`, acc, perms: [...perms] }),
    publish: async (def, data, id) => {
      const e = createEnvelope(def, data, { accountId: (data as { accountId?: string }).accountId ?? null, source: 'dispatch', id });
      await t.bus.publish([e]);
      if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
      return e;
    },
    sql: async <R = Json>(text: string, values: unknown[] = []) => (await pg.query(text, values)).rows as R[],
    close: async () => {
      await pg.end();
      await t.close();
    },
  };
}
