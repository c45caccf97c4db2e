import { Client } from 'pg';
import { CampaignChangedV1, MessagesAcceptedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { accepted, customer, message, sendRequested, startStats, statusChanged, type Msg, type StatsTestApp } from './support';

/**
 * docs/decisions/0205: a campaign message's variant comes on its acceptance (streams passes the request item's through),
 * so the send-batch request writes no state and a campaign message's state is written once by its acceptance and once
 * a status; with `requestStates` (while older streams run) the request writes the state first, as before. The states
 * are read without row locks: a state another replica changed between this batch's read and its write is never
 * counted twice.
 */

/** The campaign hour rollup per variant and status, rows that count. */
async function perVariant(s: StatsTestApp, account: string, campaign: string): Promise<Array<{ variant: string; status: string; messages: string; parts: string; cost: string }>> {
  return s.sql(
    `SELECT variant_id::text AS variant, status, sum(messages)::text AS messages, sum(parts)::text AS parts, sum(cost_micros)::text AS cost
       FROM stats.rollup_campaign_hour WHERE account_id = $1 AND campaign_id = $2 GROUP BY 1, 2 HAVING sum(messages) <> 0 ORDER BY 1, 2`,
    [account, campaign],
  );
}

const expected = (msgs: Msg[], status: string) =>
  [...new Set(msgs.map((m) => m.variant ?? '0'))].sort().map((variant) => {
    const of = msgs.filter((m) => (m.variant ?? '0') === variant);
    return { variant, status, messages: String(of.length), parts: String(of.reduce((a, m) => a + m.segments, 0)), cost: String(of.reduce((a, m) => a + m.priceMicros, 0)) };
  });

const states = (s: StatsTestApp, account: string) =>
  s.sql<{ variant: string | null; status: string; n: string }>(`SELECT variant_id::text AS variant, status, count(*)::text AS n FROM stats.message_state WHERE account_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`, [account]);

describe('stats: the campaign variant on the acceptance (0205)', () => {
  let s: StatsTestApp;
  beforeAll(async () => {
    s = await startStats({ cacheMs: 0 });
  });
  afterAll(async () => s?.close());

  it("counts a campaign message per variant from its acceptance; its request writes no state", async () => {
    const acc = '821';
    const campaign = '31';
    await s.publish([
      customer(acc, 'Europe/Berlin'),
      createEnvelope(CampaignChangedV1, { campaignId: campaign, accountId: acc, name: 'Spring', type: 1, status: 6, streamId: '1', deleted: false, updatedAt: new Date().toISOString() }, { accountId: acc, source: 'campaigns' }),
    ]);
    const msgs = Array.from({ length: 30 }, (_, i) => message({ account: acc, campaign, acceptedAt: '2026-05-05T10:15:00Z', variant: ['41', '42', '43'][i % 3], segments: 1 + (i % 2), priceMicros: 30_000 + i }));
    await s.publish([sendRequested(acc, campaign, msgs)]);
    expect(await states(s, acc)).toEqual([]);
    // half as per-message events, half as an accepted batch's items (docs/decisions/0181)
    const batch = createEnvelope(MessagesAcceptedV1, { items: msgs.slice(15).map((m) => ({ id: accepted(m).id, data: accepted(m).data as never })) }, { accountId: acc, source: 'streams' });
    await s.publish([...msgs.slice(0, 15).map((m) => accepted(m)), batch]);
    expect(await states(s, acc)).toEqual([
      { variant: '41', status: 'accepted', n: '10' },
      { variant: '42', status: 'accepted', n: '10' },
      { variant: '43', status: 'accepted', n: '10' },
    ]);
    await s.publish(msgs.map((m) => statusChanged(m, 'delivered')));
    // a request after the acceptance changes nothing either
    await s.publish([sendRequested(acc, campaign, msgs.map((m) => ({ ...m, variant: '49' })))]);
    expect(await perVariant(s, acc, campaign)).toEqual(expected(msgs, 'delivered'));
    const report = await s.call<{ items: Array<{ variantId: number | null; total: number }> }>('GET', `/campaign_stats/per_variant?campaign=${campaign}`, { token: s.token(acc) });
    expect(report.status).toBe(200);
    expect(report.body.items.map((x) => [x.variantId, x.total])).toEqual([
      [41, 10],
      [42, 10],
      [43, 10],
    ]);
  });

  it('never counts a state twice when another replica changes it between this batch\'s read and its write (no row locks)', async () => {
    const acc = '822';
    await s.publish([customer(acc, 'UTC')]);
    const m = message({ account: acc, acceptedAt: '2026-05-01T10:15:00.000Z', campaign: '32', variant: '44' });
    await s.publish([accepted(m)]);
    const [{ d }] = await s.sql<{ d: string }>('SELECT current_database() AS d');
    const other = new Client({ connectionString: (process.env.SWITCHBOARD_TEST_PG_URL ?? '').replace(/\/[^/]*$/, `/${d}`) });
    await other.connect();
    try {
      // another replica took the message's "sent" and moved it from accepted to sent (its state and its rollup rows),
      // not committed yet
      await other.query('BEGIN');
      await other.query(`UPDATE stats.message_state SET status = 'sent', rank = 1 WHERE message_uuid = $1`, [m.uuid]);
      await other.query(`UPDATE stats.rollup_counts_hour SET n_accepted = n_accepted - 1, n_sent = n_sent + 1 WHERE account_id = $1`, [acc]);
      await other.query(`UPDATE stats.rollup_counts_day_country SET n_accepted = n_accepted - 1, n_sent = n_sent + 1 WHERE account_id = $1`, [acc]);
      await other.query(`UPDATE stats.rollup_campaign_hour SET status = 'sent' WHERE account_id = $1`, [acc]);
      const applied = s.publish([statusChanged(m, 'delivered')]);
      // this batch reads the committed state (accepted) and its write then waits on the other's row
      for (let i = 0; i < 400; i++) {
        const waiting = await s.sql(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
        if (waiting.length) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      await other.query('COMMIT');
      await applied;
    } finally {
      await other.end();
    }
    // the delivery moved the message from the other's "sent", once: had it moved it from the "accepted" it read, the
    // hour row would count it accepted -1, sent +1 and delivered +1
    expect(await s.sql(`SELECT messages, n_accepted, n_sent, n_delivered FROM stats.rollup_counts_hour WHERE account_id = $1`, [acc])).toEqual([
      { messages: '1', n_accepted: 0, n_sent: 0, n_delivered: 1 },
    ]);
    expect(await s.sql(`SELECT sum(messages)::text AS messages, sum(n_accepted)::int AS a, sum(n_sent)::int AS s, sum(n_delivered)::int AS d FROM stats.rollup_counts_day_country WHERE account_id = $1`, [acc])).toEqual([
      { messages: '1', a: 0, s: 0, d: 1 },
    ]);
    expect(await perVariant(s, acc, '32')).toEqual(expected([m], 'delivered'));
  });
});

describe('stats: a campaign request while older streams run (requestStates, 0205)', () => {
  let s: StatsTestApp;
  beforeAll(async () => {
    s = await startStats({ cacheMs: 0, requestStates: true });
  });
  afterAll(async () => s?.close());

  it('counts per variant an older acceptance (no variant) after its request, and a newer one alike', async () => {
    const acc = '831';
    const campaign = '33';
    await s.publish([customer(acc, 'Asia/Kolkata')]);
    const msgs = Array.from({ length: 24 }, (_, i) => message({ account: acc, campaign, acceptedAt: '2026-05-05T10:15:00Z', variant: i % 2 === 0 ? '51' : '52', segments: 1 + (i % 3), priceMicros: 20_000 + i }));
    // each step in its own batch: the request writes the states (campaign and variant), as before 0205
    await s.publish([sendRequested(acc, campaign, msgs)]);
    expect(await states(s, acc)).toEqual([
      { variant: '51', status: '', n: '12' },
      { variant: '52', status: '', n: '12' },
    ]);
    // two thirds accepted by older streams (no variant on the acceptance), a third by newer ones
    await s.publish(msgs.map((m, i) => accepted(m, undefined, i % 3 !== 0)));
    await s.publish(msgs.map((m) => statusChanged(m, 'sent')));
    await s.publish(msgs.map((m) => statusChanged(m, 'delivered')));
    expect(await perVariant(s, acc, campaign)).toEqual(expected(msgs, 'delivered'));
    // an older acceptance whose request comes only after it (another partition): the request still brings the variant
    const late = message({ account: acc, campaign, acceptedAt: '2026-05-05T11:15:00Z', variant: '53' });
    await s.publish([accepted(late, undefined, true)]);
    await s.publish([sendRequested(acc, campaign, [late])]);
    await s.publish([statusChanged(late, 'delivered')]);
    expect(await perVariant(s, acc, campaign)).toEqual(expected([...msgs, late], 'delivered'));
  });
});
