import { CampaignStatus, CampaignStatusesRequestedV1, Topics, type EventData, type SendBatch } from '@switchboard/contracts';
import { metricsRegistry, PROCESS_ROLES } from '@switchboard/platform';
import { StatusReconciler } from '../src';
import { Clock, ManualClock } from '../src/clock';
import { RUNNER_OPTIONS } from '../src/run/runner.options';
import { CampaignsUnitOfWork } from '../src/services/campaigns-events.service';
import { RunnerHarness } from './runner-harness';

/**
 * The status sweep reads each campaign's accepted recipients above a floor (docs/decisions/0207), so that no index
 * names `status` and the status group's update of a recipient is heap-only. What must hold: every accepted recipient
 * without a final status is asked about once it is due (a batch whose answer commits after later batches were swept
 * past included), a final one never, two sweepers at once ask each once, and an ended campaign is left alone.
 */
describe('campaign status sweep above a floor', () => {
  const h = new RunnerHarness();
  const AFTER = 5000;
  /** messageUuids asked about, in order (a repeat is asked twice). */
  const asked: string[] = [];
  let sweeper: StatusReconciler;

  beforeAll(async () => {
    await h.start({ batchMax: 100, statuses: { afterMs: AFTER, intervalMs: 0, batch: 1000, requestsPerSweep: 10 } });
    sweeper = h.a.t.app.get(StatusReconciler);
    await h.a.bus.subscribe({
      group: 'test-status-questions',
      topics: [Topics.Campaigns],
      types: [CampaignStatusesRequestedV1.type],
      handler: async (e) => void asked.push(...(e.data as EventData<typeof CampaignStatusesRequestedV1>).messageUuids),
    });
  });
  afterAll(async () => h.close());

  /** A second sweeper on the same database, as another replica runs it. */
  const replica = () => new StatusReconciler(h.a.t.app.get(RUNNER_OPTIONS), h.a.t.app.get(PROCESS_ROLES), h.a.t.app.get(CampaignsUnitOfWork), h.a.t.app.get(Clock));

  const sweep = async (s: StatusReconciler = sweeper) => {
    const n = await s.sweepOnce();
    await h.settle();
    return n;
  };

  const recipients = async (id: string) =>
    h.a.sql<{ ordinal: number; uuid: string; state: number; status: string | null; requested_at: Date }>(
      `SELECT ordinal, message_uuid::text AS uuid, state, status, requested_at FROM campaigns.recipient WHERE campaign_id = $1 ORDER BY ordinal`,
      [id],
    );

  /** The oldest status floor's age the sweeper last reported, in seconds. */
  const floorAge = async () => ((await metricsRegistry.getSingleMetric('switchboard_campaigns_status_floor_age_seconds')?.get())?.values ?? [])[0]?.value;
  const floor = async (id: string) => (await h.a.sql<{ floor: string }>(`SELECT status_floor::text AS floor FROM campaigns.run WHERE campaign_id = $1`, [id]))[0].floor;

  /** Dispatch's final status (delivered) for these recipients of the campaign. */
  const deliver = async (id: string, uuids: string[]) => {
    const items = h.requested.filter((i) => uuids.includes(i.messageUuid));
    const batch = { accountId: acc(id), streamId: `${acc(id)}1`, campaignId: id } as Pick<SendBatch, 'accountId' | 'streamId' | 'campaignId'>;
    const seen = new Set<string>();
    const once = items.filter((i) => !seen.has(i.messageUuid) && seen.add(i.messageUuid));
    await h.a.bus.publish(once.map((i) => h.statusOf(i, batch, 'delivered')));
    await h.settle();
  };
  const accounts = new Map<string, string>();
  const acc = (id: string) => accounts.get(id) as string;

  it("asks about every accepted recipient without a final status once it is due, a batch answered after later batches' recipients were swept included, and never about a final one", async () => {
    const id = await h.campaign0('2071', 300);
    accounts.set(id, '2071');
    await h.a.sql(`UPDATE campaigns.account SET tps = 1000 WHERE account_id = '2071'`);
    // streams holds its answer to the first batch (its recipients stay in flight in the open batch row)
    h.holding = true;
    for (let k = 0; k < 10 && !h.held.length; k++) await h.step();
    expect(h.held).toHaveLength(1);
    h.holding = false;
    for (let k = 0; k < 10 && ((await recipients(id)).filter((r) => r.state === 3).length < 200); k++) await h.step();
    const early = (await recipients(id)).filter((r) => r.state === 3);
    expect(early).toHaveLength(200);
    // the fake dispatch reported `sent` for each; all but three of the answered ones are delivered
    const open = [early[5].uuid, early[150].uuid, early[199].uuid];
    await deliver(id, early.map((r) => r.uuid).filter((u) => !open.includes(u)));

    h.clock.advance(AFTER + 1000);
    // pages of 50 (each batch's 100 share a key: a page reads its key's group whole): the floor is held at the first
    // batch's request while the pages after it are read
    sweeper.scanRows = 50;
    expect(await sweep()).toBe(3);
    expect([...asked].sort()).toEqual([...open].sort());
    // the floor stays at or below the first batch's request, whose answer is still to come
    const firstBatch = (await h.a.sql<{ at: Date }>(`SELECT requested_at AS at FROM campaigns.send_batch WHERE campaign_id = $1`, [id]))[0].at;
    expect(new Date((await h.a.sql<{ f: Date }>(`SELECT status_floor AS f FROM campaigns.run WHERE campaign_id = $1`, [id]))[0].f).getTime()).toBeLessThanOrEqual(new Date(firstBatch).getTime());
    // and the floor's age shows it: at least as old as that unanswered request
    expect(await floorAge()).toBeGreaterThanOrEqual((h.clock.now().getTime() - new Date(firstBatch).getTime()) / 1000);

    // the late answer: 100 recipients accepted with the first batch's (old) request time, none with a final status
    await h.release();
    const late = (await recipients(id)).filter((r) => r.state === 3 && !early.some((e) => e.ordinal === r.ordinal));
    expect(late).toHaveLength(100);
    expect(late.every((r) => new Date(r.requested_at).getTime() === new Date(firstBatch).getTime())).toBe(true);
    expect(await sweep()).toBe(100);
    expect(asked.slice(3).sort()).toEqual(late.map((r) => r.uuid).sort());
    // asked once: not again before another `afterMs`
    expect(await sweep()).toBe(0);
    h.clock.advance(AFTER + 1000);
    expect(await sweep()).toBe(103);
    expect(new Set(asked).size).toBe(103);

    // every status final: the campaign finishes, the sweeps pass the floor over it and then leave it alone
    await deliver(id, [...open, ...late.map((r) => r.uuid)]);
    expect(await h.runUntilStopped(id)).toBe(CampaignStatus.Finished);
    const before = asked.length;
    for (let k = 0; k < 3; k++) {
      h.clock.advance(AFTER + 1000);
      expect(await sweep()).toBe(0);
    }
    expect(asked.length).toBe(before);
    expect(await floor(id)).toBe('infinity');
    expect(await floorAge()).toBe(0); // no campaign left with a floor
    expect((await recipients(id)).every((r) => r.status === 'delivered')).toBe(true);
    sweeper.scanRows = 10_000;
  }, 120_000);

  it("asks about the recipients a closed batch's late answer accepts with its old request time", async () => {
    const id = await h.campaign0('2075', 200);
    accounts.set(id, '2075');
    await h.a.sql(`UPDATE campaigns.account SET tps = 1000 WHERE account_id = '2075'`);
    // the first batch's answer is held; the second is answered and delivered
    h.holding = true;
    for (let k = 0; k < 10 && !h.held.length; k++) await h.step();
    h.holding = false;
    for (let k = 0; k < 10 && (await recipients(id)).filter((r) => r.state === 3).length < 100; k++) await h.step();
    const answered = (await recipients(id)).filter((r) => r.state === 3);
    expect(answered).toHaveLength(100);
    await deliver(id, answered.map((r) => r.uuid));
    // streams stays silent past `resendAfterMs`: the runner closes the first batch and asks again (held too)
    h.holding = true;
    h.clock.advance(61_000);
    for (let k = 0; k < 5 && h.held.length < 2; k++) await h.step();
    expect(h.held).toHaveLength(2);
    expect((await h.a.sql<{ open: boolean }>(`SELECT open FROM campaigns.send_batch WHERE campaign_id = $1 ORDER BY requested_at`, [id])).map((b) => b.open)).toEqual([false, true]);
    const from = asked.length;
    expect(await sweep()).toBe(0);
    // the closed batch's late answer comes first: its recipients accepted with its (old) request time
    await h.release();
    const late = (await recipients(id)).filter((r) => !answered.some((a) => a.ordinal === r.ordinal));
    expect(late.every((r) => r.state === 3 && r.status === 'sent')).toBe(true);
    h.clock.advance(AFTER + 1000);
    expect(await sweep()).toBe(100);
    expect(asked.slice(from).sort()).toEqual(late.map((r) => r.uuid).sort());
    await deliver(id, late.map((r) => r.uuid));
  }, 120_000);

  it('asks about each recipient once with two sweepers at once, a page of a few rows at a time', async () => {
    const ids = [await h.campaign0('2072', 60), await h.campaign0('2073', 60)];
    accounts.set(ids[0], '2072');
    accounts.set(ids[1], '2073');
    for (let k = 0; k < 20; k++) {
      const rs = await Promise.all(ids.map(recipients));
      if (rs.every((r) => r.filter((x) => x.state === 3).length === 60)) break;
      await h.step();
    }
    const pending: string[] = [];
    for (const id of ids) {
      const rs = await recipients(id);
      expect(rs.filter((r) => r.state === 3)).toHaveLength(60);
      // every seventh left without a final status
      const left = rs.filter((r) => r.ordinal % 7 === 3).map((r) => r.uuid);
      pending.push(...left);
      await deliver(id, rs.map((r) => r.uuid).filter((u) => !left.includes(u)));
    }
    h.clock.advance(AFTER + 1000);
    const other = replica();
    sweeper.scanRows = 5;
    other.scanRows = 5;
    const from = asked.length;
    try {
      const n = (await Promise.all([sweeper.sweepOnce(), other.sweepOnce(), sweeper.sweepOnce(), other.sweepOnce()])).reduce((a, b) => a + b, 0);
      await h.settle();
      // what a concurrent sweep skipped (a run row taken) the next sweep reads
      const rest = (await sweep()) + (await sweep(other));
      expect(n + rest).toBe(pending.length);
    } finally {
      sweeper.scanRows = 10_000;
    }
    const mine = asked.slice(from);
    expect(mine.sort()).toEqual([...pending].sort());
    expect(new Set(mine).size).toBe(mine.length);
  }, 120_000);

  it("applies a recipient's final status as a heap-only update", async () => {
    const id = await h.campaign0('2074', 400);
    accounts.set(id, '2074');
    for (let k = 0; k < 20 && (await recipients(id)).filter((r) => r.state === 3).length < 400; k++) await h.step();
    const rs = await recipients(id);
    expect(rs.filter((r) => r.state === 3 && r.status === 'sent')).toHaveLength(400);
    // PostgreSQL's counters of the table, once every backend reported them (an idle backend within 10 s)
    const counts = async () => (await h.a.sql<{ upd: string; hot: string }>(`SELECT n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables WHERE schemaname = 'campaigns' AND relname = 'recipient'`))[0];
    const settled = async (atLeast: number) => {
      for (let k = 0; k < 40; k++) {
        const c = await counts();
        if (Number(c.upd) >= atLeast) {
          await new Promise((r) => setTimeout(r, 1500));
          const again = await counts();
          if (again.upd === c.upd) return c;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      return counts();
    };
    await new Promise((r) => setTimeout(r, 11_000));
    const before = await settled(0);
    await deliver(
      id,
      rs.map((r) => r.uuid),
    );
    expect((await recipients(id)).every((r) => r.status === 'delivered')).toBe(true);
    const after = await settled(Number(before.upd) + 400);
    expect(Number(after.upd) - Number(before.upd)).toBeGreaterThanOrEqual(400);
    // with `recipient_status_due_idx` (status in its predicate) none was
    expect(Number(after.hot) - Number(before.hot)).toBeGreaterThanOrEqual(200);
  }, 120_000);

  it("asks about a step's requests written below a floor that a sweeper with a clock ahead moved meanwhile", async () => {
    const id = await h.campaign0('2076', 200);
    accounts.set(id, '2076');
    await h.a.sql(`UPDATE campaigns.account SET tps = 1000 WHERE account_id = '2076'`);
    for (let k = 0; k < 10 && (await recipients(id)).filter((r) => r.state === 3).length < 100; k++) await h.step();
    const first = (await recipients(id)).filter((r) => r.state === 3);
    expect(first).toHaveLength(100);
    // a sweeper whose clock is three `afterMs` ahead of the runner's (as a runner step that read its clock and stalled
    // that long): it asks about the first batch and moves the floor to its own due time, above the runner's clock
    const ahead = new ManualClock(h.clock.now().getTime() + 3 * AFTER);
    const other = new StatusReconciler(h.a.t.app.get(RUNNER_OPTIONS), h.a.t.app.get(PROCESS_ROLES), h.a.t.app.get(CampaignsUnitOfWork), ahead);
    const mine = (from: number, uuids: string[]) => asked.slice(from).filter((u) => uuids.includes(u));
    let from = asked.length;
    await sweep(other);
    expect(mine(from, first.map((r) => r.uuid)).sort()).toEqual(first.map((r) => r.uuid).sort());
    expect(Date.parse(await floor(id))).toBeGreaterThan(h.clock.now().getTime());
    // the runner's next batch is requested at its own (earlier) time, below that floor
    for (let k = 0; k < 10 && (await recipients(id)).filter((r) => r.state === 3).length < 200; k++) await h.step();
    const second = (await recipients(id)).filter((r) => r.state === 3 && !first.some((f) => f.ordinal === r.ordinal));
    expect(second).toHaveLength(100);
    const at = Math.max(...second.map((r) => new Date(r.requested_at).getTime()));
    expect(at).toBeLessThan(ahead.now().getTime() - AFTER);
    // its step kept the floor at or below its request time, so the sweeper ahead asks about exactly those 100
    const floorAfterStep = Date.parse(await floor(id));
    from = asked.length;
    await sweep(other);
    const all = [...first, ...second].map((r) => r.uuid);
    expect(mine(from, all).sort()).toEqual(second.map((r) => r.uuid).sort());
    expect(floorAfterStep).toBeLessThanOrEqual(Math.min(...second.map((r) => new Date(r.requested_at).getTime())));
    await deliver(id, all);
  }, 120_000);
});
