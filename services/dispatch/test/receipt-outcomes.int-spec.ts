import { randomUUID } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { DISPATCH_MIGRATIONS, MessageRepository } from '../src';
import type { AcceptedRow } from '../src/repositories/message.repository';

/**
 * docs/decisions/0214: `markSent` writes each part's provider_ref in its own statement, and a single-part message's
 * receipt no longer writes its part's outcome. A receipt's exactly-once then rests on the finalize's fence (the message
 * still open), also between two replicas applying receipts for one message at once.
 */
describe('dispatch provider refs and receipt outcomes (0214)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let ds2: DataSource;
  let repo: MessageRepository;
  let repo2: MessageRepository;
  let n = 0;
  const accepted = (): AcceptedRow & { attemptId: string | null } => {
    n++;
    return {
      eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: null, channel: 'sms', sender: 'Switchboard',
      destination: `4915300${String(100000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null,
      acceptedAt: new Date().toISOString(), traceparent: null, attemptId: randomUUID(),
    };
  };
  const refsOf = (ids: string[]) =>
    ds.query<Array<{ message_id: string; vendor_id: string; provider_message_id: string; part: number; parts: number; outcome: string | null; error: string | null }>>(
      `SELECT message_id::text, vendor_id::text, provider_message_id, part, parts, outcome, error FROM dispatch.provider_ref
        WHERE message_id = ANY($1::bigint[]) ORDER BY message_id, part`,
      [ids],
    );

  beforeAll(async () => {
    db = await createTestDatabase('drefs');
    ds = await openServiceDataSource({ name: 'dispatch-refs', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
    ds2 = await openServiceDataSource({ name: 'dispatch-refs-2', url: db.url, schema: 'dispatch', entities: [], migrations: [], migrationsRun: false });
    repo = new MessageRepository(ds);
    repo2 = new MessageRepository(ds2);
  });
  afterAll(async () => {
    await ds2?.destroy();
    await ds?.destroy();
    await db?.drop();
  });

  it('records every part of an accepted attempt with its provider id, and none of a stale attempt', async () => {
    const [one, three, stale] = await repo.insertAccepted(ds, [accepted(), accepted(), accepted()], randomUUID());
    const sent = await repo.markSent(ds, [
      { id: one.id, attemptId: one.attempt_id, vendorId: '4', providerIds: ['a-1'] },
      { id: three.id, attemptId: three.attempt_id, vendorId: '5', providerIds: ['b-1', 'b-2', 'b-3'] },
      { id: stale.id, attemptId: randomUUID(), vendorId: '4', providerIds: ['c-1'] },
    ]);
    expect(sent.map((r) => String(r.id)).sort()).toEqual([one.id, three.id].map(String).sort());
    expect(sent.find((r) => String(r.id) === String(three.id))).toMatchObject({ status: 'sent', parts: 3, provider_id: 'b-1' });
    expect(await refsOf([one.id, three.id, stale.id])).toEqual([
      { message_id: String(one.id), vendor_id: '4', provider_message_id: 'a-1', part: 1, parts: 1, outcome: null, error: null },
      { message_id: String(three.id), vendor_id: '5', provider_message_id: 'b-1', part: 1, parts: 3, outcome: null, error: null },
      { message_id: String(three.id), vendor_id: '5', provider_message_id: 'b-2', part: 2, parts: 3, outcome: null, error: null },
      { message_id: String(three.id), vendor_id: '5', provider_message_id: 'b-3', part: 3, parts: 3, outcome: null, error: null },
    ].sort((x, y) => Number(x.message_id) - Number(y.message_id) || x.part - y.part));
    // a second answer for the same attempt (a redelivered submit response) writes nothing more
    expect(await repo.markSent(ds, [{ id: one.id, attemptId: one.attempt_id, vendorId: '4', providerIds: ['a-2'] }])).toEqual([]);
    expect((await refsOf([one.id])).map((r) => r.provider_message_id)).toEqual(['a-1']);
    // the stale attempt's message is still submitting, with no wait row
    expect(await ds.query(`SELECT send_state FROM dispatch.message WHERE id = $1`, [stale.id])).toEqual([{ send_state: 'submitting' }]);
    expect(await ds.query(`SELECT 1 FROM dispatch.message_awaiting WHERE message_id = $1`, [stale.id])).toEqual([]);
  });

  it('records the part of a message sent and answered in one batch with its outcome, only if its attempt was current', async () => {
    const [a, b] = await repo.insertAccepted(ds, [accepted(), accepted()], randomUUID());
    const item = (c: typeof a, attemptId: string, status: 'delivered' | 'undelivered') => ({
      id: c.id, attemptId, vendorId: '4', providerId: `f-${c.id}`, status, outgoing: status, error: status === 'delivered' ? null : 'UNDELIV', deliveredAt: null,
    });
    const rows = await repo.markSentFinal(ds, [item(a, a.attempt_id, 'undelivered'), item(b, randomUUID(), 'delivered')]);
    expect(rows.map((r) => String(r.id))).toEqual([String(a.id)]);
    expect(await refsOf([a.id, b.id])).toEqual([
      { message_id: String(a.id), vendor_id: '4', provider_message_id: `f-${a.id}`, part: 1, parts: 1, outcome: 'undelivered', error: 'UNDELIV' },
    ]);
  });

  it('two replicas applying receipts for one single-part message at once finalize it once', async () => {
    const [c] = await repo.insertAccepted(ds, [accepted()], randomUUID());
    await repo.markSent(ds, [{ id: c.id, attemptId: c.attempt_id, vendorId: '6', providerIds: ['race-1'] }]);
    const key = { vendorId: '6', pid: 'race-1', destination: null };
    const q1: QueryRunner = ds.createQueryRunner();
    const q2: QueryRunner = ds2.createQueryRunner();
    await q1.connect();
    await q2.connect();
    try {
      await q1.startTransaction();
      await q2.startTransaction();
      // both match the part as still open (its outcome is never written: the message's status decides)
      const [m1] = await repo.matchRefs(q1.manager, [key], 60_000);
      const [m2] = await repo2.matchRefs(q2.manager, [key], 60_000);
      expect([m1.open, m2.open, m1.parts, m1.outcome]).toEqual([true, true, 1, null]);
      const first = await repo.finalizeFromReceipts(q1.manager, [{ id: c.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() }]);
      expect(first).toHaveLength(1);
      // the second waits for the first's row lock, then finds the message final
      const second = repo2.finalizeFromReceipts(q2.manager, [{ id: c.id, status: 'undelivered', outgoing: 'undelivered', error: 'UNDELIV', deliveredAt: null }]);
      await new Promise((r) => setTimeout(r, 200));
      await q1.commitTransaction();
      expect(await second).toEqual([]);
      await q2.commitTransaction();
    } finally {
      await q1.release();
      await q2.release();
    }
    expect(await ds.query(`SELECT status, error, send_state FROM dispatch.message WHERE id = $1`, [c.id])).toEqual([{ status: 'delivered', error: null, send_state: 'done' }]);
    // a receipt after it matches only a closed part, and no part is left for query_sm
    const [late] = await repo.matchRefs(ds, [{ vendorId: '6', pid: 'race-1', destination: null }], 60_000);
    expect(late).toMatchObject({ open: false, outcome: null });
    expect(await ds.query(`SELECT 1 FROM dispatch.message_awaiting WHERE message_id = $1`, [c.id])).toEqual([]);
  });

  it('a reused id matches the message still waiting, not the single-part one it finalized before', async () => {
    const [older, newer] = await repo.insertAccepted(ds, [accepted(), accepted()], randomUUID());
    await repo.markSent(ds, [{ id: older.id, attemptId: older.attempt_id, vendorId: '8', providerIds: ['reuse-1'] }]);
    await repo.finalizeFromReceipts(ds, [{ id: older.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() }]);
    // the older use is final although its part's outcome is null; the newer use, sent earlier on the clock, still waits
    await ds.query(`UPDATE dispatch.provider_ref SET sent_at = now() + interval '1 second' WHERE message_id = $1`, [older.id]);
    await repo.markSent(ds, [{ id: newer.id, attemptId: newer.attempt_id, vendorId: '8', providerIds: ['reuse-1'] }]);
    const [m] = await repo.matchRefs(ds, [{ vendorId: '8', pid: 'reuse-1', destination: null }], 60_000);
    expect(m).toMatchObject({ message_id: String(newer.id), open: true });
  });
});
