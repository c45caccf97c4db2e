import { randomUUID } from 'node:crypto';
import { ErrorCode } from '@switchboard/contracts';
import type { OutgoingEvent } from '@switchboard/platform';
import { startDispatch, type DispatchTestApp } from './support';

// Item 4(b) of issue 10: dead letters kept per service, listed and replayed through the super-admin API; tenant
// users are refused with the spec's denied code.

describe('dead letters API', () => {
  let d: DispatchTestApp;
  let fixed = false;
  const handled: string[] = [];
  const topic = 'switchboard.test.deadletters';

  beforeAll(async () => {
    d = await startDispatch();
    // A group of the dispatch service whose handler refuses an event until the operator "fixes" it.
    await d.t.bus.subscribe({
      group: 'dispatch.test-fragile',
      topics: [topic],
      maxRetries: 1,
      retryBackoffMs: 1,
      handler: async (e) => {
        if (!fixed) throw new Error(`validation failed: ${e.id} has no destination`);
        handled.push(e.id);
      },
    });
  });
  afterAll(async () => {
    await d.close();
  });

  const event = (): OutgoingEvent => ({
    id: randomUUID(),
    type: 'test.fragile',
    version: 1,
    occurredAt: new Date().toISOString(),
    source: 'test',
    accountId: '1',
    traceId: null,
    key: 'k',
    data: { n: 1 },
    topic,
  });

  it('keeps what a group gave up on, lists it for super admins only, and replays it once', async () => {
    const e = event();
    await d.publish([e]);
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.dead_letter WHERE event_id = $1`, [e.id])).length > 0);

    const member = await d.call('GET', '/dead_letters', { token: d.memberToken('1', ['ROLE_ADMIN']) });
    expect(member.status).toBe(403);
    expect(member.body).toMatchObject({ code: ErrorCode.NoPermissions });
    expect((await d.call('POST', '/dead_letters/dispatch-1/replay', { token: d.memberToken('1') })).status).toBe(403);
    expect((await d.call('GET', '/dead_letters')).status).toBe(401);

    const admin = d.adminToken();
    const list = await d.call<{ items: Array<Record<string, unknown>>; total: number }>('GET', '/dead_letters?service=dispatch&status=dead', { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    const [letter] = list.body.items;
    expect(letter).toMatchObject({ service: 'dispatch', kind: 'consume', group: 'dispatch.test-fragile', topic, eventId: e.id, status: 'dead', attempts: 2 });
    expect(String(letter.error)).toContain('has no destination');
    const detail = await d.call<{ payload: string }>('GET', `/dead_letters/${String(letter.id)}`, { token: admin });
    expect(JSON.parse(detail.body.payload)).toMatchObject({ id: e.id, data: { n: 1 } });

    fixed = true;
    const replay = await d.call('POST', `/dead_letters/${String(letter.id)}/replay`, { token: admin });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ status: 'replay_requested' });
    await d.until(async () => (await d.sql(`SELECT status FROM dispatch.dead_letter WHERE event_id = $1`, [e.id]))[0].status === 'replayed');
    expect(handled).toEqual([e.id]);
    const again = await d.call('POST', `/dead_letters/${String(letter.id)}/replay`, { token: admin });
    expect(again.status).toBe(409);
    expect(handled).toEqual([e.id]);
    fixed = false;
  });

  it('replays every dead letter of a group at once', async () => {
    const events = [event(), event(), event()];
    await d.publish(events);
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.dead_letter WHERE status = 'dead'`)).length === 3);
    fixed = true;
    const all = await d.call('POST', '/dead_letters/replay', { token: d.adminToken(), body: { service: 'dispatch', group: 'dispatch.test-fragile' } });
    expect(all).toMatchObject({ status: 202, body: { requested: 3 } });
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.dead_letter WHERE status = 'replayed'`)).length === 4);
    expect(handled.slice(1).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('refuses bad filters and unknown letters with the spec codes', async () => {
    const admin = d.adminToken();
    const bad = await d.call('GET', '/dead_letters?status=lost', { token: admin });
    expect(bad).toMatchObject({ status: 400, body: { code: ErrorCode.RequestValidation } });
    expect((await d.call('GET', '/dead_letters?service=nosuch', { token: admin })).status).toBe(400);
    expect((await d.call('GET', '/dead_letters/dispatch-999999', { token: admin })).status).toBe(404);
    expect((await d.call('POST', '/dead_letters/x;drop/replay', { token: admin })).status).toBe(404);
  });
});
