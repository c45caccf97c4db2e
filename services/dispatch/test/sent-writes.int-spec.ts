import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { DISPATCH_MIGRATIONS, MessageRepository } from '../src';
import type { AcceptedRow } from '../src/repositories/message.repository';

/**
 * docs/decisions/0221: `markSent` writes its receipt-wait row and refs, and `markSentFinal` its ref, as plain inserts
 * guarded by a probe, not as `ON CONFLICT` upserts (a speculative insertion: a lock token and a confirm record a row).
 * A batch that names a message or a ref twice, or a row already stored, must still write each row once and never fail
 * (a failed write batch is retried as it is, so one bad row would hold up every result behind it); on tables never
 * analysed the guards must probe by index, never scan every ref or wait row.
 */
describe('dispatch sent writes without upserts (0221)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: MessageRepository;
  let n = 0;
  const accepted = (): AcceptedRow & { attemptId: string | null } => {
    n++;
    return {
      eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: '11', channel: 'sms', sender: 'Switchboard',
      destination: `4915400${String(100000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null,
      acceptedAt: new Date().toISOString(), traceparent: null, attemptId: randomUUID(),
    };
  };
  const refsOf = (ids: string[]) =>
    ds.query<Array<{ message_id: string; vendor_id: string; provider_message_id: string; part: number; parts: number; outcome: string | null }>>(
      `SELECT message_id::text, vendor_id::text, provider_message_id, part, parts, outcome FROM dispatch.provider_ref
        WHERE message_id = ANY($1::bigint[]) ORDER BY message_id, part, provider_message_id`,
      [ids],
    );
  const waitsOf = (ids: string[]) =>
    ds.query<Array<{ message_id: string; vendor_id: string }>>(
      `SELECT message_id::text, vendor_id::text FROM dispatch.message_awaiting WHERE message_id = ANY($1::bigint[]) ORDER BY message_id`,
      [ids],
    );
  /** A connection whose statements matching `pattern` are also run under EXPLAIN ANALYZE (rolled back) first. */
  const explaining = (pattern: RegExp, plans: string[]) =>
    ({
      query: async (sql: string, params?: unknown[]) => {
        if (pattern.test(sql)) {
          await ds.query('BEGIN');
          try {
            const rows = await ds.query<Array<{ 'QUERY PLAN': string }>>(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params);
            plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
          } finally {
            await ds.query('ROLLBACK');
          }
        }
        return ds.query(sql, params);
      },
    }) as unknown as DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('dsentw');
    ds = await openServiceDataSource({ name: 'dispatch-sent-writes', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
    repo = new MessageRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('writes each ref and wait row once when a batch names a message twice, also with a stale attempt reusing the id', async () => {
    const [a, b, c] = await repo.insertAccepted(ds, [accepted(), accepted(), accepted()], randomUUID());
    const sent = await repo.markSent(ds, [
      // a submit response reported twice
      { id: a.id, attemptId: a.attempt_id, vendorId: '4', providerIds: ['dup-1'] },
      { id: a.id, attemptId: a.attempt_id, vendorId: '4', providerIds: ['dup-1'] },
      // a stale attempt's answer and the current one's, given the same id by the carrier (ids are reused)
      { id: b.id, attemptId: randomUUID(), vendorId: '4', providerIds: ['same-1'] },
      { id: b.id, attemptId: b.attempt_id, vendorId: '4', providerIds: ['same-1'] },
      // a two-part message whose parts were given one id
      { id: c.id, attemptId: c.attempt_id, vendorId: '5', providerIds: ['twice-1', 'twice-1'] },
    ]);
    expect(sent.map((r) => String(r.id)).sort()).toEqual([a.id, b.id, c.id].map(String).sort());
    expect(await refsOf([a.id, b.id, c.id])).toEqual(
      [
        { message_id: String(a.id), vendor_id: '4', provider_message_id: 'dup-1', part: 1, parts: 1, outcome: null },
        { message_id: String(b.id), vendor_id: '4', provider_message_id: 'same-1', part: 1, parts: 1, outcome: null },
        { message_id: String(c.id), vendor_id: '5', provider_message_id: 'twice-1', part: 1, parts: 2, outcome: null },
        { message_id: String(c.id), vendor_id: '5', provider_message_id: 'twice-1', part: 2, parts: 2, outcome: null },
      ].sort((x, y) => Number(x.message_id) - Number(y.message_id) || x.part - y.part),
    );
    expect(await waitsOf([a.id, b.id, c.id])).toEqual([a, b, c].map((m) => ({ message_id: String(m.id), vendor_id: m === c ? '5' : '4' })).sort((x, y) => Number(x.message_id) - Number(y.message_id)));
    expect(await ds.query(`SELECT count(*)::int AS n FROM dispatch.message WHERE id = ANY($1::bigint[]) AND status = 'sent' AND send_state = 'submitted'`, [[a.id, b.id, c.id]])).toEqual([{ n: 3 }]);

    // markSentFinal: an item twice writes its ref once, with the outcome
    const [d] = await repo.insertAccepted(ds, [accepted()], randomUUID());
    const item = { id: d.id, attemptId: d.attempt_id, vendorId: '4', providerId: 'fin-1', status: 'delivered' as const, outgoing: 'delivered', error: null, deliveredAt: new Date() };
    expect((await repo.markSentFinal(ds, [item, item])).map((r) => String(r.id))).toEqual([String(d.id)]);
    expect(await refsOf([d.id])).toEqual([{ message_id: String(d.id), vendor_id: '4', provider_message_id: 'fin-1', part: 1, parts: 1, outcome: 'delivered' }]);
  });

  it('keeps a wait row or ref already stored for the message instead of failing the batch', async () => {
    const [a, b] = await repo.insertAccepted(ds, [accepted(), accepted()], randomUUID());
    // rows no release writes for a message still submitting, put there by hand: the inserts must not trip on them
    await ds.query(`INSERT INTO dispatch.message_awaiting (message_id, vendor_id, sent_at) VALUES ($1, 9, now() - interval '1 minute')`, [a.id]);
    await ds.query(`INSERT INTO dispatch.provider_ref (vendor_id, provider_message_id, message_id, part, parts) VALUES (4, 'kept-1', $1, 1, 1)`, [b.id]);
    const sent = await repo.markSent(ds, [
      { id: a.id, attemptId: a.attempt_id, vendorId: '4', providerIds: ['new-a'] },
      { id: b.id, attemptId: b.attempt_id, vendorId: '4', providerIds: ['kept-1'] },
    ]);
    expect(sent.map((r) => String(r.id)).sort()).toEqual([a.id, b.id].map(String).sort());
    expect(await waitsOf([a.id, b.id])).toEqual(
      [
        { message_id: String(a.id), vendor_id: '9' },
        { message_id: String(b.id), vendor_id: '4' },
      ].sort((x, y) => Number(x.message_id) - Number(y.message_id)),
    );
    expect((await refsOf([a.id, b.id])).map((r) => [r.message_id, r.provider_message_id])).toEqual(
      [
        [String(a.id), 'new-a'],
        [String(b.id), 'kept-1'],
      ].sort((x, y) => Number(x[0]) - Number(y[0])),
    );
  });

  it('probes the stored refs and wait rows by index on tables never analysed, with no speculative insertion', async () => {
    const many = await repo.insertAccepted(ds, Array.from({ length: 3000 }, accepted), randomUUID());
    await repo.markSent(ds, many.slice(0, 2950).map((m) => ({ id: m.id, attemptId: m.attempt_id, vendorId: '2', providerIds: [`m-${m.id}`] })));
    const plans: string[] = [];
    const rest = many.slice(2950);
    await repo.markSent(
      explaining(/^\s*WITH upd AS \(\s*UPDATE dispatch\.message m\s+SET status = CASE/, plans),
      rest.slice(0, 40).map((m) => ({ id: m.id, attemptId: m.attempt_id, vendorId: '2', providerIds: [`m-${m.id}`] })),
    );
    await repo.markSentFinal(
      explaining(/^\s*WITH upd AS \(\s*UPDATE dispatch\.message m\s+SET status = t\.status, outgoing_status = t\.outgoing, send_state = 'done'/, plans),
      rest.slice(40).map((m) => ({ id: m.id, attemptId: m.attempt_id, vendorId: '2', providerId: `m-${m.id}`, status: 'delivered' as const, outgoing: 'delivered', error: null, deliveredAt: null })),
    );
    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      expect(plan).not.toMatch(/Conflict Resolution/);
      expect(plan).not.toMatch(/Seq Scan on (provider_ref|message_awaiting|message)\b/);
    }
    // one probe per ref (40 sent, 10 sent and final) and per wait row (40), nothing near the 2,950 stored
    expect(plans[0]).toMatch(/Index (Only )?Scan using message_awaiting_pkey on message_awaiting w \(actual time=[\d.]+\.\.[\d.]+ rows=[\d.]+ loops=40\)/);
    expect(plans[0]).toMatch(/Index (Only )?Scan using provider_ref_\w+ on provider_ref r \(actual time=[\d.]+\.\.[\d.]+ rows=[\d.]+ loops=40\)/);
    expect(plans[1]).toMatch(/Index (Only )?Scan using provider_ref_\w+ on provider_ref r \(actual time=[\d.]+\.\.[\d.]+ rows=[\d.]+ loops=10\)/);
    // and the rows are written once each
    expect((await refsOf(rest.map((m) => m.id))).map((r) => r.outcome)).toEqual([...Array(40).fill(null), ...Array(10).fill('delivered')]);
    expect(await waitsOf(rest.map((m) => m.id))).toHaveLength(40);
  });
});
