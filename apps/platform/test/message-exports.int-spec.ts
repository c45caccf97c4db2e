import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import {
  ALL_PERMISSIONS,
  CustomerCreatedV1,
  MessageAcceptedV1,
  MessageReceivedV1,
  MessageStatusChangedV1,
  Permission,
  StreamCreatedV1,
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { ContactsModule } from '@switchboard/contacts';
import { StatsModule } from '@switchboard/stats';

const ACCOUNT = '61';
const OTHER = '62';

/** RFC 4180 lines and quoted cells, as a spreadsheet reads them (the test's own reader). */
function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      out.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell || row.length) out.push([...row, cell]);
  return out;
}

interface Task {
  id: number;
  status: string;
  progress: number;
  total: number;
  processed: number;
  fileName: string | null;
  filePath: string | null;
}

/**
 * The message exports of spec 2 with contacts and stats booted together as the embedded server runs them: contacts
 * records the task and asks stats, stats writes the CSV from its read models (filters, the account's zone, formula cells
 * neutralised) and reports progress back, contacts' task shows it, and the download reaches the file; permissions,
 * isolation and "task is not ready yet".
 */
describe('message exports (contacts task list, stats file)', () => {
  let t: TestApp;
  let pg: Client;
  let token = '';
  let exportDir = '';

  const call = async <T,>(method: string, p: string, body?: unknown, as = token): Promise<{ status: number; body: T; text: string; headers: Headers }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${as}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    // the BOM kept (res.text() would drop it)
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  };
  const publish = async (events: Array<ReturnType<typeof createEnvelope>>) => {
    await t.bus.publish(events);
    await (t.bus as InMemoryEventBus).drain();
  };
  const finished = async (id: number): Promise<Task> => {
    for (let i = 0; i < 200; i++) {
      const r = await call<Task>('GET', `/tasks/${id}`);
      if (r.body.status === 'done' || r.body.status === 'error') return r.body;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error(`task ${id} did not finish`);
  };
  const exportOf = async (type: string, params: Record<string, unknown>): Promise<{ task: Task; rows: string[][]; raw: string }> => {
    const created = await call<Task>('POST', '/tasks', { type, params });
    expect(created.status).toBe(201);
    const task = await finished(created.body.id);
    const file = await call<never>('GET', `/task/download?id=${task.id}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('text/csv');
    return { task, rows: parseCsv(file.text.replace(/^\uFEFF/, '')), raw: file.text };
  };

  const msg = (stream: string, acceptedAt: string, destination: string, sender = 'Acme') => ({ uuid: randomUUID(), stream, acceptedAt, destination, sender });
  // a +05:30 account: 2026-03-10 local is 2026-03-09T18:30Z .. 2026-03-10T18:30Z
  const m1 = msg('7', '2026-03-09T18:29:00Z', '+447700900001'); // 03-09 23:59 local
  const m2 = msg('7', '2026-03-09T18:30:00Z', '+447700900002', '@SUM(1+1)'); // 03-10 00:00 local
  const m3 = msg('8', '2026-03-10T12:00:00Z', '+447700900003');
  const m4 = msg('7', '2026-03-10T18:29:59Z', '+447700900004'); // 03-10 23:59:59 local

  let storageDir = '';
  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-exports-contacts-'));
    exportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-exports-stats-'));
    t = await createTestApp(() => ({
      imports: [StatsModule.register({ cacheMs: 0, exportDir, exportPollMs: 50 }), ContactsModule.register({ storageDir, pollIntervalMs: 50, workers: 1 })],
      bus: new InMemoryEventBus(),
    }));
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    token = t.token({ sub: 'owner', acc: ACCOUNT, perms: [...ALL_PERMISSIONS] });
    const now = new Date().toISOString();
    await publish([
      createEnvelope(CustomerCreatedV1, { accountId: ACCOUNT, name: 'Exports', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings: { timezone: 'Asia/Kolkata' }, genSettings: {}, createdAt: now }, { accountId: ACCOUNT, source: 'accounts' }),
      ...[
        ['7', '=HYPERLINK("http://evil.example","x")'],
        ['8', 'Orders'],
      ].map(([streamId, name]) =>
        createEnvelope(StreamCreatedV1, { streamId, accountId: ACCOUNT, streamUid: randomUUID(), name, streamType: 2, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: now }, { accountId: ACCOUNT, source: 'streams' }),
      ),
    ]);
    await publish(
      [m1, m2, m3, m4].map((m) =>
        createEnvelope(
          MessageAcceptedV1,
          { messageUuid: m.uuid, accountId: ACCOUNT, streamId: m.stream, streamUid: randomUUID(), streamType: 2, channel: 'sms', sender: m.sender, destination: m.destination, iso2: 'GB', text: 'hi', encoding: 'GSM7', segments: 2, priceMicros: 125_000, currency: 'EUR', payload: null, campaignId: null, notBefore: null, acceptedAt: m.acceptedAt },
          { accountId: ACCOUNT, source: 'streams' },
        ),
      ),
    );
    await publish(
      [m1, m2, m4].map((m) =>
        createEnvelope(
          MessageStatusChangedV1,
          { messageUuid: m.uuid, accountId: ACCOUNT, streamId: m.stream, streamUid: randomUUID(), campaignId: null, sender: m.sender, destination: m.destination, status: 'delivered', outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: m.acceptedAt },
          { accountId: ACCOUNT, source: 'dispatch' },
        ),
      ),
    );
    await publish([
      createEnvelope(
        MessageReceivedV1,
        { messageUuid: randomUUID(), accountId: ACCOUNT, streamId: '7', streamUid: randomUUID(), streamType: 4, channel: 'sms', accountPhone: '+447700900999', contactPhone: '+447700900001', contactName: null, messageType: 'text', body: "=cmd|' /C calc'!A0", media: null, receivedAt: '2026-03-10T09:00:00Z' },
        { accountId: ACCOUNT, source: 'dispatch' },
      ),
    ]);
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await t?.close();
    if (storageDir) fs.rmSync(storageDir, { recursive: true, force: true });
    if (exportDir) fs.rmSync(exportDir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  it('exports the messages of a local date range with a status filter, in order, formula cells neutralised, reporting progress to the task', async () => {
    const { task, rows, raw } = await exportOf('export_messages', { start: '2026-03-10', end: '2026-03-10', status: ['delivered'] });
    expect(task).toMatchObject({ status: 'done', progress: 100, total: 2, processed: 2 });
    expect(task.fileName).toMatch(/^export-messages-\d+-\d{14}\.csv$/);
    expect(raw.startsWith('\uFEFF')).toBe(true);
    expect(rows[0]).toEqual(['messageUuid', 'acceptedAt', 'streamId', 'stream', 'sender', 'destination', 'country', 'status', 'parts', 'cost', 'currency', 'campaignId', 'campaign']);
    // 00:00:00 and 23:59:59 of the local day are in, the minute before is not; m3 is not delivered
    expect(rows.slice(1).map((r) => [r[0], r[1], r[5], r[7], r[8], r[9]])).toEqual([
      [m2.uuid, '2026-03-10 00:00:00', '+447700900002', 'delivered', '2', '0.125'],
      [m4.uuid, '2026-03-10 23:59:59', '+447700900004', 'delivered', '2', '0.125'],
    ]);
    // the stream name and the sender would run as formulas: an apostrophe first, the stream name quoted
    expect(raw).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(rows.slice(1).map((r) => [r[3], r[4]])).toEqual([
      [`'=HYPERLINK("http://evil.example","x")`, "'@SUM(1+1)"],
      [`'=HYPERLINK("http://evil.example","x")`, 'Acme'],
    ]);
  }, 30_000);

  it('exports one stream, and the incoming messages', async () => {
    const stream = await exportOf('export_stream_messages', { streamId: 8 });
    expect(stream.rows.slice(1).map((r) => r[0])).toEqual([m3.uuid]);
    const incoming = await exportOf('export_incoming_messages', {});
    expect(incoming.rows[0]).toEqual(['messageUuid', 'receivedAt', 'streamId', 'stream', 'channel', 'contactPhone', 'contactName', 'accountPhone', 'messageType', 'text']);
    expect(incoming.rows).toHaveLength(2);
    expect(incoming.rows[1][9]).toBe("'=cmd|' /C calc'!A0");
    expect(incoming.rows[1][1]).toBe('2026-03-10 14:30:00');
  }, 30_000);

  it('refuses bad parameters and callers without MESSAGE_EXPORT, keeps accounts apart, and says "task is not ready yet"', async () => {
    expect((await call('POST', '/tasks', { type: 'export_stream_messages', params: {} })).status).toBe(400);
    expect((await call('POST', '/tasks', { type: 'export_messages', params: { status: ['lost'] } })).status).toBe(400);
    expect((await call('POST', '/tasks', { type: 'export_messages', params: { start: 'yesterday' } })).status).toBe(400);
    expect((await call('POST', '/tasks', { type: 'export_incoming_messages', params: { status: ['delivered'] } })).status).toBe(400);
    const noExport = t.token({ sub: 'viewer', acc: ACCOUNT, perms: [Permission.MessageView, Permission.ContactListSegmentExport] });
    expect((await call('POST', '/tasks', { type: 'export_messages', params: {} }, noExport)).status).toBe(403);
    const done = (await call<{ items: Task[] }>('GET', '/tasks?type=export_messages')).body.items[0];
    expect((await call('GET', `/message_exports/download?id=${done.id}`, undefined, noExport)).status).toBe(403);
    expect((await call('GET', `/task/download?id=${done.id}`, undefined, noExport)).status).toBe(403);
    const other = t.token({ sub: 'other', acc: OTHER, perms: [...ALL_PERMISSIONS] });
    expect((await call('GET', `/message_exports/download?id=${done.id}`, undefined, other)).status).toBe(404);
    expect((await call('GET', `/task/download?id=${done.id}`, undefined, other)).status).toBe(404);
    // a task not finished yet, on both sides
    const [{ id }] = (await pg.query<{ id: string }>(`INSERT INTO contacts.task (account_id, type, status, file_type, params) VALUES ($1, 'export_messages', 'running', 'CSV', '{}') RETURNING id::text`, [ACCOUNT])).rows;
    await pg.query(`INSERT INTO stats.export (task_id, account_id, type, params, status, lease_owner, lease_until) VALUES ($2, $1, 'export_messages', '{}', 'running', 'elsewhere', now() + interval '1 hour')`, [ACCOUNT, id]);
    for (const p of [`/task/download?id=${id}`, `/message_exports/download?id=${id}`]) {
      const r = await call<{ message: string }>('GET', p);
      expect([p, r.status, r.body.message]).toEqual([p, 409, 'task is not ready yet']);
    }
  }, 30_000);

  const fileOf = (taskId: number) => path.join(exportDir, ACCOUNT, `${taskId}.csv`);
  const finishedEvents = async (taskId: number) =>
    Number((await pg.query<{ n: string }>(`SELECT count(*)::text AS n FROM stats.outbox WHERE type = 'stats.export.finished' AND payload->'data'->>'taskId' = $1`, [String(taskId)])).rows[0].n);

  it('deletes the file with its task: a finished export, and one deleted while it is still writing', async () => {
    // finished, then deleted: the file goes, and the download with it
    const { task } = await exportOf('export_messages', {});
    expect(fs.existsSync(fileOf(task.id))).toBe(true);
    expect((await call('DELETE', `/tasks/${task.id}`)).status).toBe(204);
    // the deletion reaches stats through contacts' outbox
    for (let i = 0; i < 400 && fs.existsSync(fileOf(task.id)); i++) await new Promise((r) => setTimeout(r, 25));
    expect(fs.existsSync(fileOf(task.id))).toBe(false);
    expect((await call('GET', `/message_exports/download?id=${task.id}`)).status).toBe(404);

    // deleted while it writes: its COPY is held by a lock on a table it joins (the count before it is not), so the
    // task is running with its file open when the deletion arrives
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE stats.campaign IN ACCESS EXCLUSIVE MODE');
      const created = await call<Task>('POST', '/tasks', { type: 'export_messages', params: {} });
      expect(created.status).toBe(201);
      const id = created.body.id;
      for (let i = 0; i < 200 && !fs.existsSync(fileOf(id)); i++) await new Promise((r) => setTimeout(r, 25));
      expect(fs.existsSync(fileOf(id))).toBe(true);
      expect((await pg.query(`SELECT status FROM stats.export WHERE task_id = $1`, [id])).rows[0]).toEqual({ status: 'running' });
      expect((await call('DELETE', `/tasks/${id}`)).status).toBe(204);
      for (let i = 0; i < 400 && (await pg.query(`SELECT 1 FROM stats.export WHERE task_id = $1 AND status = 'deleted'`, [id])).rowCount === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await locker.query('COMMIT');
      // one export at a time per process: once the next one is done, the deleted one has stopped
      const next = await exportOf('export_stream_messages', { streamId: 8 });
      expect(next.rows.slice(1).map((r) => r[0])).toEqual([m3.uuid]);
      // it recorded nothing: no file, no "finished" for a task that no longer exists, the export kept as deleted
      expect((await pg.query(`SELECT status, lease_owner FROM stats.export WHERE task_id = $1`, [id])).rows[0]).toEqual({ status: 'deleted', lease_owner: null });
      expect(await finishedEvents(id)).toBe(0);
      expect(fs.readdirSync(path.join(exportDir, ACCOUNT)).filter((f) => f === `${id}.csv`)).toEqual([]);
      expect((await call('GET', `/tasks/${id}`)).status).toBe(404);
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  }, 60_000);
});
