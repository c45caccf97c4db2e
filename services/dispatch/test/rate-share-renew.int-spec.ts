import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, type TestDatabase } from '@switchboard/platform/testing';
import { DISPATCH_MIGRATIONS, DISPATCH_SCHEMA } from '../src';
import { waitUntil } from './support';
import { shareSchedule, type OtherShare } from '../src/domain/rate-shares';
import { RateShareRepository, type ShareGrant, type ShareRequest } from '../src/repositories/rate-share.repository';

/**
 * Share renewals in one statement (docs/decisions/0081-limits-across-three-replicas.md): `dispatch.renew_rate_shares`
 * on a real PostgreSQL, three replicas renewing in turn as the dispatcher does. Issue 17: with three replicas the
 * limits held 83-94% of the rate: every idle replica kept 2% of it, and a share handed from one replica to another
 * waited for renewals of six round trips under one lock.
 */
describe('rate-share renewals in one statement, three replicas', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let repo: RateShareRepository;
  const LEASE_MS = 60_000;
  const HOLD_MS = 1100;

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = await openServiceDataSource({ name: 'dispatch-rate-share-test', url: db.url, schema: DISPATCH_SCHEMA, entities: [], migrations: DISPATCH_MIGRATIONS });
    repo = new RateShareRepository(ds);
  }, 60_000);

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const busy = (key: string, rate: number, pendingMs = 0): ShareRequest => ({ key, rate, demand: rate / 3, saturated: true, pendingMs });
  const idle = (key: string, rate: number): ShareRequest => ({ key, rate, demand: 0, saturated: false, pendingMs: 0 });
  const renew = async (id: string, r: ShareRequest): Promise<ShareGrant> => (await repo.renew(id, [r], [], LEASE_MS, HOLD_MS))[0];
  const rows = async (key: string) =>
    (await ds.query(`SELECT instance_id::text AS id, share, CASE WHEN prior_until > now() THEN prior_share ELSE 0 END AS prior FROM dispatch.rate_share WHERE key = $1`, [key])) as Array<{
      id: string;
      share: number;
      prior: number;
    }>;
  const sumOf = (xs: Array<{ share: number }>) => xs.reduce((s, x) => s + x.share, 0);
  const waitMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('gives a busy replica the whole rate while the other two are idle, after one renewal of each: no floor kept by an idle replica', async () => {
    const key = `a:${randomUUID()}`;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await renew(b, idle(key, 200));
    await renew(c, idle(key, 200));
    await renew(a, busy(key, 200));
    // one more renewal each, as their periodic ones come: the idle ones give up what nobody else wanted before
    await renew(b, idle(key, 200));
    await renew(c, idle(key, 200));
    const grant = await renew(a, busy(key, 200));
    // before 0081 each idle replica kept 2% of the rate: the busy one got 192 of 200 (96%, beyond the 2% bound)
    expect(grant.later?.share ?? grant.share).toBe(200);
    const held = await rows(key);
    expect(held.find((r) => r.id === a)!.share).toBe(200);
    expect(sumOf(held)).toBe(200);
  });

  it('hands a drained replica\'s share to the busy ones at their next renewal, the shares adding up to the rate throughout', async () => {
    const key = `s:${randomUUID()}`;
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    // all three busy: a third each once the first one alone lowered its whole rate
    for (const id of ids) await renew(id, busy(key, 100));
    for (const id of ids) await renew(id, busy(key, 100));
    expect((await rows(key)).map((r) => r.share)).toEqual([33.33, 33.33, 33.33]);
    // the first one's lowered whole rate stops counting (150 ms past its renewal: it had nothing booked)
    await waitUntil(async () => (await rows(key)).every((r) => r.prior === 0), 'no lowered share counting');
    // the third one's backlog runs out, nothing booked: it gives its share up at once (counted 150 ms for late timers)
    const drained = await renew(ids[2], idle(key, 100));
    expect(drained.share).toBe(0);
    // each busy one takes half at its next renewal: at once if the drained share no longer counts, else as a grant
    // for the moment it stops counting (at most its 150 ms), never before
    for (const id of ids.slice(0, 2)) {
      const g = await renew(id, busy(key, 100));
      if (g.later) {
        expect(g.share).toBeLessThan(50);
        expect(g.later.share).toBe(50);
        expect(g.later.afterMs).toBeLessThanOrEqual(151);
      } else expect(g.share).toBe(50);
    }
    // the rows (what every replica counts as held) add up to the rate: nothing idle, nothing over
    const held = await rows(key);
    expect(held.map((r) => r.share)).toEqual(expect.arrayContaining([50, 50, 0]));
    expect(sumOf(held)).toBe(100);
  });

  it('grants what the reference allocation (rate-shares.ts) grants, and never more than the rate in use at once, over random renewals', async () => {
    const key = `a:${randomUUID()}`;
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const rate = 90;
    let seed = 11;
    const rnd = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    // what each replica may use now (its grant's share, or the later one from its start), and what it booked lately
    const usable = new Map<string, { share: number; later: { share: number; at: number } | null; lowered: { share: number; until: number } | null }>();
    let compared = 0;
    for (let step = 0; step < 60; step++) {
      const id = ids[Math.floor(rnd() * 3)];
      const roll = rnd();
      const req: ShareRequest = {
        key,
        rate,
        demand: roll < 0.2 ? 0 : Math.round(rnd() * 60),
        saturated: roll > 0.6,
        // booked messages go out within 0 or 400 ms: a lowered share then counts that long (plus the margin)
        pendingMs: rnd() < 0.5 ? 0 : 400,
      };
      // the reference's view of the other replicas, read just before the call (the database's clock)
      const read = (await ds.query(
        `SELECT share, demand, saturated, greatest(share, CASE WHEN prior_until > now() THEN prior_share ELSE 0 END) AS holding,
                CASE WHEN prior_until > now() AND prior_share > share THEN 1 ELSE 0 END AS lowering, prior_until, now() AS at
           FROM dispatch.rate_share WHERE key = $1 AND instance_id <> $2::uuid`,
        [key, id],
      )) as Array<{ share: number; demand: number; saturated: boolean; holding: number; lowering: number; prior_until: Date | null; at: Date }>;
      const others: OtherShare[] = read.map((o) => ({ share: o.share, demand: o.demand, saturated: o.saturated, holding: o.holding, priorMs: o.lowering }));
      const t0 = Date.now();
      const grant = await renew(id, req);
      const [{ after }] = (await ds.query(`SELECT clock_timestamp() AS after`)) as Array<{ after: Date }>;
      // a lowered share that ended between the read and the call is seen ending by one and not the other: no comparison
      const edge = read.some((o) => o.prior_until && o.prior_until.getTime() >= o.at.getTime() - 5 && o.prior_until.getTime() <= after.getTime() + 5);
      if (!edge) {
        compared++;
        const expected = shareSchedule(rate, req, others);
        expect({ step, share: grant.share, later: grant.later?.share ?? null }).toEqual({ step, share: expected.share, later: expected.later?.share ?? null });
      }
      const t = Date.now();
      const prev = usable.get(id);
      const prevNow = prev ? (prev.later && prev.later.at <= t ? prev.later.share : prev.share) : 0;
      const newTop = grant.later ? grant.later.share : grant.share;
      usable.set(id, {
        share: grant.share,
        later: grant.later ? { share: grant.later.share, at: t + grant.later.afterMs } : null,
        // lowered: the replica's messages booked under the old share still go out until pendingMs (the database holds it
        // 150 ms longer)
        lowered: newTop < prevNow ? { share: prevNow, until: t0 + req.pendingMs } : prev?.lowered && prev.lowered.until > t ? prev.lowered : null,
      });
      // at this moment and at every start of a later share, what the three may use adds up to at most the rate
      const moments = [t, ...[...usable.values()].flatMap((u) => (u.later ? [u.later.at] : [])), ...[...usable.values()].flatMap((u) => (u.lowered ? [u.lowered.until] : []))].filter((m) => m >= t);
      for (const m of moments) {
        const inUse = [...usable.values()].reduce((s, u) => s + Math.max(u.later && u.later.at <= m ? u.later.share : u.share, u.lowered && u.lowered.until >= m ? u.lowered.share : 0), 0);
        expect({ step, at: m - t, inUse: Math.min(inUse, rate + 1e-6), usable: [...usable.values()] }).toEqual({ step, at: m - t, inUse, usable: [...usable.values()] });
      }
      await waitMs(Math.floor(rnd() * 60));
    }
    // the comparison is skipped only when a lowered share ended during a call
    expect(compared).toBeGreaterThan(20);
  }, 60_000);
});
