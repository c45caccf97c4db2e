import type { EntityManager } from 'typeorm';
import type { BatchItem } from '@switchboard/platform';
import { applyRollupBatch, type RollupInput } from '../src/consumers/rollup-batch';
import { isoInstant } from '../src/consumers/time-buckets';

/**
 * The rollup batch's node work in small functions (docs/decisions/0213), against a fake transaction: what the read
 * answers is given, and what the batch writes (the write's parameters) is checked, for each kind of event and the
 * paths first taken late in a process (refunds, statuses before their acceptance, redeliveries, another account's
 * event, a uuid in another spelling, a status moving back). The rollups' exactness against PostgreSQL is in
 * rollups.int-spec.ts (duplicated, reordered and late events); this pins each fold and delta to its row.
 */

const A = '42';
const CAMPAIGN = '900';
const HOUR = '2026-11-29T10:00:00.000Z';
const DAY = '2026-11-29';
const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

type Row = Record<string, unknown>;

/**
 * The read's row of a message: its found state, or nothing when it has none (docs/decisions/0218: only found states
 * come back; the acceptances' buckets are node's, in the account's zone, UTC for an account without a zone row).
 */
function row(o: number, u: string, state: { status: string; rank: number; refunded?: string; account?: string } | null): Row | null {
  if (state === null) return null;
  return {
    o,
    message_uuid: u,
    x: String(500 + o),
    account_id: state.account ?? A,
    stream_id: '7',
    sender: 'Acme',
    iso2: 'GB',
    status: state.status,
    rank: state.rank,
    accepted_at: '2026-11-29T10:15:00.000Z',
    hour_bucket: HOUR,
    day_bucket: DAY,
    segments: 2,
    price_micros: '30000',
    refunded_micros: state.refunded ?? '0',
    currency: 'EUR',
    campaign_id: CAMPAIGN,
    variant_id: '5',
    destination: '+447900000001',
    tz: null,
  };
}

/** An account's time zone as the read answers it. */
const zoneRow = (account: string, tz: string): Row => ({ ...(row(-1, '', { status: '', rank: 0, account }) as Row), x: null, tz });

const acceptedItem = (u: string, account = A, acceptedAt = '2026-11-29T10:15:00.000Z'): BatchItem<RollupInput> => ({
  event: { id: `a-${u}` },
  data: {
    kind: 'accepted',
    d: {
      messageUuid: u,
      accountId: account,
      streamId: '7',
      streamUid: 's7',
      streamType: 1,
      channel: 'sms',
      sender: 'Acme',
      destination: '+447900000001',
      iso2: 'GB',
      text: 'hi',
      encoding: 'GSM7',
      segments: 2,
      priceMicros: 30000,
      currency: 'EUR',
      payload: null,
      campaignId: CAMPAIGN,
      notBefore: null,
      acceptedAt,
      variantId: '5',
    } as never,
  },
});

const statusItem = (u: string, status: string, account = A): BatchItem<RollupInput> => ({
  event: { id: `s-${u}-${status}` },
  data: { kind: 'status', d: { messageUuid: u, accountId: account, streamId: '7', sender: 'Acme', status, parts: 2 } as never },
});

const refundItem = (u: string, amount: number): BatchItem<RollupInput> => ({
  event: { id: `r-${u}` },
  data: { kind: 'refund', d: { messageUuid: u, accountId: A, amountMicros: amount, currency: 'EUR', balanceAfterMicros: 0, reason: 'undelivered' } as never },
});

/** An array literal's elements (plain or pgArray's quoting; NULL as null). */
function elements(literal: unknown): Array<string | null> {
  const s = String(literal);
  if (s === '{}') return [];
  return s
    .slice(1, -1)
    .split(',')
    .map((x) => (x === 'NULL' ? null : x.replace(/^"(.*)"$/, '$1')));
}

interface Written {
  reads: number;
  /** The read's parameters. */
  read?: unknown[];
  /** The write's parameters, or null when the batch wrote nothing. */
  values: unknown[] | null;
}

async function runBatch(items: Array<BatchItem<RollupInput>>, rows: (uuids: string[], values: unknown[]) => Array<Row | null>, answer?: (values: unknown[]) => Row): Promise<Written> {
  const out: Written = { reads: 0, values: null };
  const m = {
    connection: {},
    queryRunner: {
      databaseConnection: {
        query: async (q: { name: string; values: unknown[] }) => {
          if (q.name === 'stats_rollup_read_v3') {
            out.reads++;
            out.read = q.values;
            return { rows: rows(elements(q.values[0]) as string[], q.values).filter((r) => r !== null) };
          }
          out.values = q.values;
          const created = elements(q.values[1]).filter((x) => x === 'true' || x === 't').length;
          return { rows: [answer ? answer(q.values) : { inserted: created, rewritten: elements(q.values[0]).length - created, statusMoved: elements(q.values[60]).length }] };
        },
      },
    },
  } as unknown as EntityManager;
  await applyRollupBatch(m, items);
  return out;
}

/** The write's parameters as named columns (the statement's numbering). */
function decode(values: unknown[]) {
  const col = (i: number) => elements(values[i - 1]);
  const rowsOf = (names: string[], from: number) => {
    const cols = names.map((_, j) => col(from + j));
    return cols[0].map((_, r) => Object.fromEntries(names.map((nm, j) => [nm, cols[j][r]])));
  };
  const n = ['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
  return {
    states: rowsOf(['u', 'created', 'a', 'stream', 'sender', 'iso2', 'status', 'rank', 'acceptedAt', 'hour', 'day', 'segments', 'price', 'refunded', 'currency', 'campaign', 'variant', 'destination'], 1),
    versions: col(65),
    hours: rowsOf(['a', 'b', 'st', 'se', 'i', 'c', 'm', 'p', 'co', ...n], 19),
    days: rowsOf(['a', 'b', 'st', 'i', 'c', 'm', 'p', 'co', ...n], 35),
    campaign: rowsOf(['a', 'b', 'campaign', 'variant', 'i', 's', 'c', 'm', 'p', 'co', 'dd'], 50),
    moved: rowsOf(['u', 'status', 'rank', 'x'], 61),
  };
}

const counts = (r: Record<string, string | null>) => [r.n0, r.n1, r.n2, r.n3, r.n4, r.n5, r.n6].map(Number);

describe('stats: the rollup batch (0213)', () => {
  it("creates a new message's state once from its acceptance, its statuses and a redelivered receipt, counted once in its furthest status", async () => {
    const u = uuid(1);
    const w = await runBatch([acceptedItem(u), statusItem(u, 'sent'), statusItem(u, 'delivered'), statusItem(u, 'delivered'), acceptedItem(u)], () => [row(0, u, null)]);
    const d = decode(w.values as unknown[]);
    expect(d.states).toEqual([
      expect.objectContaining({ u, created: 'true', a: A, stream: '7', status: 'delivered', rank: '2', acceptedAt: '2026-11-29T10:15:00.000Z', hour: HOUR, day: DAY, segments: '2', price: '30000', refunded: '0', campaign: CAMPAIGN, variant: '5' }),
    ]);
    expect(d.versions).toEqual([null]);
    expect(d.hours).toEqual([expect.objectContaining({ a: A, b: HOUR, st: '7', se: 'Acme', i: 'GB', c: 'EUR', m: '1', p: '2', co: '30000' })]);
    expect(counts(d.hours[0])).toEqual([0, 0, 1, 0, 0, 0, 0]);
    expect(d.days).toEqual([expect.objectContaining({ a: A, b: DAY, st: '7', m: '1', p: '2', co: '30000' })]);
    expect(d.campaign).toEqual([{ a: A, b: HOUR, campaign: CAMPAIGN, variant: '5', i: 'GB', s: 'delivered', c: 'EUR', m: '1', p: '2', co: '30000', dd: DAY }]);
    expect(d.moved).toEqual([]);
  });

  it("moves a known message's status alone (the narrow update at its version), one count from the old status to the new in the same rows", async () => {
    const u = uuid(2);
    const w = await runBatch([statusItem(u, 'sent')], () => [row(0, u, { status: 'accepted', rank: 0 })]);
    const d = decode(w.values as unknown[]);
    expect(d.states).toEqual([]);
    expect(d.moved).toEqual([{ u, status: 'sent', rank: '1', x: '500' }]);
    expect(d.hours).toHaveLength(1);
    expect(d.hours[0]).toMatchObject({ m: '0', p: '0', co: '0' });
    expect(counts(d.hours[0])).toEqual([-1, 1, 0, 0, 0, 0, 0]);
    expect(counts(d.days[0])).toEqual([-1, 1, 0, 0, 0, 0, 0]);
    // the campaign rollups keep the status in their key: a message leaves one row and joins another
    expect(d.campaign.map((r) => [r.s, r.m, r.p, r.co])).toEqual([
      ['accepted', '-1', '-2', '-30000'],
      ['sent', '1', '2', '30000'],
    ]);
  });

  it("rewrites a known message's state whole on a refund (a late kind), its cost less the refund in every row and no count moved", async () => {
    const u = uuid(3);
    const w = await runBatch([statusItem(u, 'undelivered'), refundItem(u, 30000)], () => [row(0, u, { status: 'sent', rank: 1 })]);
    const d = decode(w.values as unknown[]);
    expect(d.states).toEqual([expect.objectContaining({ u, created: 'false', status: 'undelivered', rank: '2', refunded: '30000', price: '30000' })]);
    expect(d.versions).toEqual(['500']);
    expect(d.moved).toEqual([]);
    expect(d.hours[0]).toMatchObject({ m: '0', p: '0', co: '-30000' });
    expect(counts(d.hours[0])).toEqual([0, -1, 0, 0, 1, 0, 0]);
    expect(d.campaign.map((r) => [r.s, r.m, r.co])).toEqual([
      ['sent', '-1', '-30000'],
      ['undelivered', '1', '0'],
    ]);
  });

  it("keeps a status that comes before its message's acceptance in a new state, counted nowhere until the acceptance", async () => {
    const u = uuid(4);
    const w = await runBatch([statusItem(u, 'delivered')], () => [row(0, u, null)]);
    const d = decode(w.values as unknown[]);
    expect(d.states).toEqual([expect.objectContaining({ u, created: 'true', status: 'delivered', rank: '2', acceptedAt: null, hour: null, day: null, segments: '2', stream: '7' })]);
    expect(d.hours).toEqual([]);
    expect(d.days).toEqual([]);
    expect(d.campaign).toEqual([]);
    // its acceptance later: counted once, delivered (the status kept), in the acceptance's rows
    const later = await runBatch([acceptedItem(u)], () => [{ ...(row(0, u, { status: 'delivered', rank: 2 }) as Row), accepted_at: null, hour_bucket: null, day_bucket: null }]);
    const l = decode(later.values as unknown[]);
    expect(l.states).toEqual([expect.objectContaining({ u, created: 'false', status: 'delivered', acceptedAt: '2026-11-29T10:15:00.000Z', hour: HOUR })]);
    expect(counts(l.hours[0])).toEqual([0, 0, 1, 0, 0, 0, 0]);
    expect(l.hours[0]).toMatchObject({ m: '1', co: '30000' });
  });

  it("writes nothing for another account's events, a uuid in another spelling, a status moving back or a second acceptance of a known message", async () => {
    const [u1, u2, u3, u4] = [uuid(5), 'abcdef00-0000-4000-8000-00000000000a', uuid(7), uuid(8)];
    const w = await runBatch(
      [statusItem(u1, 'delivered', '43'), acceptedItem(u1, '43'), statusItem(u2.toUpperCase(), 'delivered'), statusItem(u3, 'sent'), acceptedItem(u4)],
      (uuids) => {
        expect(uuids).toEqual([u1, u2.toUpperCase(), u3, u4]);
        return [
          row(0, u1, { status: 'sent', rank: 1 }),
          // PostgreSQL writes the uuid in lower case: the event's spelling differs, so it changes nothing
          row(1, u2, { status: 'sent', rank: 1 }),
          row(2, u3, { status: 'delivered', rank: 2 }),
          row(3, u4, { status: 'sent', rank: 1 }),
        ];
      },
    );
    expect(w.reads).toBe(1);
    expect(w.values && decode(w.values)).toBeNull();
  });

  it('fails the batch (to be applied again event by event) when another replica created or changed a state meanwhile', async () => {
    const [u1, u2] = [uuid(9), uuid(10)];
    const items = [acceptedItem(u1), statusItem(u2, 'sent')];
    const rows = () => [row(0, u1, null), row(1, u2, { status: 'accepted', rank: 0 })];
    await expect(runBatch(items, rows)).resolves.toBeDefined();
    await expect(runBatch(items, rows, () => ({ inserted: 0, rewritten: 0, statusMoved: 1 }))).rejects.toThrow('message states were created meanwhile (1)');
    await expect(runBatch(items, rows, () => ({ inserted: 1, rewritten: 0, statusMoved: 0 }))).rejects.toThrow('message states were changed meanwhile (1)');
  });

  it("sets a campaign request's variant on the states it names, of its own account only", async () => {
    const [u1, u2] = [uuid(11), uuid(12)];
    const requested: BatchItem<RollupInput> = {
      event: { id: 'req' },
      data: { kind: 'requested', d: { accountId: A, campaignId: '901', items: [{ messageUuid: u1, variantId: '8' }, { messageUuid: u2, variantId: '9' }] } as never },
    };
    const w = await runBatch([requested], () => [row(0, u1, null), { ...(row(1, u2, { status: 'accepted', rank: 0, account: '43' }) as Row), variant_id: null }]);
    const d = decode(w.values as unknown[]);
    // u1's new state carries the request's campaign and variant (uncounted until its acceptance); u2 is another
    // account's known state: unchanged, not written
    expect(d.states.map((s) => [s.u, s.campaign, s.variant, s.status, s.rank])).toEqual([[u1, '901', '8', '', '-1']]);
    expect(d.moved).toEqual([]);
  });
});

describe('stats: the rollup batch finds each row by all its key fields (0213: the last row kept)', () => {
  // known accepted states, each differing from the one before in one key field (or none), moved to `sent`:
  // every hour, day and campaign row of the batch must hold exactly the states whose key fields are its own
  const variations: Array<Partial<Record<string, unknown>>> = [
    {},
    {},
    { sender: 'Other' },
    { sender: 'Acme' },
    { stream_id: '8' },
    { iso2: 'FR' },
    { currency: 'USD' },
    { hour_bucket: '2026-11-29T11:00:00.000Z' },
    { day_bucket: '2026-11-30', hour_bucket: '2026-11-30T00:00:00.000Z' },
    { variant_id: '6' },
    { campaign_id: '901' },
    { variant_id: null },
    {},
    { sender: 'Other' },
    {},
  ];

  it('counts every state in the rows of its own key fields, whatever the state before it', async () => {
    // each state is the one before it with the variation's fields changed (so a row kept from the last state would
    // be wrong by exactly that field)
    let fields: Partial<Record<string, unknown>> = {};
    const states = variations.map((v, i) => {
      fields = { ...fields, ...v };
      return { ...(row(i, uuid(100 + i), { status: 'accepted', rank: 0 }) as Row), ...fields };
    });
    const w = await runBatch(
      states.map((s) => statusItem(s.message_uuid as string, 'sent')),
      () => states,
    );
    const d = decode(w.values as unknown[]);
    expect(d.moved).toHaveLength(states.length);
    const expected = (key: (s: Row) => string) => {
      const m = new Map<string, number>();
      for (const s of states) m.set(key(s), (m.get(key(s)) ?? 0) + 1);
      return m;
    };
    const got = (rows: Array<Record<string, string | null>>, key: (r: Record<string, string | null>) => string, n: (r: Record<string, string | null>) => number) => {
      const m = new Map<string, number>();
      for (const r of rows) {
        expect(m.has(key(r))).toBe(false);
        m.set(key(r), n(r));
      }
      return m;
    };
    expect(got(d.hours, (r) => [r.a, r.b, r.se, r.st, r.i, r.c].join('|'), (r) => Number(r.n1))).toEqual(
      expected((s) => [s.account_id, s.hour_bucket, s.sender, s.stream_id, s.iso2, s.currency].join('|')),
    );
    for (const r of d.hours) expect(Number(r.n0)).toBe(-Number(r.n1));
    expect(got(d.days, (r) => [r.a, r.b, r.st, r.i, r.c].join('|'), (r) => Number(r.n1))).toEqual(expected((s) => [s.account_id, s.day_bucket, s.stream_id, s.iso2, s.currency].join('|')));
    expect(got(d.campaign.filter((r) => r.s === 'sent'), (r) => [r.a, r.campaign, r.variant, r.b, r.i, r.c, r.dd].join('|'), (r) => Number(r.m))).toEqual(
      expected((s) => [s.account_id, s.campaign_id, s.variant_id ?? '0', s.hour_bucket, s.iso2, s.currency, s.day_bucket].join('|')),
    );
    expect(got(d.campaign.filter((r) => r.s === 'accepted'), (r) => [r.a, r.campaign, r.variant, r.b, r.i, r.c, r.dd].join('|'), (r) => -Number(r.m))).toEqual(
      expected((s) => [s.account_id, s.campaign_id, s.variant_id ?? '0', s.hour_bucket, s.iso2, s.currency, s.day_bucket].join('|')),
    );
  });
});

describe("stats: an acceptance's hour and day buckets in its account's zone, computed in node (0218)", () => {
  const bucketsOfBatch = async (ats: string[], tz: string | null) => {
    const us = ats.map((_, i) => uuid(300 + i));
    const w = await runBatch(
      us.map((u, i) => acceptedItem(u, A, ats[i])),
      () => (tz === null ? [] : [zoneRow(A, tz)]),
    );
    // the zones asked for: the acceptances' accounts; no instant left to PostgreSQL
    expect(elements((w.read as unknown[])[1])).toEqual([A]);
    expect(elements((w.read as unknown[])[3])).toEqual([]);
    const d = decode(w.values as unknown[]);
    return { states: d.states.map((s) => [s.acceptedAt, s.hour, s.day]), hours: d.hours.map((h) => [h.b, h.m]).sort(), days: d.days.map((x) => [x.b, x.m]).sort() };
  };

  it('puts a +05:30 account (Asia/Kolkata) in hours starting at :30 UTC and its local dates', async () => {
    const r = await bucketsOfBatch(['2026-11-29T10:15:00.000Z', '2026-11-29T18:29:59.999Z', '2026-11-29T18:30:00.000Z'], 'Asia/Kolkata');
    expect(r.states).toEqual([
      ['2026-11-29T10:15:00.000Z', '2026-11-29T09:30:00.000Z', '2026-11-29'],
      ['2026-11-29T18:29:59.999Z', '2026-11-29T17:30:00.000Z', '2026-11-29'],
      ['2026-11-29T18:30:00.000Z', '2026-11-29T18:30:00.000Z', '2026-11-30'],
    ]);
  });

  it('puts a +13:00 account (Pacific/Tongatapu) on the next local date from 11:00 UTC', async () => {
    const r = await bucketsOfBatch(['2026-11-29T10:59:59.000Z', '2026-11-29T11:00:00.000Z'], 'Pacific/Tongatapu');
    expect(r.states).toEqual([
      ['2026-11-29T10:59:59.000Z', '2026-11-29T10:00:00.000Z', '2026-11-29'],
      ['2026-11-29T11:00:00.000Z', '2026-11-29T11:00:00.000Z', '2026-11-30'],
    ]);
    expect(r.days).toEqual([
      ['2026-11-29', '1'],
      ['2026-11-30', '1'],
    ]);
  });

  it("keeps the repeated hour of a DST fall-back (Europe/Berlin, 2026-10-25) as two buckets of one local date, and a spring-forward's short day", async () => {
    const r = await bucketsOfBatch(['2026-10-25T00:30:00.000Z', '2026-10-25T01:30:00.000Z', '2026-10-25T01:59:59.999Z', '2026-03-29T00:59:00.000Z', '2026-03-29T01:00:00.000Z'], 'Europe/Berlin');
    expect(r.states).toEqual([
      // 02:30 CEST and 02:30 CET: the same local hour twice, two buckets
      ['2026-10-25T00:30:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-25'],
      ['2026-10-25T01:30:00.000Z', '2026-10-25T01:00:00.000Z', '2026-10-25'],
      ['2026-10-25T01:59:59.999Z', '2026-10-25T01:00:00.000Z', '2026-10-25'],
      // 01:59 CET, then 03:00 CEST
      ['2026-03-29T00:59:00.000Z', '2026-03-29T00:00:00.000Z', '2026-03-29'],
      ['2026-03-29T01:00:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29'],
    ]);
    expect(r.hours).toEqual([
      ['2026-03-29T00:00:00.000Z', '1'],
      ['2026-03-29T01:00:00.000Z', '1'],
      ['2026-10-25T00:00:00.000Z', '1'],
      ['2026-10-25T01:00:00.000Z', '2'],
    ]);
  });

  it('uses UTC for an account stats has no zone for', async () => {
    const r = await bucketsOfBatch(['2026-11-29T23:59:59.000Z'], null);
    expect(r.states).toEqual([['2026-11-29T23:59:59.000Z', '2026-11-29T23:00:00.000Z', '2026-11-29']]);
  });

  it("uses the zone of the known state's account, and leaves an instant in another form to PostgreSQL's parse", async () => {
    const [u1, u2] = [uuid(320), uuid(321)];
    const w = await runBatch([statusItem(u1, 'sent', '43'), acceptedItem(u1), acceptedItem(u2, A, '2026-11-29 10:15:00+05:30')], (uuids, values) => {
      expect(uuids).toEqual([u1, u2]);
      // u1's slot is 43's (its first event), its acceptance's zone asked for by that account; u2's instant is PostgreSQL's
      expect(elements(values[1])).toEqual(['43', A]);
      expect(elements(values[2])).toEqual(['1']);
      expect(elements(values[3])).toEqual(['2026-11-29 10:15:00+05:30']);
      return [
        { ...(row(0, u1, { status: 'sent', rank: 1 }) as Row), accepted_at: null, hour_bucket: null, day_bucket: null },
        zoneRow(A, 'Asia/Kolkata'),
        zoneRow('43', 'UTC'),
        { ...(row(-3, '', { status: '', rank: 0 }) as Row), x: null, accepted_at: '2026-11-29T04:45:00.000Z', account_id: '' },
      ];
    });
    const d = decode(w.values as unknown[]);
    expect(d.states.map((s) => [s.u, s.created, s.acceptedAt, s.hour, s.day])).toEqual([
      [u1, 'false', '2026-11-29T10:15:00.000Z', '2026-11-29T09:30:00.000Z', '2026-11-29'],
      [u2, 'true', '2026-11-29T04:45:00.000Z', '2026-11-29T04:30:00.000Z', '2026-11-29'],
    ]);
  });
});

describe("stats: an acceptance instant node reads itself, or leaves to PostgreSQL's parse (0218)", () => {
  it('reads only the toISOString form with every field in range', () => {
    const read = ['2026-11-29T10:15:00.000Z', '2024-02-29T23:59:59.999Z', '2000-02-29T00:00:00.000Z', '1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'];
    for (const t of read) expect(isoInstant(t) === null ? null : new Date(isoInstant(t) as number).toISOString()).toBe(t);
    // another form, a day, hour or second out of range, a year JavaScript's Date.UTC would read as 19xx: PostgreSQL's
    for (const t of ['2026-11-29T10:15:00Z', '2026-11-29 10:15:00.000Z', '2026-11-29T10:15:00.000+00:00', '2023-02-29T00:00:00.000Z', '1900-02-29T00:00:00.000Z', '2026-04-31T00:00:00.000Z', '2026-11-29T24:00:00.000Z', '2026-12-31T23:59:60.000Z', '0099-01-01T00:00:00.000Z', '2026-1a-29T10:15:00.000Z', '']) {
      expect(isoInstant(t)).toBeNull();
    }
  });
});
