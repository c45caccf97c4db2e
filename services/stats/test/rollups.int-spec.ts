import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { MessagesAcceptedV1, MessageStatusesChangedV1, type DashboardMainDto } from '@switchboard/contracts';
import { createEnvelope, laneOfKey, type BatchItem, type OutgoingEvent } from '@switchboard/platform';
import { RollupConsumer, type RollupInput } from '../src/consumers/rollup.consumer';
import { accepted, customer, message, refunded, rng, sendRequested, startStats, statusChanged, type Msg, type StatsTestApp } from './support';

const RANK: Record<string, number> = { accepted: 0, sent: 1, delivered: 2, sent_failed: 2, undelivered: 2, no_routes: 2, rejected: 2 };

/** The account's local wall time of an instant, by the runtime's own zone data (independent of PostgreSQL's). */
function local(iso: string, tz: string): { day: string; minute: number; second: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return { day: `${parts.year}-${parts.month}-${parts.day}`, minute: Number(parts.minute), second: Number(parts.second) };
}

function hourStart(iso: string, tz: string): string {
  const t = new Date(iso);
  const l = local(iso, tz);
  return new Date(t.getTime() - (l.minute * 60 + l.second) * 1000 - t.getUTCMilliseconds()).toISOString();
}

type Row = { messages: number; parts: number; cost: string };

/** The rollups recomputed from the raw events: each accepted message once, in its furthest status, cost less refunds. */
function recompute(msgs: Msg[], finals: Map<string, string>, refunds: Map<string, number>, accepts: Set<string>, tz: Record<string, string>, variants: Map<string, string>) {
  const day = new Map<string, Row>();
  const hour = new Map<string, Row>();
  const campaign = new Map<string, Row>();
  for (const m of msgs) {
    if (!accepts.has(m.uuid)) continue;
    const status = finals.get(m.uuid) ?? 'accepted';
    const cost = BigInt(m.priceMicros) - BigInt(refunds.get(m.uuid) ?? 0);
    if (m.campaign) {
      // per campaign, variant (0 when its request never came), local hour, country, status and currency
      const k = [m.account, m.campaign, variants.get(m.uuid) ?? '0', hourStart(m.acceptedAt, tz[m.account]), m.iso2 ?? '', status, m.currency].join('|');
      const r = campaign.get(k) ?? { messages: 0, parts: 0, cost: '0' };
      campaign.set(k, { messages: r.messages + 1, parts: r.parts + m.segments, cost: (BigInt(r.cost) + cost).toString() });
    }
    for (const [map, bucket] of [
      [day, local(m.acceptedAt, tz[m.account]).day],
      [hour, hourStart(m.acceptedAt, tz[m.account])],
    ] as const) {
      const k = [m.account, bucket, m.stream, m.sender, m.iso2 ?? '', status, m.currency].join('|');
      const r = map.get(k) ?? { messages: 0, parts: 0, cost: '0' };
      map.set(k, { messages: r.messages + 1, parts: r.parts + m.segments, cost: (BigInt(r.cost) + cost).toString() });
    }
  }
  return { day, hour, campaign };
}

/** A message rollup row of the count shape (docs/decisions/0131, 0132): sums over every status and a count per status. */
type CountRow = { messages: number; parts: number; cost: string; n: number[] };
const STATUS_LIST = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'];
const N_COLUMNS = STATUS_LIST.map((st) => `n_${st}`);

/** Status-keyed rows (the status the key's second last field) folded into the count shape, by key without the status. */
function fold(rows: Map<string, Row>): Map<string, CountRow> {
  const out = new Map<string, CountRow>();
  for (const [k, v] of rows) {
    const f = k.split('|');
    const [status] = f.splice(f.length - 2, 1);
    const key = f.join('|');
    const r = out.get(key) ?? { messages: 0, parts: 0, cost: '0', n: STATUS_LIST.map(() => 0) };
    r.n[STATUS_LIST.indexOf(status)] += v.messages;
    out.set(key, { messages: r.messages + v.messages, parts: r.parts + v.parts, cost: (BigInt(r.cost) + BigInt(v.cost)).toString(), n: r.n });
  }
  for (const [k, v] of out) if (v.messages === 0 && v.parts === 0 && v.cost === '0' && v.n.every((x) => x === 0)) out.delete(k);
  return out;
}

function shuffle<T>(a: T[], r: () => number): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

describe('stats: rollups from the messaging events', () => {
  let s: StatsTestApp;

  beforeAll(async () => {
    s = await startStats({ cacheMs: 0, maxBatch: 64 });
  });
  afterAll(async () => s?.close());

  /** A message rollup's rows with any column not zero, by key (the fields of `key`, joined by |) without the status. */
  const countRows = async (table: string, key: string[], accounts: string[]): Promise<Map<string, CountRow>> => {
    const rows = await s.sql<{ f: string[]; messages: string; parts: string; cost: string; n: number[] }>(
      `SELECT ARRAY[${key.map((c) => `${c}::text`).join(', ')}] AS f, messages::text, parts::text, cost_micros::text AS cost, ARRAY[${N_COLUMNS.join(', ')}]::int[] AS n
         FROM stats.${table} WHERE account_id = ANY($1::bigint[]) AND (${['messages', 'parts', 'cost_micros', ...N_COLUMNS].map((c) => `${c} <> 0`).join(' OR ')})`,
      [accounts],
    );
    return new Map(rows.map((r) => [r.f.join('|'), { messages: Number(r.messages), parts: Number(r.parts), cost: r.cost, n: r.n }]));
  };
  const hourRollup = (accounts: string[]) =>
    countRows('rollup_counts_hour', ['account_id', `to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, 'stream_id', 'sender', 'iso2', 'currency'], accounts);

  it.each([11, 12, 13])('equal a recomputation from the raw events after duplicated, reordered and late events (seed %i)', async (seed) => {
    const r = rng(seed);
    const A = String(seed * 10 + 1);
    const B = String(seed * 10 + 2);
    const tz: Record<string, string> = { [A]: 'Asia/Kolkata', [B]: 'America/Sao_Paulo' };
    await s.publish([customer(A, tz[A], 'INR'), customer(B, tz[B], 'BRL')]);
    const msgs: Msg[] = [];
    const finals = new Map<string, string>();
    const refunds = new Map<string, number>();
    const accepts = new Set<string>();
    const variants = new Map<string, string>();
    const events: Array<OutgoingEvent<unknown>> = [];
    // around Sao Paulo's DST changes of 2018-11-04 and 2019-02-17, and Kolkata's half-hour offset
    const windows = [Date.parse('2018-11-03T00:00:00Z'), Date.parse('2019-02-16T00:00:00Z'), Date.parse('2026-03-10T12:00:00Z')];
    for (let i = 0; i < 400; i++) {
      const account = r() < 0.5 ? A : B;
      const at = new Date(windows[Math.floor(r() * windows.length)] + Math.floor(r() * 3 * 86_400_000)).toISOString();
      const m = message({
        account,
        acceptedAt: at,
        stream: String(1 + Math.floor(r() * 3)),
        // any text a sender may hold travels to the rollups as it is (quotes, a comma, braces, a backslash, the word NULL)
        sender: r() < 0.5 ? 'Acme' : 'Shop "Nord", {Süd} \\ NULL',
        iso2: r() < 0.1 ? null : ['GB', 'IN', 'BR'][Math.floor(r() * 3)],
        segments: 1 + Math.floor(r() * 3),
        priceMicros: Math.floor(r() * 123_456_789),
        currency: account === A ? 'INR' : 'BRL',
        // half of them sent by a campaign of their account, in one of two variants
        campaign: r() < 0.5 ? `${account}0` : null,
        variant: r() < 0.5 ? '1' : '2',
      });
      msgs.push(m);
      // the campaign's request comes before, after or between the message's events, or (10%) never: the variant is the
      // acceptance's (docs/decisions/0205), and a request, not taken, changes nothing
      if (m.campaign) variants.set(m.uuid, m.variant as string);
      if (m.campaign && r() < 0.9) {
        const id = randomUUID();
        events.push(sendRequested(account, m.campaign, [m], id));
        if (r() < 0.3) events.push(sendRequested(account, m.campaign, [m], id)); // a redelivery
      }
      const path: string[] = ['sent'];
      const end = r();
      if (end < 0.45) path.push('delivered');
      else if (end < 0.6) path.push('undelivered');
      else if (end < 0.7) path.push('sent_failed');
      else if (end < 0.8) path.splice(0, 1, 'no_routes');
      else if (end < 0.9) path.splice(0, 1, 'rejected');
      else if (end < 0.95) path.length = 0;
      if (path.length > 0) finals.set(m.uuid, path[path.length - 1]);
      // 3% never accepted here (their acceptance is in a partition not read yet): nothing of them may count
      if (r() >= 0.03) {
        const acceptId = randomUUID();
        events.push(accepted(m, acceptId));
        accepts.add(m.uuid);
        if (r() < 0.3) events.push(accepted(m, acceptId)); // a redelivery
        if (r() < 0.05) events.push(accepted(m)); // the same acceptance published twice (a relay retry): counts once
      }
      for (const st of path) {
        const id = randomUUID();
        events.push(statusChanged(m, st as 'sent', id));
        if (r() < 0.3) events.push(statusChanged(m, st as 'sent', id)); // a redelivery
      }
      // late lower statuses under new ids (a provider's late report): never move a message back nor count it twice
      if (path.length > 0 && r() < 0.3) events.push(statusChanged(m, RANK[path[path.length - 1]] === 2 ? 'sent' : 'accepted'));
      if ((path[0] === 'no_routes' || path[0] === 'rejected') && r() < 0.8) {
        const part = Math.floor(m.priceMicros / 3);
        const ids = [randomUUID(), randomUUID()];
        events.push(refunded(m, part, ids[0]), refunded(m, m.priceMicros - part, ids[1]));
        if (r() < 0.5) events.push(refunded(m, part, ids[0])); // a redelivered refund
        refunds.set(m.uuid, m.priceMicros);
      }
    }
    shuffle(events, r);
    // in chunks of random size: batches of the consumer see each message's events in any order and split across them
    for (let i = 0; i < events.length; ) {
      const n = 1 + Math.floor(r() * 150);
      await s.publish(events.slice(i, i + n));
      i += n;
    }
    const expected = recompute(msgs, finals, refunds, accepts, tz, variants);
    const gotCampaign = await s.sql<{ k: string; messages: string; parts: string; cost: string }>(
      `SELECT concat_ws('|', account_id, campaign_id, variant_id, to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), iso2, status, currency) AS k, messages::text, parts::text, cost_micros::text AS cost
         FROM stats.rollup_campaign_hour WHERE account_id = ANY($1::bigint[]) AND (messages <> 0 OR parts <> 0 OR cost_micros <> 0)`,
      [[A, B]],
    );
    expect(new Map(gotCampaign.map((x) => [x.k, { messages: Number(x.messages), parts: Number(x.parts), cost: x.cost }]))).toEqual(expected.campaign);
    expect(expected.campaign.size).toBeGreaterThan(10);
    // the message rollups compared by key without the status: sums and every count (docs/decisions/0132)
    expect(await hourRollup([A, B])).toEqual(fold(expected.hour));
    expect(expected.hour.size).toBeGreaterThan(fold(expected.hour).size);
    // no rollup per sender and local day is kept: no report reads one (docs/decisions/0088), and its table is gone (0103)
    expect(await s.sql(`SELECT to_regclass('stats.rollup_day') AS t`)).toEqual([{ t: null }]);
    // the campaign day rollup is the campaign hour rollup summed per local date (docs/decisions/0060)
    const campaignDays = new Map<string, Row>();
    for (const [k, v] of expected.campaign) {
      const [acc, campaignId, variant, hour, iso2, status, currency] = k.split('|');
      const key = [acc, campaignId, variant, local(hour, tz[acc]).day, iso2, status, currency].join('|');
      const r0 = campaignDays.get(key) ?? { messages: 0, parts: 0, cost: '0' };
      campaignDays.set(key, { messages: r0.messages + v.messages, parts: r0.parts + v.parts, cost: (BigInt(r0.cost) + BigInt(v.cost)).toString() });
    }
    const gotCampaignDays = await s.sql<{ k: string; messages: string; parts: string; cost: string }>(
      `SELECT concat_ws('|', account_id, campaign_id, variant_id, bucket, iso2, status, currency) AS k, messages::text, parts::text, cost_micros::text AS cost
         FROM stats.rollup_campaign_day WHERE account_id = ANY($1::bigint[]) AND (messages <> 0 OR parts <> 0 OR cost_micros <> 0)`,
      [[A, B]],
    );
    expect(new Map(gotCampaignDays.map((x) => [x.k, { messages: Number(x.messages), parts: Number(x.parts), cost: x.cost }]))).toEqual(campaignDays);
    // per campaign without variant and country, per local date and per local month (docs/decisions/0077)
    for (const [table, month] of [
      ['rollup_campaign_day_total', false],
      ['rollup_campaign_month', true],
    ] as const) {
      const want = new Map<string, Row>();
      for (const [k, v] of campaignDays) {
        const [acc, campaignId, , day, , status, currency] = k.split('|');
        const key = [acc, campaignId, month ? `${day.slice(0, 7)}-01` : day, status, currency].join('|');
        const r0 = want.get(key) ?? { messages: 0, parts: 0, cost: '0' };
        want.set(key, { messages: r0.messages + v.messages, parts: r0.parts + v.parts, cost: (BigInt(r0.cost) + BigInt(v.cost)).toString() });
      }
      for (const [k, v] of want) if (v.messages === 0 && v.parts === 0 && v.cost === '0') want.delete(k);
      const gotRows = await s.sql<{ k: string; messages: string; parts: string; cost: string }>(
        `SELECT concat_ws('|', account_id, campaign_id, bucket, status, currency) AS k, messages::text, parts::text, cost_micros::text AS cost
           FROM stats.${table} WHERE account_id = ANY($1::bigint[]) AND (messages <> 0 OR parts <> 0 OR cost_micros <> 0)`,
        [[A, B]],
      );
      expect([table, new Map(gotRows.map((x) => [x.k, { messages: Number(x.messages), parts: Number(x.parts), cost: x.cost }]))]).toEqual([table, want]);
      expect(want.size).toBeGreaterThan(3);
    }
    // the day rollup without sender, per stream and country (the main figures and the top destinations over long ranges)
    const countryDays = new Map<string, Row>();
    for (const [k, v] of expected.day) {
      const [acc, day, streamId, , iso2, status, currency] = k.split('|');
      const key = [acc, day, streamId, iso2, status, currency].join('|');
      const r0 = countryDays.get(key) ?? { messages: 0, parts: 0, cost: '0' };
      countryDays.set(key, { messages: r0.messages + v.messages, parts: r0.parts + v.parts, cost: (BigInt(r0.cost) + BigInt(v.cost)).toString() });
    }
    expect(await countRows('rollup_counts_day_country', ['account_id', 'bucket', 'stream_id', 'iso2', 'currency'], [A, B])).toEqual(fold(countryDays));
    // the month rollup is the day-per-country rollup summed per local month (0070)
    for (const [table, drop] of [['rollup_counts_month_country', false]] as const) {
      const months = new Map<string, Row>();
      for (const [k, v] of countryDays) {
        const [acc, day, streamId, iso2, status, currency] = k.split('|');
        const key = [acc, `${day.slice(0, 7)}-01`, streamId, ...(drop ? [] : [iso2]), status, currency].join('|');
        const r0 = months.get(key) ?? { messages: 0, parts: 0, cost: '0' };
        months.set(key, { messages: r0.messages + v.messages, parts: r0.parts + v.parts, cost: (BigInt(r0.cost) + BigInt(v.cost)).toString() });
      }
      for (const [k, v] of months) if (v.messages === 0 && v.parts === 0 && v.cost === '0') months.delete(k);
      const gotMonths = await countRows(table, ['account_id', 'bucket', 'stream_id', ...(drop ? [] : ['iso2']), 'currency'], [A, B]);
      expect([table, gotMonths]).toEqual([table, fold(months)]);
      expect(months.size).toBeGreaterThan(5);
    }
    // no rollup per stream alone is written: the per-stream figures are the country rows summed (docs/decisions/0175)
    expect(await s.sql(`SELECT (SELECT count(*) FROM stats.rollup_counts_day_stream)::int AS days, (SELECT count(*) FROM stats.rollup_counts_month_stream)::int AS months`)).toEqual([{ days: 0, months: 0 }]);

    // and the dashboard over everything says the same, to the message and to the micro-unit
    const all = await s.call<DashboardMainDto>('POST', '/dashboard_statistics/main', { token: s.token(A), body: { type: 'all' } });
    expect(all.status).toBe(200);
    const mine = [...expected.day.entries()].filter(([k]) => k.startsWith(`${A}|`));
    expect(all.body.totals.total).toBe(mine.reduce((n, [, v]) => n + v.messages, 0));
    expect(all.body.totals.delivered).toBe(mine.filter(([k]) => k.split('|')[5] === 'delivered').reduce((n, [, v]) => n + v.messages, 0));
    const micros = mine.reduce((n, [, v]) => n + BigInt(v.cost), 0n);
    expect(all.body.cost).toEqual(micros === 0n ? [] : [expect.objectContaining({ currency: 'INR', micros: micros.toString() })]);
    expect(all.body.series.reduce((n, p) => n + p.total, 0)).toBe(all.body.totals.total);
  });
  it('counts a message once when another replica creates its state between this batch\'s lock and its write', async () => {
    const A = '91';
    await s.publish([customer(A, 'UTC')]);
    const m = message({ account: A, acceptedAt: '2026-05-01T10:15:00.000Z' });
    const [{ d }] = await s.sql<{ d: string }>('SELECT current_database() AS d');
    const other = new Client({ connectionString: (process.env.SWITCHBOARD_TEST_PG_URL ?? '').replace(/\/[^/]*$/, `/${d}`) });
    await other.connect();
    try {
      // another replica took the message's "sent" (a rebalance) and wrote its state, not committed yet
      await other.query('BEGIN');
      await other.query(`INSERT INTO stats.message_state (message_uuid, account_id, stream_id, sender, status, rank) VALUES ($1, $2, 1, 'Acme', 'sent', 1)`, [m.uuid, A]);
      const applied = s.publish([accepted(m)]);
      // this batch found no state to lock, and its insert of the whole state now waits on the other's row
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
    // the acceptance was applied to the other's state (the batch rolled back and ran again), counted once, as sent
    const [state] = await s.sql<{ status: string; accepted: string | null }>(`SELECT status, to_char(accepted_at AT TIME ZONE 'UTC', 'HH24:MI') AS accepted FROM stats.message_state WHERE message_uuid = $1`, [m.uuid]);
    expect(state).toEqual({ status: 'sent', accepted: '10:15' });
    expect(await hourRollup([A])).toEqual(fold(new Map([[[A, '2026-05-01T10:00:00.000Z', '1', 'Acme', 'GB', 'sent', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }]])));
  });

  it('reads and writes a message\'s state once when its acceptance and statuses wait in the queue beyond one batch (its events in one batch)', async () => {
    const A = '92';
    await s.publish([customer(A, 'UTC')]);
    const msgs = Array.from({ length: 100 }, (_, i) => message({ account: A, acceptedAt: new Date(Date.parse('2026-05-02T10:00:00.000Z') + i * 60_000).toISOString() }));
    const consumer = s.t.app.get(RollupConsumer) as unknown as { apply: (m: unknown, items: Array<BatchItem<RollupInput>>) => Promise<void> };
    const batches: string[][] = [];
    const apply = consumer.apply.bind(consumer);
    const spy = jest.spyOn(consumer, 'apply').mockImplementation(async (m, items) => {
      batches.push(items.flatMap((i) => (i.data.kind === 'requested' ? [] : [i.data.d.messageUuid])));
      return apply(m, items);
    });
    try {
      // 300 events in one publish, five batches' worth (maxBatch 64): the acceptances first, then the statuses, as two
      // partitions' chunks arrive
      await s.publish([...msgs.map((m) => accepted(m)), ...msgs.map((m) => statusChanged(m, 'sent')), ...msgs.map((m) => statusChanged(m, 'delivered'))]);
    } finally {
      spy.mockRestore();
    }
    expect(batches.flat()).toHaveLength(300);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(64);
    // each message's three events were applied in one batch
    for (const m of msgs) expect(batches.filter((b) => b.includes(m.uuid)).map((b) => b.filter((u) => u === m.uuid).length)).toEqual([3]);
    const [{ n, other }] = await s.sql<{ n: string; other: string }>(
      `SELECT sum(n_delivered)::text AS n, sum(abs(messages - n_delivered) + abs(n_accepted) + abs(n_sent) + abs(n_sent_failed) + abs(n_undelivered) + abs(n_no_routes) + abs(n_rejected))::text AS other
         FROM stats.rollup_counts_hour WHERE account_id = $1`,
      [A],
    );
    expect(n).toBe('100');
    expect(other).toBe('0');
  });
  it('sets only the status of a known message whose status alone moved, and the whole state when more changed, counting each message once', async () => {
    const A = '93';
    await s.publish([customer(A, 'UTC')]);
    const [m1, m2, m3] = [0, 1, 2].map((i) => message({ account: A, acceptedAt: `2026-05-03T1${i}:00:00.000Z` }));
    // records the states an UPDATE rewrote beyond their status (an UPDATE OF trigger fires for the columns it sets)
    await s.sql(`CREATE TABLE IF NOT EXISTS public.wide_state_writes (u uuid)`);
    await s.sql(`CREATE OR REPLACE FUNCTION public.note_wide_state_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO public.wide_state_writes VALUES (NEW.message_uuid); RETURN NEW; END $$`);
    await s.sql(`CREATE TRIGGER wide_state_write AFTER UPDATE OF stream_id, sender, iso2, accepted_at, hour_bucket, day_bucket, segments, price_micros, refunded_micros, currency, campaign_id, variant_id, destination
                 ON stats.message_state FOR EACH ROW EXECUTE FUNCTION public.note_wide_state_write()`);
    try {
      await s.publish([accepted(m1), accepted(m2), statusChanged(m3, 'sent')]);
      // later batches: m1's statuses (late, one of them twice, and an older one after a newer), m2's refund, m3's acceptance
      await s.publish([statusChanged(m1, 'sent')]);
      await s.publish([statusChanged(m1, 'delivered'), statusChanged(m1, 'delivered')]);
      await s.publish([statusChanged(m1, 'sent'), refunded(m2, 20_000), accepted(m3)]);
    } finally {
      await s.sql(`DROP TRIGGER wide_state_write ON stats.message_state`);
    }
    const wide = await s.sql<{ u: string }>(`SELECT DISTINCT u::text FROM public.wide_state_writes`);
    expect(wide.map((w) => w.u).sort()).toEqual([m2.uuid, m3.uuid].sort());
    const states = await s.sql<{ u: string; status: string; rank: number; refunded: string }>(
      `SELECT message_uuid::text AS u, status, rank, refunded_micros::text AS refunded FROM stats.message_state WHERE message_uuid = ANY($1::uuid[]) ORDER BY accepted_at`,
      [[m1.uuid, m2.uuid, m3.uuid]],
    );
    expect(states).toEqual([
      { u: m1.uuid, status: 'delivered', rank: 2, refunded: '0' },
      { u: m2.uuid, status: 'accepted', rank: 0, refunded: '20000' },
      { u: m3.uuid, status: 'sent', rank: 1, refunded: '0' },
    ]);
    expect(await hourRollup([A])).toEqual(
      fold(
        new Map([
          [[A, '2026-05-03T10:00:00.000Z', '1', 'Acme', 'GB', 'delivered', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
          [[A, '2026-05-03T11:00:00.000Z', '1', 'Acme', 'GB', 'accepted', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '30000' }],
          [[A, '2026-05-03T12:00:00.000Z', '1', 'Acme', 'GB', 'sent', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
        ]),
      ),
    );
  });

  it("takes dispatch's batch of statuses (0173): each item counted under its own account, a redelivered batch counts nothing, the per-message form still counts", async () => {
    const [A, B] = ['96', '97'];
    await s.publish([customer(A, 'UTC'), customer(B, 'UTC')]);
    const [mA, mB, mC] = [
      message({ account: A, acceptedAt: '2026-05-04T10:00:00.000Z' }),
      message({ account: B, acceptedAt: '2026-05-04T11:00:00.000Z' }),
      message({ account: A, acceptedAt: '2026-05-04T12:00:00.000Z' }),
    ];
    await s.publish([accepted(mA), accepted(mB), accepted(mC)]);
    // a batch mixing accounts: its envelope names none
    const items = [statusChanged(mA, 'delivered'), statusChanged(mB, 'sent'), statusChanged(mC, 'sent')].map((e) => ({ id: e.id, data: e.data }));
    const batch = createEnvelope(MessageStatusesChangedV1, { items }, { accountId: null, source: 'dispatch' });
    await s.publish([batch]);
    await s.publish([batch]);
    await s.publish([statusChanged(mC, 'delivered')]);
    expect(await hourRollup([A, B])).toEqual(
      fold(
        new Map([
          [[A, '2026-05-04T10:00:00.000Z', '1', 'Acme', 'GB', 'delivered', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
          [[B, '2026-05-04T11:00:00.000Z', '1', 'Acme', 'GB', 'sent', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
          [[A, '2026-05-04T12:00:00.000Z', '1', 'Acme', 'GB', 'delivered', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
        ]),
      ),
    );
  });

  it("takes streams' batch of accepted messages (0181): each item counted once under its own account, a redelivered batch or the per-message form after it counts nothing again", async () => {
    const [A, B] = ['86', '87'];
    await s.publish([customer(A, 'UTC'), customer(B, 'UTC')]);
    const msgs = [
      message({ account: A, acceptedAt: '2026-05-05T10:00:00.000Z' }),
      message({ account: A, acceptedAt: '2026-05-05T10:10:00.000Z' }),
      message({ account: A, acceptedAt: '2026-05-05T11:00:00.000Z' }),
    ];
    const items = msgs.map((m) => accepted(m)).map((e) => ({ id: e.id, data: e.data }));
    const batch = createEnvelope(MessagesAcceptedV1, { items }, { accountId: A, source: 'streams' });
    await s.publish([batch]);
    await s.publish([batch]);
    await s.publish([{ ...accepted(msgs[1], items[1].id) }, statusChanged(msgs[0], 'delivered')]);
    // another account's batch in the same chunk as a per-message acceptance
    const mB = message({ account: B, acceptedAt: '2026-05-05T10:30:00.000Z' });
    const mB2 = message({ account: B, acceptedAt: '2026-05-05T10:40:00.000Z' });
    await s.publish([createEnvelope(MessagesAcceptedV1, { items: [{ id: accepted(mB).id, data: accepted(mB).data }] }, { accountId: B, source: 'streams' }), accepted(mB2)]);
    expect(await hourRollup([A, B])).toEqual(
      fold(
        new Map([
          [[A, '2026-05-05T10:00:00.000Z', '1', 'Acme', 'GB', 'delivered', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
          [[A, '2026-05-05T10:00:00.000Z', '1', 'Acme', 'GB', 'accepted', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
          [[A, '2026-05-05T11:00:00.000Z', '1', 'Acme', 'GB', 'accepted', 'EUR'].join('|'), { messages: 1, parts: 1, cost: '50000' }],
          [[B, '2026-05-05T10:00:00.000Z', '1', 'Acme', 'GB', 'accepted', 'EUR'].join('|'), { messages: 2, parts: 2, cost: '100000' }],
        ]),
      ),
    );
  });

  it("counts an accepted batch's good items when one is bad (another account, malformed), and dead-letters the batch naming it", async () => {
    const [A, B] = ['88', '89'];
    await s.publish([customer(A, 'UTC'), customer(B, 'UTC')]);
    const good = [message({ account: A, acceptedAt: '2026-05-06T10:00:00.000Z' }), message({ account: A, acceptedAt: '2026-05-06T10:05:00.000Z' })];
    const foreign = accepted(message({ account: B, acceptedAt: '2026-05-06T10:10:00.000Z' }));
    const malformed = accepted(message({ account: A, acceptedAt: '2026-05-06T10:15:00.000Z' }));
    const items = [accepted(good[0]), foreign, malformed, accepted(good[1])].map((e) => ({ id: e.id, data: e.data as unknown }));
    items[2].data = { ...(malformed.data as object), segments: 'one' };
    const batch = { ...createEnvelope(MessagesAcceptedV1, { items: [{ id: foreign.id, data: accepted(good[0]).data }] }, { accountId: A, source: 'streams' }), data: { items } };
    await s.publish([batch]);
    expect(await hourRollup([A, B])).toEqual(fold(new Map([[[A, '2026-05-06T10:00:00.000Z', '1', 'Acme', 'GB', 'accepted', 'EUR'].join('|'), { messages: 2, parts: 2, cost: '100000' }]])));
    const dead = await s.sql<{ error: string }>(`SELECT error FROM stats.dead_letter WHERE event_id = $1`, [batch.id]);
    expect(dead).toHaveLength(1);
    expect(dead[0].error).toContain('2 of its items not counted');
    expect(dead[0].error).toContain(foreign.id);
    expect(dead[0].error).toContain(malformed.id);
  });

  it('sums an hour row\'s messages of two local dates in one batch when the account\'s zone changed between their acceptances, each date\'s rollups exact', async () => {
    const A = '94';
    await s.publish([customer(A, 'UTC')]);
    // 02:10 UTC: 4 May in UTC; its hour starts at 02:00 UTC
    const m1 = message({ account: A, acceptedAt: '2026-05-04T02:10:00.000Z' });
    await s.publish([accepted(m1)]);
    // the zone changes: 02:20 UTC is 23:20 on 3 May in São Paulo, an hour that also starts at 02:00 UTC
    await s.publish([customer(A, 'America/Sao_Paulo')]);
    const m2 = message({ account: A, acceptedAt: '2026-05-04T02:20:00.000Z' });
    const consumer = s.t.app.get(RollupConsumer) as unknown as { apply: (m: unknown, items: Array<BatchItem<RollupInput>>) => Promise<void> };
    const apply = consumer.apply.bind(consumer);
    const outcomes: string[] = [];
    const spy = jest.spyOn(consumer, 'apply').mockImplementation(async (m, items) => {
      try {
        await apply(m, items);
        outcomes.push(`applied ${items.length}`);
      } catch (e) {
        outcomes.push(`failed ${items.length}`);
        throw e;
      }
    });
    try {
      // one batch: m1 moves from accepted to delivered, m2 is accepted and delivered; both land on one hour row
      await s.publish([statusChanged(m1, 'delivered'), accepted(m2), statusChanged(m2, 'delivered')]);
    } finally {
      spy.mockRestore();
    }
    // the batch was written at once (not failed and applied again event by event)
    expect(outcomes).toEqual(['applied 3']);
    expect(await hourRollup([A])).toEqual(fold(new Map([[[A, '2026-05-04T02:00:00.000Z', '1', 'Acme', 'GB', 'delivered', 'EUR'].join('|'), { messages: 2, parts: 2, cost: '100000' }]])));
    const days = await s.sql<{ bucket: string; delivered: string; messages: string }>(
      `SELECT bucket::text, n_delivered::text AS delivered, messages::text FROM stats.rollup_counts_day_country WHERE account_id = $1 AND messages <> 0 ORDER BY bucket`,
      [A],
    );
    expect(days).toEqual([
      { bucket: '2026-05-03', delivered: '1', messages: '1' },
      { bucket: '2026-05-04', delivered: '1', messages: '1' },
    ]);
    const countries = await s.sql<{ bucket: string; messages: string }>(`SELECT bucket::text, messages::text FROM stats.rollup_counts_day_country WHERE account_id = $1 AND messages <> 0 ORDER BY bucket`, [A]);
    expect(countries).toEqual([
      { bucket: '2026-05-03', messages: '1' },
      { bucket: '2026-05-04', messages: '1' },
    ]);
  });

  it("rolls up two lanes of accounts at once, each batch one lane's accounts, a campaign's request with its messages' events and no batch applied again", async () => {
    // accounts in both lanes (docs/decisions/0174: an account's events always in one lane)
    const accounts = Array.from({ length: 8 }, (_, i) => String(960 + i));
    expect(new Set(accounts.map((a) => laneOfKey(a, 2))).size).toBe(2);
    await s.publish(accounts.map((a) => customer(a, 'UTC')));
    const msgs = accounts.flatMap((a) => Array.from({ length: 6 }, (_, i) => message({ account: a, acceptedAt: '2026-05-06T10:15:00.000Z', campaign: '501', variant: String(1 + (i % 2)) })));
    const consumer = s.t.app.get(RollupConsumer) as unknown as { apply: (m: unknown, items: Array<BatchItem<RollupInput>>) => Promise<void> };
    const apply = consumer.apply.bind(consumer);
    const batches: Array<Set<number>> = [];
    const failed: number[] = [];
    const spy = jest.spyOn(consumer, 'apply').mockImplementation(async (m, items) => {
      batches.push(new Set(items.map((it) => laneOfKey(it.data.d.accountId, 2))));
      try {
        await apply(m, items);
      } catch (e) {
        failed.push(items.length);
        throw e;
      }
    });
    try {
      await s.publish([...accounts.map((a) => sendRequested(a, '501', msgs.filter((m) => m.account === a))), ...msgs.map((m) => accepted(m)), ...msgs.map((m) => statusChanged(m, 'delivered'))]);
    } finally {
      spy.mockRestore();
    }
    expect(failed).toEqual([]);
    expect(batches.length).toBeGreaterThanOrEqual(2);
    for (const lanes of batches) expect(lanes.size).toBe(1);
    const rows = await s.sql<{ variant: string; delivered: string }>(
      `SELECT variant_id::text AS variant, sum(messages)::text AS delivered FROM stats.rollup_campaign_hour
        WHERE account_id = ANY($1::bigint[]) AND campaign_id = 501 AND status = 'delivered' GROUP BY 1 ORDER BY 1`,
      [accounts],
    );
    expect(rows).toEqual([
      { variant: '1', delivered: '24' },
      { variant: '2', delivered: '24' },
    ]);
  });
});
