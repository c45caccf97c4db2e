import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MessageStatusChangedV1, SendBatchProcessedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { RunnerConsumers } from '../src/run/runner.consumers';
import { RunnerHarness } from './runner-harness';

const N = 200;

/**
 * The status group commit against streams' answer for the same recipients, run at once (docs/decisions/0066). The
 * group commit locks its recipients by (campaign, ordinal); the answer's UPDATE locked them in its plan's order (its
 * items' order when the recipients are hashed, the table's when they are scanned: on a large campaign, a sequential or
 * bitmap scan), so the two met in the middle: `deadlock detected`, the group commit rolled back (the crash drill's
 * deadlock). A blocker holds the middle recipient so that both are under way when it lets go.
 */
describe('recipient writers lock in one order', () => {
  const h = new RunnerHarness();
  let blocker: Client;
  let watcher: Client;

  beforeAll(async () => {
    await h.start();
    blocker = new Client({ connectionString: h.a.t.db.url });
    watcher = new Client({ connectionString: h.a.t.db.url });
    await Promise.all([blocker.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await blocker?.end();
    await watcher?.end();
    await h.close();
  });

  /** A sending campaign whose N recipients streams was asked for; stored in descending ordinals (the table's order is not the ordinals'). */
  async function requested(acc: string, n = N): Promise<{ id: string; uuids: string[] }> {
    const id = await h.campaign0(acc, 0);
    const [{ variant }] = await h.a.sql<{ variant: string }>(`SELECT id::text AS variant FROM campaigns.campaign_variant WHERE campaign_id = $1`, [id]);
    await h.a.sql(`UPDATE campaigns.campaign SET status = 6 WHERE id = $1`, [id]);
    await h.a.sql(`INSERT INTO campaigns.run (campaign_id, account_id, request_id, batch_size, audience_total, audience_received) VALUES ($1, $2, $3, 2000, $4, $4)`, [id, acc, randomUUID(), n]);
    const uuids = Array.from({ length: n }, () => randomUUID());
    await h.a.sql(
      `INSERT INTO campaigns.recipient (campaign_id, ordinal, account_id, contact_id, occurrence, message_uuid, phone, timezone, state, batch_id, requested_at, flight_at, variant_id, segments)
       SELECT $1, o, $2, o + 1, 0, ($3::uuid[])[o + 1], '+4474' || lpad(o::text, 8, '0'), 'Europe/London', 2, $4, $5, $5, $6, 1 FROM generate_series($7::int - 1, 0, -1) o`,
      [id, acc, uuids, randomUUID(), new Date(h.clock.now().getTime() - 3_600_000), variant, n],
    );
    return { id, uuids };
  }

  const status = (acc: string, campaignId: string, uuid: string, st: 'sent' | 'delivered' = 'sent') =>
    createEnvelope(
      MessageStatusChangedV1,
      { messageUuid: uuid, accountId: acc, streamId: `${acc}1`, streamUid: 'x', campaignId, sender: 'Acme', destination: '+447400000000', status: st, outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString() },
      { accountId: acc, source: 'dispatch' },
    );

  /** Runs `a` and `b` while the blocker holds the middle recipient, lets go once both wait on a lock, and gives each one's outcome. */
  async function race(campaignId: string, a: () => Promise<unknown>, b: () => Promise<unknown>, middle = N / 2, ...more: Array<() => Promise<unknown>>): Promise<Array<string>> {
    await blocker.query('BEGIN');
    await blocker.query(`SELECT 1 FROM campaigns.recipient WHERE campaign_id = $1 AND ordinal = $2 FOR UPDATE`, [campaignId, middle]);
    const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (e: Error) => e.message);
    const ps = [a, b, ...more].map((f) => outcome(f()));
    const end = Date.now() + 60_000;
    for (;;) {
      const { rows } = await watcher.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
      if (rows[0].n >= ps.length) break;
      if (Date.now() > end) throw new Error(`the two writers never both waited on a lock (${rows[0].n} waiting)`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await blocker.query('COMMIT');
    return Promise.all(ps);
  }

  it('counts dispatch’s statuses while streams’ answer for the same recipients is applied, whatever the order of its items (the status group commit against the answer)', async () => {
    const acc = '802';
    const { id, uuids } = await requested(acc);
    const consumers = h.a.t.app.get(RunnerConsumers);
    const [{ batch }] = await h.a.sql<{ batch: string }>(`SELECT batch_id::text AS batch FROM campaigns.recipient WHERE campaign_id = $1 LIMIT 1`, [id]);
    const answer = createEnvelope(
      SendBatchProcessedV1,
      {
        batchId: batch,
        requester: 'campaigns' as const,
        accountId: acc,
        streamId: `${acc}1`,
        campaignId: id,
        // streams' answer promises no order: here the last recipient first
        items: [...uuids].reverse().map((u, k) => ({ ref: String(N - 1 - k), messageUuid: u, outcome: 'accepted' as const, refusal: null, code: null, priceMicros: 10_000, currency: 'EUR', segments: 1 })),
      },
      { accountId: acc, source: 'streams' },
    );
    const outcomes = await race(
      id,
      () => Promise.all(uuids.map((u) => consumers.onStatus(status(acc, id, u)))),
      () => consumers.onAnswer(answer),
    );
    expect(outcomes).toEqual(['ok', 'ok']);
    const [row] = await h.a.sql<{ accepted: number; sent: number }>(`SELECT count(*) FILTER (WHERE state = 3)::int AS accepted, count(*) FILTER (WHERE status = 'sent')::int AS sent FROM campaigns.recipient WHERE campaign_id = $1`, [id]);
    expect({ row, campaign: await h.campaign(id) }).toMatchObject({ row: { accepted: N, sent: N }, campaign: { created: N, sent: N } });
  });

  it('counts dispatch’s statuses while the runner asks streams again for the same unanswered recipients, on a campaign the planner scans in the table’s order (the status group commit against the stale-request resend)', async () => {
    // large enough, and analysed, that the resend's plan reads the campaign's recipients in the table's order (a
    // sequential or bitmap scan), which is the reverse of the ordinals here; the status group commit takes them in
    // ordinal order. Unordered, the two meet in the middle: `deadlock detected`.
    const n = 3000;
    const acc = '803';
    const { id, uuids } = await requested(acc, n);
    await h.a.sql(`ANALYZE campaigns.recipient`);
    const stale = new Date(h.clock.now().getTime() - 60_000);
    const scan = await h.a.sql<{ ordinal: number }>(`SELECT ordinal FROM campaigns.recipient WHERE campaign_id = $1 AND flight_at < $2 AND state IN (1, 2) LIMIT 3`, [id, stale]);
    const plan = await h.a.sql<{ 'QUERY PLAN': string }>(`EXPLAIN UPDATE campaigns.recipient SET state = 0, batch_id = NULL, flight_at = NULL WHERE campaign_id = $1 AND flight_at < $2 AND state IN (1, 2)`, [id, stale]);
    // the premise: the resend's rows, unordered, come in an order other than (campaign, ordinal)
    expect({ first: scan.map((r) => Number(r.ordinal)), plan: plan.map((p) => p['QUERY PLAN']).join('\n') }).toMatchObject({ first: [n - 1, n - 2, n - 3] });
    const consumers = h.a.t.app.get(RunnerConsumers);
    const outcomes = await race(
      id,
      () => Promise.all(uuids.map((u) => consumers.onStatus(status(acc, id, u)))),
      () => h.runner.step(id),
      n / 2,
    );
    expect(outcomes).toEqual(['ok', 'ok']);
    await h.settle();
    // every recipient counted sent once, the resend went through (none left requested from before), and streams was asked again
    const [row] = await h.a.sql<{ sent: number; stale: number }>(
      `SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*) FILTER (WHERE state IN (1, 2) AND requested_at < $2)::int AS stale FROM campaigns.recipient WHERE campaign_id = $1`,
      [id, stale],
    );
    expect({ row, campaign: await h.campaign(id), asked: h.requested.filter((i) => uuids.includes(i.messageUuid)).length > 0 }).toMatchObject({ row: { sent: n, stale: 0 }, campaign: { sent: n }, asked: true });
  });
  /** Another replica's status consumer (its own group commit) on the same database. */
  const replica = (c: RunnerConsumers): RunnerConsumers => {
    const d = c as unknown as Record<'ds' | 'bus' | 'roles' | 'db' | 'uow' | 'clock', unknown>;
    const Ctor = RunnerConsumers as unknown as new (...a: unknown[]) => RunnerConsumers;
    return new Ctor(d.ds, d.bus, d.roles, d.db, d.uow, d.clock);
  };

  it('counts each status once when two replicas’ status groups and a redelivery move the same recipients at once (docs/decisions/0219)', async () => {
    const acc = '804';
    const { id, uuids } = await requested(acc);
    const [{ sender }] = await h.a.sql<{ sender: string }>(`SELECT sender_id::text AS sender FROM campaigns.campaign_sender WHERE campaign_id = $1`, [id]);
    await h.a.sql(`UPDATE campaigns.recipient SET state = 3, sender_id = $2 WHERE campaign_id = $1`, [id, sender]);
    const one = h.a.t.app.get(RunnerConsumers);
    const [two, three] = [replica(one), replica(one)];
    // each group's items in another order (the group sorts them; the rows are stored in descending ordinals)
    const shuffled = (xs: string[], k: number) => xs.map((u, i) => xs[(i * 7 + k) % xs.length]);
    const outcomes = await race(
      id,
      () => Promise.all(shuffled(uuids, 1).map((u) => one.onStatus(status(acc, id, u)))),
      () => Promise.all(shuffled(uuids, 2).map((u) => two.onStatus(status(acc, id, u, 'delivered')))),
      N / 2,
      // the first group's events again, on a third replica (a redelivery racing the original)
      () => Promise.all(shuffled(uuids, 3).map((u) => three.onStatus(status(acc, id, u)))),
    );
    expect(outcomes).toEqual(['ok', 'ok', 'ok']);
    // and both statuses once more after everything committed: they move and count nothing
    await Promise.all(uuids.map((u) => three.onStatus(status(acc, id, u, 'delivered'))));
    await Promise.all(uuids.map((u) => one.onStatus(status(acc, id, u))));
    const [row] = await h.a.sql<{ delivered: number }>(`SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM campaigns.recipient WHERE campaign_id = $1`, [id]);
    const [counters] = await h.a.sql(
      `SELECT c.sent::int, c.delivered::int, c.left_dispatch::int, v.sent::int AS variant_sent, v.delivered::int AS variant_delivered, s.sent::int AS sender_sent, s.delivered::int AS sender_delivered
         FROM campaigns.campaign c JOIN campaigns.campaign_variant v ON v.campaign_id = c.id JOIN campaigns.campaign_sender s ON s.campaign_id = c.id WHERE c.id = $1`,
      [id],
    );
    expect({ row, counters }).toEqual({ row: { delivered: N }, counters: { sent: N, delivered: N, left_dispatch: N, variant_sent: N, variant_delivered: N, sender_sent: N, sender_delivered: N } });
  });

});
