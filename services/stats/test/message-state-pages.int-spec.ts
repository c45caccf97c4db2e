import { accepted, customer, message, sendRequested, startStats, statusChanged, type Msg, type StatsTestApp } from './support';

/**
 * A campaign message's state (docs/decisions/0201, 0205): its send-batch request writes none, its acceptance (which
 * carries the variant) inserts it whole and its statuses move it, each in a later batch. Every figure stays exact
 * whatever the repetition and order of the events, and the later versions stay on the page the acceptance wrote
 * (heap-only updates: no new primary-key entry), which fillfactor 40 leaves room for.
 */
describe('stats: a campaign message state through its batches', () => {
  let s: StatsTestApp;
  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
  });
  afterAll(async () => s?.close());

  it('counts every message once in its furthest status, redelivered and out of order, and keeps its state on its page', async () => {
    const acc = '811';
    const campaign = '91';
    await s.publish([customer(acc, 'Europe/Berlin')]);
    const msgs: Msg[] = Array.from({ length: 180 }, (_, i) =>
      message({ account: acc, acceptedAt: '2026-05-04T10:15:00Z', campaign, variant: i % 2 === 0 ? '21' : '22', priceMicros: 40_000 + i, segments: 1 + (i % 3) }),
    );
    // a third delivered after sent, a third delivered before a late sent, a third only sent
    const group = (i: number) => i % 3;
    const pages = async () =>
      new Map(
        (await s.sql<{ u: string; page: string }>(`SELECT message_uuid::text AS u, (ctid::text::point)[0]::text AS page FROM stats.message_state WHERE account_id = $1`, [acc])).map((r) => [r.u, r.page]),
      );
    const [{ ff }] = await s.sql<{ ff: string }>(`SELECT array_to_string(reloptions, ',') AS ff FROM pg_class WHERE oid = 'stats.message_state'::regclass`);
    expect(ff).toContain('fillfactor=40');

    // each step in its own batch, each event given twice (a redelivery) and the step's first event again in the next
    await s.publish([sendRequested(acc, campaign, msgs), sendRequested(acc, campaign, msgs)]);
    // the request writes no state (0205): the acceptance brings the variant
    expect((await pages()).size).toBe(0);
    await s.publish([...msgs.map((m) => accepted(m)), ...msgs.map((m) => accepted(m)), sendRequested(acc, campaign, msgs.slice(0, 5))]);
    const first = await pages();
    expect(first.size).toBe(180);
    await s.publish(msgs.flatMap((m, i) => (group(i) === 1 ? [statusChanged(m, 'delivered'), statusChanged(m, 'delivered')] : [statusChanged(m, 'sent'), statusChanged(m, 'sent')])));
    await s.publish([...msgs.flatMap((m, i) => (group(i) === 0 ? [statusChanged(m, 'delivered')] : group(i) === 1 ? [statusChanged(m, 'sent')] : [])), accepted(msgs[0]), statusChanged(msgs[1], 'delivered')]);
    await s.publish(msgs.filter((_, i) => group(i) === 0).map((m) => statusChanged(m, 'delivered')));

    const last = await pages();
    const stayed = [...first].filter(([u, page]) => last.get(u) === page).length;
    // heap-only updates keep a row on its page: every state here at fillfactor 40 (the statuses only move the status)
    expect(stayed).toBeGreaterThanOrEqual(120);

    const delivered = msgs.filter((_, i) => group(i) !== 2);
    const sum = (list: Msg[], f: (m: Msg) => number) => String(list.reduce((a, m) => a + f(m), 0));
    expect(
      await s.sql(
        `SELECT sum(messages)::text AS messages, sum(parts)::text AS parts, sum(cost_micros)::text AS cost, sum(n_accepted)::text AS accepted, sum(n_sent)::text AS sent, sum(n_delivered)::text AS delivered
           FROM stats.rollup_counts_hour WHERE account_id = $1`,
        [acc],
      ),
    ).toEqual([{ messages: '180', parts: sum(msgs, (m) => m.segments), cost: sum(msgs, (m) => m.priceMicros), accepted: '0', sent: '60', delivered: '120' }]);
    for (const table of ['rollup_counts_day_country', 'rollup_counts_month_country']) {
      const [r] = await s.sql<{ messages: string; sent: string; delivered: string }>(
        `SELECT sum(messages)::text AS messages, sum(n_sent)::text AS sent, sum(n_delivered)::text AS delivered FROM stats.${table} WHERE account_id = $1`,
        [acc],
      );
      expect(r).toEqual({ messages: '180', sent: '60', delivered: '120' });
    }
    // the campaign rollups per variant and status: only rows that count (a moved message's old row sums to zero)
    const byVariant = (variant: string, status: string, list: Msg[]) => {
      const of = list.filter((m) => m.variant === variant);
      return { variant, status, messages: String(of.length), parts: sum(of, (m) => m.segments), cost: sum(of, (m) => m.priceMicros) };
    };
    expect(
      await s.sql(
        `SELECT variant_id::text AS variant, status, sum(messages)::text AS messages, sum(parts)::text AS parts, sum(cost_micros)::text AS cost
           FROM stats.rollup_campaign_hour WHERE account_id = $1 AND campaign_id = $2 GROUP BY 1, 2 HAVING sum(messages) <> 0 ORDER BY 1, 2`,
        [acc, campaign],
      ),
    ).toEqual([
      byVariant('21', 'delivered', delivered),
      byVariant('21', 'sent', msgs.filter((_, i) => group(i) === 2)),
      byVariant('22', 'delivered', delivered),
      byVariant('22', 'sent', msgs.filter((_, i) => group(i) === 2)),
    ]);
    expect(await s.sql(`SELECT status, count(*)::text AS n FROM stats.message_state WHERE account_id = $1 GROUP BY 1 ORDER BY 1`, [acc])).toEqual([
      { status: 'delivered', n: '120' },
      { status: 'sent', n: '60' },
    ]);
  });
});
