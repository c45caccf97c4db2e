import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { DISPATCH_MIGRATIONS, MessageRepository } from '../src';
import type { AcceptedRow } from '../src/repositories/message.repository';

/**
 * The write lane's statements against dispatch's schema alone (docs/decisions/0183): what `insertAccepted` hands the
 * sender is the row as stored, and the fenced updates move only the attempt they name, whatever the statistics say
 * about how many messages are in flight.
 */
describe('dispatch message writes', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: MessageRepository;
  const instance = randomUUID();
  let n = 0;

  const accepted = (o: Partial<AcceptedRow> & { attemptId: string | null }): AcceptedRow & { attemptId: string | null } => {
    n++;
    return {
      eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: null, channel: 'sms', sender: 'Switchboard',
      destination: `4915100${String(100000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR', notBefore: null,
      acceptedAt: new Date().toISOString(), traceparent: null, ...o,
    };
  };

  beforeAll(async () => {
    db = await createTestDatabase('dw');
    ds = await openServiceDataSource({ name: 'dispatch-writes', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
    repo = new MessageRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('gives back each message inserted with an attempt exactly as stored: once per uuid, the attempt that was inserted, none queued or redelivered', async () => {
    const first = accepted({ attemptId: randomUUID(), accountId: '0042', streamId: '9', campaignId: '00017', payload: { b: [1, 2], a: 'x' }, encoding: null, segments: 2 });
    const again = { ...first, eventId: randomUUID(), attemptId: randomUUID() };
    const queued = accepted({ attemptId: null });
    const other = accepted({ attemptId: randomUUID(), iso2: null, channel: 'whatsapp' });
    const claimed = await repo.insertAccepted(ds, [first, again, queued, other], instance);

    expect(claimed.map((c) => c.uuid).sort()).toEqual([first.uuid, other.uuid].sort());
    for (const c of claimed) {
      const [stored] = await ds.query(
        `SELECT id, uuid, attempt_id, account_id, stream_id, stream_uid, stream_type, channel, sender, destination, iso2, body, payload, encoding, segments,
                possible_duplicate, attempts, unknown_attempts, campaign_id, send_state, claimed_by
           FROM dispatch.message WHERE uuid = $1`,
        [c.uuid],
      );
      expect(stored.send_state).toBe('submitting');
      expect(stored.claimed_by).toBe(instance);
      const { send_state: _s, claimed_by: _c, ...row } = stored as Record<string, unknown>;
      // every field of a claimed row (ClaimedRow) as stored
      expect(Object.fromEntries(Object.keys(row).map((k) => [k, (c as unknown as Record<string, unknown>)[k]]))).toEqual(row);
    }
    expect(claimed.find((c) => c.uuid === first.uuid)!.attempt_id).toBe(first.attemptId);
    expect(claimed.find((c) => c.uuid === first.uuid)!.account_id).toBe('42');
    // redelivered: nothing new, nothing handed to the sender
    expect(await repo.insertAccepted(ds, [{ ...other, eventId: randomUUID(), attemptId: randomUUID() }], instance)).toEqual([]);
  });

  it('moves only the attempts it names when thousands are in flight and the statistics saw none', async () => {
    await ds.query(`ANALYZE dispatch.message`);
    const rows = Array.from({ length: 3000 }, () => accepted({ attemptId: randomUUID() }));
    const claimed = await repo.insertAccepted(ds, rows, instance);
    expect(claimed).toHaveLength(3000);
    const [right, stale, sentAlready, ...rest] = claimed;
    await repo.markSent(ds, [{ id: sentAlready.id, attemptId: sentAlready.attempt_id, vendorId: '1', providerIds: ['p-sent'] }]);
    const final = (c: (typeof claimed)[number], attemptId = c.attempt_id, pid = `p-${c.id}`) => ({ id: c.id, attemptId, vendorId: '1', providerId: pid, status: 'delivered' as const, outgoing: 'delivered', error: null, deliveredAt: new Date() });
    const moved = await repo.markSentFinal(ds, [final(right), final(stale, randomUUID()), final(sentAlready)]);
    expect(moved.map((r) => String(r.id))).toEqual([String(right.id)]);
    const states = await ds.query(`SELECT id::text AS id, status, send_state FROM dispatch.message m WHERE m.id = ANY($1::bigint[]) ORDER BY m.id`, [[right.id, stale.id, sentAlready.id]]);
    expect(states).toEqual([
      { id: String(right.id), status: 'delivered', send_state: 'done' },
      { id: String(stale.id), status: 'accepted', send_state: 'submitting' },
      { id: String(sentAlready.id), status: 'sent', send_state: 'submitted' },
    ]);
    const failed = await repo.finalizeClaimed(ds, [{ id: rest[0].id, attemptId: rest[0].attempt_id, status: 'rejected', error: 'no', vendorId: '1' }, { id: right.id, attemptId: right.attempt_id, status: 'rejected', error: 'no', vendorId: '1' }]);
    expect(failed.map((r) => String(r.id))).toEqual([String(rest[0].id)]);
    await repo.defer(ds, [{ id: rest[1].id, attemptId: rest[1].attempt_id, afterMs: 0, error: null, countAttempt: false }, { id: rest[2].id, attemptId: randomUUID(), afterMs: 0, error: null, countAttempt: false }]);
    const deferred = await ds.query(`SELECT id::text AS id, send_state FROM dispatch.message m WHERE m.id = ANY($1::bigint[]) ORDER BY m.id`, [[rest[1].id, rest[2].id]]);
    expect(deferred).toEqual([
      { id: String(rest[1].id), send_state: 'queued' },
      { id: String(rest[2].id), send_state: 'submitting' },
    ]);
  });
});
