import { Client } from 'pg';
import { bucketsAt } from '../src/consumers/time-buckets';

/**
 * The acceptances' hour and day buckets moved from the rollup read (PostgreSQL's `AT TIME ZONE`) to node (Intl, cached
 * a UTC hour and zone: docs/decisions/0218). Node must give what PostgreSQL gave, and what the rebuild and the campaign
 * events still compute there: for every minute around both DST changes of a year in DST zones (a fall-back's repeated
 * hour two buckets), in half- and quarter-hour zones (+05:30, +05:45, -03:30, Lord Howe's half-hour DST, Chatham's
 * +12:45/+13:45), in +13:00/+14:00 zones and at random instants over ten years, the same instants asked in order and
 * in a shuffled order (the cache).
 */

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Sao_Paulo',
  'America/St_Johns',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Pacific/Tongatapu',
  'Pacific/Kiritimati',
  'Pacific/Apia',
  'Africa/Casablanca',
];

/** PostgreSQL's buckets, as the read computed them before 0218. */
const PG_BUCKETS = `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
       to_char((at - (l.local - date_trunc('hour', l.local))) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS hour, l.local::date::text AS day
  FROM unnest($1::timestamptz[]) WITH ORDINALITY AS t(at, o) CROSS JOIN LATERAL (SELECT t.at AT TIME ZONE $2::text AS local) l ORDER BY o`;

/** Instants: every 7 minutes 13.5 s over two days around each change of 2018 and 2026 (found by PostgreSQL), and random ones. */
function instants(changes: number[]): number[] {
  const out: number[] = [];
  for (const c of changes) for (let t = c - 26 * 3_600_000; t < c + 26 * 3_600_000; t += 433_500) out.push(t);
  let x = 12345;
  for (let i = 0; i < 3000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(Date.UTC(2018, 0, 1) + Math.floor((x / 2147483648) * 10 * 365 * 86_400_000));
  }
  return out;
}

describe("stats: node's hour and day buckets equal PostgreSQL's in every zone (0218)", () => {
  let c: Client;
  beforeAll(async () => {
    c = new Client({ connectionString: process.env.SWITCHBOARD_TEST_PG_URL });
    await c.connect();
  });
  afterAll(async () => {
    await c.end();
  });

  it.each(ZONES)('%s', async (zone) => {
    // the zone's offset changes in 2018 and 2026, hour by hour, as PostgreSQL sees them
    const { rows: changes } = await c.query<{ t: Date }>(
      `SELECT h AS t FROM generate_series('2018-01-01'::timestamptz, '2019-01-01', '1 hour') AS h
        WHERE (h AT TIME ZONE $1::text) - ((h - interval '1 hour') AT TIME ZONE $1::text) <> interval '1 hour'
       UNION ALL
       SELECT h FROM generate_series('2026-01-01'::timestamptz, '2027-01-01', '1 hour') AS h
        WHERE (h AT TIME ZONE $1::text) - ((h - interval '1 hour') AT TIME ZONE $1::text) <> interval '1 hour'`,
      [zone],
    );
    const ms = instants(changes.map((r) => r.t.getTime()));
    const { rows } = await c.query<{ at: string; hour: string; day: string }>(PG_BUCKETS, [`{${ms.map((t) => new Date(t).toISOString()).join(',')}}`, zone]);
    const expected = rows.map((r) => `${r.at} ${r.hour} ${r.day}`);
    const inOrder = ms.map((t) => bucketsAt(zone, t)).map((b) => `${b.at} ${b.hour} ${b.day}`);
    expect(inOrder).toEqual(expected);
    // shuffled: each instant against a cache filled by others
    const order = ms.map((_, i) => i).sort((a, b) => ((a * 7919) % ms.length) - ((b * 7919) % ms.length));
    for (const i of order) {
      const b = bucketsAt(zone, ms[i]);
      expect(`${b.at} ${b.hour} ${b.day}`).toBe(expected[i]);
    }
    if (zone === 'Europe/Berlin') {
      // the fall-back's repeated local hour is two buckets
      expect(rows.filter((r) => r.hour === '2026-10-25T00:00:00.000Z').length).toBeGreaterThan(0);
      expect(rows.filter((r) => r.hour === '2026-10-25T01:00:00.000Z').length).toBeGreaterThan(0);
    }
  });
});
