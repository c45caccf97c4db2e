import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { DISPATCH_MIGRATIONS, MessageRepository } from '../src';
import type { AcceptedRow } from '../src/repositories/message.repository';

/**
 * docs/decisions/0217: the sweep that hands over receipts kept as pending (they beat their submit response, or another
 * replica recorded the id) once their part is recorded. It takes exactly the receipts whose part waits, and it finds
 * them by each receipt's own id: with thousands of open refs and tables the planner has no statistics for (a young
 * database, the benchmark's), it never reads the refs table whole.
 */
describe('dispatch pending-receipt sweep (0217)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: MessageRepository;
  let n = 0;
  const accepted = (destination?: string): AcceptedRow & { attemptId: string | null } => {
    n++;
    return {
      eventId: randomUUID(), uuid: randomUUID(), accountId: '7', streamId: '3', streamUid: 'st-3', streamType: 1, campaignId: null, channel: 'sms', sender: 'Switchboard',
      destination: destination ?? `4915300${String(100000 + n)}`, iso2: 'DE', body: `hello ${n}`, payload: null, encoding: 'gsm7', segments: 1, priceMicros: 6500, currency: 'EUR',
      notBefore: null, acceptedAt: new Date().toISOString(), traceparent: null, attemptId: randomUUID(),
    };
  };
  const pending = (pid: string, destination: string | null = null, at = new Date()) => ({ vendorId: '2', pid, outcome: 'delivered', error: null, at, destination });

  beforeAll(async () => {
    db = await createTestDatabase('dpsweep');
    ds = await openServiceDataSource({ name: 'dispatch-psweep', url: db.url, schema: 'dispatch', entities: [], migrations: DISPATCH_MIGRATIONS, migrationsRun: true });
    repo = new MessageRepository(ds);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('hands over exactly the pending receipts whose part now waits, by each receipt own id, without reading every open ref', async () => {
    // 3,000 single-part messages sent and waiting: 3,000 refs without an outcome (0214 never writes a single part's)
    const many = [];
    for (let i = 0; i < 3000; i += 500) many.push(...(await repo.insertAccepted(ds, Array.from({ length: 500 }, () => accepted()), randomUUID())));
    for (let i = 0; i < many.length; i += 500) {
      await repo.markSent(ds, many.slice(i, i + 500).map((c) => ({ id: c.id, attemptId: c.attempt_id, vendorId: '2', providerIds: [`w-${c.id}`] })));
    }
    const [final, reusedOld, reusedNew, toNumber] = await repo.insertAccepted(ds, [accepted(), accepted(), accepted(), accepted('33611110009')], randomUUID());
    await repo.markSent(ds, [
      { id: final.id, attemptId: final.attempt_id, vendorId: '2', providerIds: ['final-1'] },
      { id: reusedOld.id, attemptId: reusedOld.attempt_id, vendorId: '2', providerIds: ['reused-1'] },
      { id: toNumber.id, attemptId: toNumber.attempt_id, vendorId: '2', providerIds: ['num-1'] },
    ]);
    await repo.finalizeFromReceipts(ds, [
      { id: final.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() },
      { id: reusedOld.id, status: 'delivered', outgoing: 'delivered', error: null, deliveredAt: new Date() },
    ]);
    await repo.markSent(ds, [{ id: reusedNew.id, attemptId: reusedNew.attempt_id, vendorId: '2', providerIds: ['reused-1'] }]);
    await repo.storePending(ds, [
      pending(`w-${many[17].id}`), // waits: taken
      pending('reused-1'), // the id's newer use waits: taken
      pending('num-1', '33611110009'), // waits, to the number it names: taken
      pending(`w-${many[18].id}`, '44700000001'), // waits, but to another number: kept
      pending('final-1'), // its only part is final: kept
      pending('nobody-1'), // no part has that id yet: kept
      pending(`w-${many[19].id}`, null, new Date(Date.now() + 5 * 60_000)), // its ref was given the id minutes before the receipt came (an earlier use): kept
    ]);

    // the statement's plan on tables never analysed: the refs only through an index, the messages by primary key
    const plans: string[] = [];
    const explaining = {
      query: async (sql: string, params?: unknown[]) => {
        if (/^\s*DELETE FROM dispatch\.pending_receipt p\s/.test(sql)) {
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
    } as unknown as DataSource;
    const taken = await new MessageRepository(explaining).takeMatchedPending(1000, 10 * 60_000);

    expect(taken.map((p) => p.provider_message_id).sort()).toEqual([`w-${many[17].id}`, 'num-1', 'reused-1'].sort());
    expect((await ds.query<Array<{ provider_message_id: string }>>(`SELECT provider_message_id FROM dispatch.pending_receipt ORDER BY 1`)).map((r) => r.provider_message_id).sort()).toEqual(
      [`w-${many[18].id}`, `w-${many[19].id}`, 'final-1', 'nobody-1'].sort(),
    );
    expect(plans).toHaveLength(1);
    expect(plans[0]).toMatch(/Index Scan using provider_ref_lookup on provider_ref r/);
    expect(plans[0]).not.toMatch(/Seq Scan on provider_ref/);
    expect(plans[0]).not.toMatch(/Seq Scan on message/);
    // each pending receipt probed once: 7 of them, nothing near the 3,000 refs
    expect(plans[0]).toMatch(/Index Scan using provider_ref_lookup on provider_ref r \(actual time=[\d.]+\.\.[\d.]+ rows=[\d.]+ loops=7\)/);
    // taken once: a second sweep finds nothing more
    expect(await repo.takeMatchedPending(1000, 10 * 60_000)).toEqual([]);
  });
});
