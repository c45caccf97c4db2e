import { CampaignStatus } from '@switchboard/contracts';
import { RunnerHarness } from './runner-harness';

/**
 * The runner's step reads its next recipients by key (docs/decisions/0116): the fresh ones from the run's cursor, the
 * ones waiting again from the due index, so a step reads about the recipients it sends, however far the campaign
 * is, and never the recipients waiting for their sending hours.
 */
describe('campaign runner: the step reads by key', () => {
  const h = new RunnerHarness();

  beforeAll(async () => {
    await h.start();
  });
  afterAll(async () => h.close());

  const states = async (id: string) => Object.fromEntries((await h.a.sql<{ state: number; n: number }>(`SELECT state, count(*)::int AS n FROM campaigns.recipient WHERE campaign_id = $1 GROUP BY state`, [id])).map((r) => [r.state, r.n]));

  /**
   * Rows PostgreSQL read from campaigns.recipient (sequential scans and index fetches), once every backend has
   * reported its counts: an idle backend sends what it holds within 10 s (PostgreSQL's idle interval), then two reads
   * 1.5 s apart agree.
   */
  const reads = async (): Promise<number> => {
    const read = async () => {
      const [r] = await h.a.sql<{ n: string }>(`SELECT (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text AS n FROM pg_stat_user_tables WHERE schemaname = 'campaigns' AND relname = 'recipient'`);
      return Number(r.n);
    };
    await new Promise((r) => setTimeout(r, 11_000));
    let last = await read();
    for (;;) {
      await new Promise((r) => setTimeout(r, 1500));
      const now = await read();
      if (now === last) return now;
      last = now;
    }
  };

  const tps = async (acc: string, n: number) => h.a.sql(`UPDATE campaigns.account SET tps = $2 WHERE account_id = $1`, [acc, n]);

  /**
   * The campaign's audience in, and the table's statistics taken then, as autovacuum takes them after the COPY; and
   * kept, as at a million recipients, where autovacuum analyzes again only after 100,000 rows changed (10%) and
   * vacuums after 200,000: the planner plans the step with statistics that say every recipient is waiting.
   */
  const ready = async (id: string) => {
    for (let k = 0; k < 5 && (await h.status(id)) !== CampaignStatus.Sending; k++) await h.step();
    await h.a.sql(`ANALYZE campaigns.recipient`);
    await h.a.sql(`ALTER TABLE campaigns.recipient SET (autovacuum_enabled = false)`);
  };

  it('reads a few rows a step near the end of a campaign of 20,000 (19,000 sent), not the recipients it sent', async () => {
    const n = 20_000;
    const id = await h.campaign0('1701', n);
    await tps('1701', 1000);
    await ready(id);
    for (let k = 0; k < 40 && ((await states(id))[3] ?? 0) < 19_000; k++) await h.step();
    expect((await states(id))[3]).toBe(19_000);
    // ten a step from here: a step's own work is a few dozen rows
    await tps('1701', 10);
    await h.step();
    const before = await reads();
    const steps = 5;
    for (let k = 0; k < steps; k++) await h.step();
    const perStep = ((await reads()) - before) / steps;
    expect(await states(id)).toEqual({ 0: 940, 3: 19_060 });
    // The step's choice of its next recipients and "is any left" read the cursor's next rows and one entry of each
    // index: 81 rows a step here, the ten recipients' request, lock, answer and status by key included. Main's step
    // (0108: the next recipients and an EXISTS over the open ones, from the campaign's first open entry) read 263 to
    // 286 in the same test.
    expect(perStep).toBeLessThan(150);
    await tps('1701', 1000);
    expect(await h.runUntilStopped(id)).toBe(CampaignStatus.Finished);
    expect(await h.campaign(id)).toMatchObject({ total: n, created: n });
    expect(new Set(h.requested.map((i) => i.messageUuid)).size).toBe(n);
    expect(h.requested).toHaveLength(n);
  }, 300_000);

  it('sends the recipients held back by their hours when their window opens, each once, without reading them on every step while they wait', async () => {
    h.requested = [];
    const n = 2000;
    // 10:00 UTC Wednesday: open in London (09:00-18:00), not yet in New York (05:00; it opens at 14:00 UTC)
    const id = await h.campaign0('1801', n, { window: { start: '09:00', end: '18:00' }, contacts: (i) => ({ timezone: i % 2 ? 'America/New_York' : 'Europe/London' }) });
    await ready(id);
    for (let k = 0; k < 30 && ((await states(id))[3] ?? 0) < n / 2; k++) await h.step();
    expect(await states(id)).toEqual({ 0: n / 2, 3: n / 2 });
    expect(h.requested.every((i) => Number(i.ref) % 2 === 0)).toBe(true);
    const [{ due, times }] = await h.a.sql<{ due: Date; times: number }>(`SELECT min(due_at) AS due, count(DISTINCT due_at)::int AS times FROM campaigns.recipient WHERE campaign_id = $1 AND state = 0`, [id]);
    expect([due.toISOString(), times]).toEqual(['2026-03-04T14:00:00.000Z', 1]);
    // while New York sleeps, a step reads none of the thousand waiting recipients: 1 row a step (main's: 1,001)
    await h.step();
    const before = await reads();
    const steps = 5;
    for (let k = 0; k < steps; k++) await h.step();
    const waiting = ((await reads()) - before) / steps;
    expect(waiting).toBeLessThan(50);
    expect(h.requested).toHaveLength(n / 2);
    // the window opens: every one of them is sent, once, from then on
    h.clock.set(Date.parse('2026-03-04T14:00:01Z'));
    expect(await h.runUntilStopped(id)).toBe(CampaignStatus.Finished);
    expect(h.requested).toHaveLength(n);
    expect(new Set(h.requested.map((i) => Number(i.ref))).size).toBe(n);
    const early = await h.a.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM campaigns.recipient WHERE campaign_id = $1 AND timezone = 'America/New_York' AND (state <> 3 OR requested_at < '2026-03-04T14:00:00Z')`,
      [id],
    );
    expect(early[0].n).toBe(0);
    expect(await h.campaign(id)).toMatchObject({ total: n, created: n });
  }, 180_000);
});
