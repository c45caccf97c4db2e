import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { DISPATCH_MIGRATIONS, MessageRepository } from '../src';
import type { AcceptedRow, ClaimedRow } from '../src/repositories/message.repository';
import { StuckMessageSweeper } from '../src/services/stuck-sweeper.service';

/**
 * dispatch.message's status updates are heap-only (docs/decisions/0206): the in-flight state is read through
 * `dispatch.message_claim` (one row per message `submitting`) and the generated `wait_state` / `awaiting_since`, not
 * through indexes on `send_state`. These tests hold the readers to what they did: every message claimed, whichever
 * statement claimed it, is found by the crash recovery and the stuck sweep, once, also with two replicas at once.
 */
describe('dispatch message claims', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let ds2: DataSource;
  let repo: MessageRepository;
  let repo2: MessageRepository;
  let n = 0;

  const accepted = (o: Partial<AcceptedRow> & { attemptId: string | null }): AcceptedRow & { attemptId: string | null } => {
    n++;
    return {
      eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: null, channel: 'sms', sender: 'Switchboard',
      destination: `4915100${String(100000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null,
      acceptedAt: new Date().toISOString(), traceparent: null, ...o,
    };
  };
  const final = (c: ClaimedRow) => ({ id: c.id, attemptId: c.attempt_id, vendorId: '1', providerId: `p-${c.id}`, status: 'delivered' as const, outgoing: 'delivered', error: null, deliveredAt: new Date() });

  /** The invariant the readers rely on: each message `submitting` has its claim row, naming its claimer; no other row has one. */
  async function claimsAreExact(): Promise<void> {
    const missing = await ds.query(
      `SELECT m.id FROM dispatch.message m LEFT JOIN dispatch.message_claim c ON c.message_id = m.id
        WHERE m.send_state = 'submitting' AND (c.message_id IS NULL OR c.claimed_by IS DISTINCT FROM m.claimed_by)`,
    );
    expect(missing).toEqual([]);
    const extra = await ds.query(`SELECT c.message_id FROM dispatch.message_claim c JOIN dispatch.message m ON m.id = c.message_id WHERE m.send_state <> 'submitting'`);
    expect(extra).toEqual([]);
  }

  /** And the receipt wait's (0212): each message `submitted` has its row (its vendor, its sent time); no other has one. */
  async function awaitingIsExact(): Promise<void> {
    const missing = await ds.query(
      `SELECT m.id FROM dispatch.message m LEFT JOIN dispatch.message_awaiting w ON w.message_id = m.id
        WHERE m.send_state = 'submitted' AND (w.message_id IS NULL OR w.vendor_id IS DISTINCT FROM m.vendor_id OR date_trunc('milliseconds', m.sent_at) <> w.sent_at)`,
    );
    expect(missing).toEqual([]);
    const extra = await ds.query(`SELECT w.message_id FROM dispatch.message_awaiting w JOIN dispatch.message m ON m.id = w.message_id WHERE m.send_state <> 'submitted'`);
    expect(extra).toEqual([]);
  }

  beforeAll(async () => {
    db = await createTestDatabase('dclaims');
    ds = await openServiceDataSource({ name: 'dispatch-claims', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
    ds2 = await openServiceDataSource({ name: 'dispatch-claims-2', url: db.url, schema: 'dispatch', entities: [], migrations: [], migrationsRun: false });
    repo = new MessageRepository(ds);
    repo2 = new MessageRepository(ds2);
  });
  afterAll(async () => {
    await ds2?.destroy();
    await ds?.destroy();
    await db?.drop();
  });
  beforeEach(async () => {
    await ds.query(`TRUNCATE dispatch.message, dispatch.message_claim, dispatch.message_awaiting, dispatch.instance`);
  });

  it('keeps exactly one claim row per message submitting, whichever statement claimed or moved it on', async () => {
    const a = randomUUID();
    const b = randomUUID();
    const direct = await repo.insertAccepted(ds, Array.from({ length: 6 }, () => accepted({ attemptId: randomUUID() })), a);
    await repo.insertAccepted(ds, Array.from({ length: 3 }, () => accepted({ attemptId: null })), a);
    expect(direct).toHaveLength(6);
    await claimsAreExact();
    const fromQueue = await repo.claim(b, 10);
    expect(fromQueue).toHaveLength(3);
    await claimsAreExact();
    const [d0, d1, d2, d3, d4] = direct;
    await repo.markSentFinal(ds, [final(d0)]);
    await repo.markSent(ds, [{ id: d1.id, attemptId: d1.attempt_id, vendorId: '1', providerIds: ['p-d1'] }]);
    await repo.finalizeClaimed(ds, [{ id: d2.id, attemptId: d2.attempt_id, status: 'rejected', error: 'no', vendorId: '1' }]);
    await repo.defer(ds, [{ id: d3.id, attemptId: d3.attempt_id, afterMs: 60_000, error: null, countAttempt: false }]);
    // a stale attempt moves nothing and keeps the claim of the attempt that holds the message
    await repo.markSentFinal(ds, [{ ...final(d4), attemptId: randomUUID() }]);
    await claimsAreExact();
    await awaitingIsExact();
    expect((await ds.query(`SELECT message_id::text AS id, vendor_id::text AS v FROM dispatch.message_awaiting`))).toEqual([{ id: String(d1.id), v: '1' }]);
    // a receipt finalizing a message still submitting (a late receipt of an earlier attempt) takes its claim too
    await repo.finalizeFromReceipts(ds, [{ id: d4.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() }, { id: d1.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() }]);
    await claimsAreExact();
    await awaitingIsExact();
    const states = await ds.query<Array<{ id: string; send_state: string; queue_state: string | null }>>(
      `SELECT id::text AS id, send_state, queue_state FROM dispatch.message WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [[d0.id, d1.id, d2.id, d3.id, d4.id]],
    );
    expect(states.map((s) => [s.send_state, s.queue_state])).toEqual([['done', null], ['done', null], ['done', null], ['queued', 'queued'], ['done', null]]);
    expect(await ds.query(`SELECT count(*)::int AS n FROM dispatch.message_awaiting`)).toEqual([{ n: 0 }]);
    const [{ left }] = await ds.query<Array<{ left: number }>>(`SELECT count(*)::int AS left FROM dispatch.message_claim`);
    expect(left).toBe(4); // d5 and the three claimed from the queue
  });

  it('hands back every claim of a dispatcher that stopped between its claim and its outcome, once, flagged; leaves a live one its own', async () => {
    const dead = randomUUID();
    const live = randomUUID();
    const gone = randomUUID(); // never heartbeated (its instance row is gone)
    await repo.heartbeat(dead, 1000);
    await repo.heartbeat(live, 1000);
    const deadDirect = await repo.insertAccepted(ds, Array.from({ length: 4 }, () => accepted({ attemptId: randomUUID() })), dead);
    await repo.insertAccepted(ds, Array.from({ length: 3 }, () => accepted({ attemptId: null })), dead);
    const deadQueued = await repo.claim(dead, 10);
    const liveDirect = await repo.insertAccepted(ds, Array.from({ length: 2 }, () => accepted({ attemptId: randomUUID() })), live);
    const goneDirect = await repo.insertAccepted(ds, [accepted({ attemptId: randomUUID() })], gone);
    // the dead one's heartbeat lapses; the live one's does not
    await ds.query(`UPDATE dispatch.instance SET heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [dead]);
    expect(await repo.recoverAbandoned(1000)).toBe(4 + 3 + 1);
    expect(await repo.recoverAbandoned(1000)).toBe(0);
    const rows = await ds.query<Array<{ id: string; send_state: string; possible_duplicate: boolean }>>(`SELECT id::text AS id, send_state, possible_duplicate FROM dispatch.message ORDER BY id`);
    const handedBack = new Set([...deadDirect, ...deadQueued, ...goneDirect].map((c) => String(c.id)));
    for (const r of rows) {
      if (handedBack.has(r.id)) expect(r).toMatchObject({ send_state: 'queued', possible_duplicate: true });
      else expect(r).toMatchObject({ send_state: 'submitting', possible_duplicate: false });
    }
    expect(rows.filter((r) => r.send_state === 'submitting').map((r) => r.id)).toEqual(liveDirect.map((c) => String(c.id)));
    await claimsAreExact();
    // the queue gives them to the live replica, which can finish them
    const again = await repo.claim(live, 20);
    expect(again.map((c) => String(c.id)).sort()).toEqual([...handedBack].sort());
    await claimsAreExact();
    expect((await repo.markSentFinal(ds, again.map(final))).length).toBe(handedBack.size);
    await claimsAreExact();
  });

  it('two replicas recovering at once hand each abandoned message back exactly once', async () => {
    const dead = randomUUID();
    const claimed = await repo.insertAccepted(ds, Array.from({ length: 400 }, () => accepted({ attemptId: randomUUID() })), dead);
    expect(claimed).toHaveLength(400);
    const counts = await Promise.all([repo.recoverAbandoned(1000), repo2.recoverAbandoned(1000), repo.recoverAbandoned(1000), repo2.recoverAbandoned(1000)]);
    expect(counts.reduce((x, y) => x + y, 0)).toBe(400);
    const [{ queued, attempts }] = await ds.query<Array<{ queued: number; attempts: number }>>(
      `SELECT count(*) FILTER (WHERE send_state = 'queued' AND possible_duplicate)::int AS queued, sum(attempts)::int AS attempts FROM dispatch.message`,
    );
    expect(queued).toBe(400);
    expect(attempts).toBe(400);
    await claimsAreExact();
  });

  it('two replicas claiming the queue at once claim each message once, each under its own claim row', async () => {
    await repo.insertAccepted(ds, Array.from({ length: 300 }, () => accepted({ attemptId: null })), randomUUID());
    const a = randomUUID();
    const b = randomUUID();
    const got: ClaimedRow[][] = [[], []];
    for (let round = 0; round < 10; round++) {
      const [x, y] = await Promise.all([repo.claim(a, 40), repo2.claim(b, 40)]);
      got[0].push(...x);
      got[1].push(...y);
    }
    const ids = [...got[0], ...got[1]].map((c) => String(c.id));
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    const [{ byA, byB }] = await ds.query<Array<{ byA: number; byB: number }>>(
      `SELECT count(*) FILTER (WHERE claimed_by = $1)::int AS "byA", count(*) FILTER (WHERE claimed_by = $2)::int AS "byB" FROM dispatch.message_claim`,
      [a, b],
    );
    expect([byA, byB]).toEqual([got[0].length, got[1].length]);
    await claimsAreExact();
  });

  it('the stuck sweep resumes a claim with no outcome, and removes the claim rows of messages already done, never of one still moving', async () => {
    const live = randomUUID();
    await repo.heartbeat(live, 60_000);
    const [stuck, recent, done] = await repo.insertAccepted(ds, Array.from({ length: 3 }, () => accepted({ attemptId: randomUUID() })), live);
    await ds.query(`UPDATE dispatch.message SET updated_at = now() - interval '11 minutes' WHERE id = $1`, [stuck.id]);
    // a receipt that finalized a message without seeing its claim row (it was claimed concurrently) leaves the row
    await ds.query(`UPDATE dispatch.message SET send_state = 'done', status = 'delivered' WHERE id = $1`, [done.id]);
    const relay = { statusBatches: true, kick: () => undefined };
    const sweeper = new StuckMessageSweeper(ds, { stuck: {} } as never, { schedulers: false } as never, relay as never);
    expect(await sweeper.sweepOnce()).toEqual({ resumed: 1, failed: 0 });
    const claims = await ds.query<Array<{ id: string }>>(`SELECT message_id::text AS id FROM dispatch.message_claim ORDER BY message_id`);
    expect(claims.map((c) => c.id)).toEqual([String(recent.id)]);
    const [row] = await ds.query(`SELECT send_state, possible_duplicate FROM dispatch.message WHERE id = $1`, [stuck.id]);
    expect(row).toEqual({ send_state: 'queued', possible_duplicate: true });
    await claimsAreExact();
  });

  it('the final update of a message sent and answered in one write batch is heap-only', async () => {
    const qr = ds.createQueryRunner();
    await qr.connect();
    try {
      const flush = async () => {
        await qr.query('SELECT pg_stat_force_next_flush()');
        await qr.query('SELECT pg_stat_clear_snapshot()');
        const [r] = await qr.query(`SELECT n_tup_upd::int AS u, n_tup_hot_upd::int AS h FROM pg_stat_user_tables WHERE schemaname = 'dispatch' AND relname = 'message'`);
        return r as { u: number; h: number };
      };
      const claimed: ClaimedRow[] = [];
      for (let i = 0; i < 4; i++) claimed.push(...(await repo.insertAccepted(qr.manager, Array.from({ length: 250 }, () => accepted({ attemptId: randomUUID() })), randomUUID())));
      const before = await flush();
      for (let i = 0; i < claimed.length; i += 250) expect(await repo.markSentFinal(qr.manager, claimed.slice(i, i + 250).map(final))).toHaveLength(250);
      const after = await flush();
      expect(after.u - before.u).toBe(1000);
      // with the partial indexes on send_state none was; fillfactor 50 leaves room for most on their page
      expect(after.h - before.h).toBeGreaterThanOrEqual(500);
    } finally {
      await qr.release();
    }
  });
});

describe('dispatch messages on a carrier path with receipts seconds later (0212)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: MessageRepository;
  let n = 0;
  const accepted = (attemptId: string | null, campaignId: string | null = null): AcceptedRow & { attemptId: string | null } => {
    n++;
    return {
      eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId, channel: 'sms', sender: 'Switchboard',
      destination: `4915200${String(100000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null,
      acceptedAt: new Date().toISOString(), traceparent: null, attemptId,
    };
  };
  const delivered = (id: string) => ({ id, status: 'delivered' as const, outgoing: 'delivered', error: null, deliveredAt: new Date() });

  beforeAll(async () => {
    db = await createTestDatabase('dawait');
    ds = await openServiceDataSource({ name: 'dispatch-await', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
    repo = new MessageRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('marks a message sent and later final as two heap-only updates, the receipt wait in its own row', async () => {
    const qr = ds.createQueryRunner();
    await qr.connect();
    try {
      const flush = async () => {
        await qr.query('SELECT pg_stat_force_next_flush()');
        await qr.query('SELECT pg_stat_clear_snapshot()');
        const [r] = await qr.query(
          `SELECT n_tup_upd::int AS u, n_tup_hot_upd::int AS h, n_tup_newpage_upd::int AS p FROM pg_stat_user_tables WHERE schemaname = 'dispatch' AND relname = 'message'`,
        );
        return r as { u: number; h: number; p: number };
      };
      const claimed: ClaimedRow[] = [];
      for (let i = 0; i < 4; i++) claimed.push(...(await repo.insertAccepted(qr.manager, Array.from({ length: 250 }, () => accepted(randomUUID())), randomUUID())));
      const t0 = await flush();
      for (let i = 0; i < claimed.length; i += 250) {
        const sent = await repo.markSent(qr.manager, claimed.slice(i, i + 250).map((c) => ({ id: c.id, attemptId: c.attempt_id, vendorId: '2', providerIds: [`p-${c.id}`] })));
        expect(sent).toHaveLength(250);
      }
      const t1 = await flush();
      expect(await ds.query(`SELECT count(*)::int AS n, count(DISTINCT vendor_id)::int AS v FROM dispatch.message_awaiting`)).toEqual([{ n: 1000, v: 1 }]);
      for (let i = 0; i < claimed.length; i += 250) expect(await repo.finalizeFromReceipts(qr.manager, claimed.slice(i, i + 250).map((c) => delivered(c.id)))).toHaveLength(250);
      const t2 = await flush();
      expect(await ds.query(`SELECT count(*)::int AS n FROM dispatch.message_awaiting`)).toEqual([{ n: 0 }]);
      expect([t1.u - t0.u, t2.u - t1.u]).toEqual([1000, 1000]);
      // Every update that found room on its page was heap-only: none changed an indexed column. (With `wait_state`,
      // `submitted` included, and `awaiting_since` indexed, none of either was.) Room for the second update depends on
      // pruning the first one's old version, which another session's snapshot can hold back, so that count is not
      // asserted beyond the first update's, which fillfactor 50 leaves room for.
      expect(t1.u - t0.u - (t1.h - t0.h) - (t1.p - t0.p)).toBe(0);
      expect(t2.u - t1.u - (t2.h - t1.h) - (t2.p - t1.p)).toBe(0);
      expect(t1.h - t0.h).toBeGreaterThanOrEqual(500);
      expect(t2.h - t1.h).toBeGreaterThan(0);
    } finally {
      await qr.release();
    }
  });

  it('lists, asks about and expires only messages still waiting for their receipt, oldest first', async () => {
    await ds.query(`TRUNCATE dispatch.message, dispatch.message_claim, dispatch.message_awaiting`);
    const c = await repo.insertAccepted(ds, Array.from({ length: 4 }, () => accepted(randomUUID())), randomUUID());
    await repo.markSent(ds, c.map((x) => ({ id: x.id, attemptId: x.attempt_id, vendorId: '3', providerIds: [`q-${x.id}`] })));
    // sent 10, 20 and 30 minutes ago; the fourth just now; the one sent 20 minutes ago then gets its receipt
    for (const [k, min] of [[0, 10], [1, 20], [2, 30]] as const) {
      await ds.query(`UPDATE dispatch.message SET sent_at = now() - $2 * interval '1 minute' WHERE id = $1`, [c[k].id, min]);
      await ds.query(`UPDATE dispatch.message_awaiting SET sent_at = now() - $2 * interval '1 minute' WHERE message_id = $1`, [c[k].id, min]);
    }
    await repo.finalizeFromReceipts(ds, [delivered(c[1].id)]);
    const limits = [{ vendorId: '3', ms: 5 * 60_000 }];
    const overdue = await repo.overdue(limits, 0, 10);
    expect(overdue.items.map((i) => String(i.id))).toEqual([String(c[2].id), String(c[0].id)]);
    expect(overdue.vendors).toEqual([expect.objectContaining({ vendor_id: '3', overdue: 2 })]);
    expect((await repo.claimForQuery(limits, 60_000, 10)).map((r) => String(r.id))).toEqual([String(c[2].id), String(c[0].id)]);
    expect(await repo.expireAwaiting(15 * 60_000, 10)).toEqual([String(c[2].id)]);
    // a row its message left behind (a receipt that could not see it) is ignored, then removed by the stuck sweep
    await ds.query(`INSERT INTO dispatch.message_awaiting (message_id, vendor_id, sent_at) VALUES ($1, 3, now() - interval '1 hour')`, [c[1].id]);
    expect(await repo.expireAwaiting(15 * 60_000, 10)).toEqual([String(c[2].id)]);
    const relay = { statusBatches: true, kick: () => undefined };
    await new StuckMessageSweeper(ds, { stuck: {} } as never, { schedulers: false } as never, relay as never).sweepOnce();
    expect((await ds.query<Array<{ id: string }>>(`SELECT message_id::text AS id FROM dispatch.message_awaiting ORDER BY message_id`)).map((r) => r.id)).toEqual(
      [c[0].id, c[2].id, c[3].id].map(String).sort(),
    );
  });

  it('refuses a write that moves a message in or out of the queue without its queue state', async () => {
    await ds.query(`TRUNCATE dispatch.message, dispatch.message_claim, dispatch.message_awaiting`);
    const [m] = await repo.insertAccepted(ds, [accepted(randomUUID())], randomUUID());
    await expect(ds.query(`UPDATE dispatch.message SET send_state = 'queued' WHERE id = $1`, [m.id])).rejects.toMatchObject({ code: '23514' });
    await repo.insertAccepted(ds, [accepted(null)], randomUUID());
    expect(await ds.query(`SELECT send_state, queue_state FROM dispatch.message ORDER BY id`)).toEqual([
      { send_state: 'submitting', queue_state: null },
      { send_state: 'queued', queue_state: 'queued' },
    ]);
  });
});

describe('dispatch message claims: the migration over messages of an older release', () => {
  it('gives every message already submitting its claim row and the waits their generated keys, and goes back down', async () => {
    const db = await createTestDatabase('dclaimsup');
    const at = DISPATCH_MIGRATIONS.findIndex((m) => m.name === 'MessageStatusHot1798800000206');
    const before = DISPATCH_MIGRATIONS.slice(0, at);
    let ds = await openServiceDataSource({ name: 'dispatch-claims-old', url: db.url, schema: 'dispatch', entities: [], migrations: before, migrationsRun: true });
    try {
      const dead = randomUUID();
      const state = async (sendState: string, claimedBy: string | null, sentAt: string | null) =>
        String(
          (
            await ds.query<Array<{ id: string }>>(
              `INSERT INTO dispatch.message (uuid, account_id, stream_id, stream_uid, stream_type, campaign_id, channel, sender, destination, body, segments, currency,
                 send_state, attempt_id, claimed_by, attempts, next_attempt_at, accepted_at, sent_at)
               VALUES ($1, 1, 10, 's-10', 2, 5, 'sms', 'ACME', '+4915100000001', 'b', 1, 'EUR', $2, $3, $4, 1, now(), now(), $5) RETURNING id`,
              [randomUUID(), sendState, claimedBy ? randomUUID() : null, claimedBy, sentAt],
            )
          )[0].id,
        );
      const ids = {
        queued: await state('queued', null, null),
        held: await state('held', null, null),
        submitting: await state('submitting', dead, null),
        submitted: await state('submitted', null, '2026-11-29T01:00:00Z'),
        done: await state('done', null, '2026-11-29T01:00:00Z'),
      };
      await ds.destroy();
      ds = await openServiceDataSource({ name: 'dispatch-claims-new', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS.slice(0, at + 1), migrationsRun: true });
      const rows = await ds.query<Array<{ id: string; wait_state: string | null; awaiting_since: Date | null }>>(`SELECT id::text AS id, wait_state, awaiting_since FROM dispatch.message ORDER BY id`);
      expect(rows.map((r) => [r.id, r.wait_state, r.awaiting_since ? r.awaiting_since.toISOString() : null])).toEqual([
        [ids.queued, 'queued', null],
        [ids.held, 'held', null],
        [ids.submitting, null, null],
        [ids.submitted, 'submitted', '2026-11-29T01:00:00.000Z'],
        [ids.done, null, null],
      ]);
      expect(await ds.query(`SELECT message_id::text AS id, claimed_by FROM dispatch.message_claim`)).toEqual([{ id: ids.submitting, claimed_by: dead }]);
      const indexes = async () => (await ds.query<Array<{ n: string }>>(`SELECT indexname AS n FROM pg_indexes WHERE schemaname = 'dispatch' AND tablename = 'message' ORDER BY 1`)).map((r) => r.n);
      expect(await indexes()).toEqual(['message_awaiting_receipt', 'message_chat', 'message_held', 'message_pkey', 'message_queued', 'message_uuid_key']);
      await ds.undoLastMigration();
      expect(await indexes()).toEqual(['message_awaiting_receipt', 'message_chat', 'message_held', 'message_pkey', 'message_queued', 'message_submitting', 'message_uuid_key']);
      expect(await ds.query(`SELECT to_regclass('dispatch.message_claim') AS t`)).toEqual([{ t: null }]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});

describe('dispatch receipt waits: the migration over messages of the release before (0212)', () => {
  it('gives each queued or held message its queue state and each submitted one its wait row, without a rewrite, and goes back down', async () => {
    const db = await createTestDatabase('dawaitup');
    const at = DISPATCH_MIGRATIONS.findIndex((m) => m.name === 'MessageAwaitingReceipt1798800000212');
    let ds = await openServiceDataSource({ name: 'dispatch-await-old', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS.slice(0, at), migrationsRun: true });
    try {
      const dead = randomUUID();
      const state = async (sendState: string, claimedBy: string | null, sentAt: string | null) =>
        String(
          (
            await ds.query<Array<{ id: string }>>(
              `INSERT INTO dispatch.message (uuid, account_id, stream_id, stream_uid, stream_type, campaign_id, channel, sender, destination, body, segments, currency,
                 send_state, attempt_id, claimed_by, attempts, next_attempt_at, accepted_at, sent_at, vendor_id)
               VALUES ($1, 1, 10, 's-10', 2, 5, 'sms', 'ACME', '+4915100000001', 'b', 1, 'EUR', $2, $3, $4, 1, now(), now(), $5, 4) RETURNING id`,
              [randomUUID(), sendState, claimedBy ? randomUUID() : null, claimedBy, sentAt],
            )
          )[0].id,
        );
      const ids = {
        queued: await state('queued', null, null),
        held: await state('held', null, null),
        submitting: await state('submitting', dead, null),
        submitted: await state('submitted', null, '2026-11-29T01:00:00Z'),
        done: await state('done', null, '2026-11-29T01:00:00Z'),
      };
      await ds.query(`INSERT INTO dispatch.message_claim (message_id, claimed_by) VALUES ($1, $2)`, [ids.submitting, dead]);
      const file = async () => (await ds.query<Array<{ f: string }>>(`SELECT pg_relation_filenode('dispatch.message')::text AS f`))[0].f;
      const node = await file();
      await ds.destroy();
      ds = await openServiceDataSource({ name: 'dispatch-await-new', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
      // the same file: the table was not rewritten
      expect(await file()).toBe(node);
      const rows = await ds.query<Array<{ id: string; queue_state: string | null }>>(`SELECT id::text AS id, queue_state FROM dispatch.message ORDER BY id`);
      expect(rows.map((r) => [r.id, r.queue_state])).toEqual([
        [ids.queued, 'queued'],
        [ids.held, 'held'],
        [ids.submitting, null],
        [ids.submitted, null],
        [ids.done, null],
      ]);
      const waits = await ds.query<Array<{ id: string; vendor: string; sent_at: Date }>>(`SELECT message_id::text AS id, vendor_id::text AS vendor, sent_at FROM dispatch.message_awaiting`);
      expect(waits.map((w) => [w.id, w.vendor, w.sent_at.toISOString()])).toEqual([[ids.submitted, '4', '2026-11-29T01:00:00.000Z']]);
      const repo = new MessageRepository(ds);
      // the older release's claim and receipt wait are found by this one's recovery, queue and expiry
      expect(await repo.recoverAbandoned(1000)).toBe(1);
      expect((await repo.claim(randomUUID(), 10)).map((c) => String(c.id)).sort()).toEqual([ids.queued, ids.submitting].sort());
      expect(await repo.expireAwaiting(60_000, 10)).toEqual([ids.submitted]);
      const indexes = async () => (await ds.query<Array<{ n: string }>>(`SELECT indexname AS n FROM pg_indexes WHERE schemaname = 'dispatch' AND tablename = 'message' ORDER BY 1`)).map((r) => r.n);
      expect(await indexes()).toEqual(['message_chat', 'message_held', 'message_pkey', 'message_queued', 'message_uuid_key']);
      await ds.undoLastMigration();
      expect(await indexes()).toEqual(['message_awaiting_receipt', 'message_chat', 'message_held', 'message_pkey', 'message_queued', 'message_uuid_key']);
      const back = await ds.query<Array<{ id: string; wait_state: string | null; awaiting_since: Date | null }>>(`SELECT id::text AS id, wait_state, awaiting_since FROM dispatch.message WHERE id = ANY($1::bigint[]) ORDER BY id`, [
        [ids.held, ids.submitted],
      ]);
      expect(back.map((r) => [r.id, r.wait_state, r.awaiting_since ? r.awaiting_since.toISOString() : null])).toEqual([
        [ids.held, 'held', null],
        [ids.submitted, 'submitted', '2026-11-29T01:00:00.000Z'],
      ]);
      expect(await ds.query(`SELECT to_regclass('dispatch.message_awaiting') AS t`)).toEqual([{ t: null }]);
    } finally {
      await ds.destroy();
      await db.drop();
    }
  });
});
