/**
 * The redirect's link look-up alone (docs/decisions/0105, 0109): one PostgreSQL backend's CPU (its /proc schedstat: ns
 * on a core, not wall time) a link read by each build's `LOOKUP_SQL`, prepared once on its own backend as `LinkStore`
 * sends it, in batches of each SIZES codes, in turns between this build and another (BASE_DIST: a detached worktree's
 * dist). Each build gets its own database in one embedded PostgreSQL, created by its own migrations, with links minted
 * by its own minting code (main: a `links.link` row a link; ranges: rows of 16) for the same recipients; the turns
 * alternate which build goes first. The CPU of one backend holds up on a loaded machine far better than rates do.
 *
 *   node scripts/build.mjs --server-only && BASE_DIST=/work/wt/x-base/dist node dist/bench/links-lookup.js [turns] [links a turn] [sizes, e.g. 1,20,200]
 *
 * EXPLAIN=1 prints each build's generic plan for 20 codes (EXPLAIN ANALYZE VERBOSE BUFFERS) first.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openServiceDataSource } from '@switchboard/platform';
import { Pool } from 'pg';
import { benchDatabase } from './bench-database';

const TURNS = Number(process.argv[2] ?? 4);
const PER_TURN = Number(process.argv[3] ?? 4000);
const SIZES = (process.argv[4] ?? '20,200').split(',').map(Number);
const ACCOUNT = '7';

interface Build {
  name: string;
  migrations: unknown[];
  LOOKUP_SQL: string;
  mintBatch: (client: unknown, req: unknown, o: unknown) => Promise<{ links: Record<string, { shorturl: string }> }>;
  CodeCipher: new (s: string) => { decrypt(c: number): number };
  decodeCode: (s: string) => number;
}

function load(name: string, dist: string): Build {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another build's dist, chosen at run time
  const r = (p: string) => require(path.join(dist, p)) as Record<string, unknown>;
  const codes = r('services/links/src/mint/codes.js');
  return {
    name,
    migrations: r('services/links/src/migrations/index.js').LINKS_MIGRATIONS as unknown[],
    LOOKUP_SQL: r('services/links/src/redirect/link-store.js').LOOKUP_SQL as string,
    mintBatch: r('services/links/src/mint/mint.js').mintBatch as Build['mintBatch'],
    CodeCipher: codes.CodeCipher as Build['CodeCipher'],
    decodeCode: codes.decodeCode as Build['decodeCode'],
  };
}

const cpuNs = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
const load1 = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

async function main(): Promise<void> {
  const baseDist = process.env.BASE_DIST;
  if (!baseDist) throw new Error('BASE_DIST: the dist folder of the build to compare with');
  const builds = [load('base', path.resolve(baseDist)), load('this', path.resolve(__dirname, '..'))];
  const db = await benchDatabase('sb-links-lookup-');
  const admin = new Pool({ connectionString: db.url, max: 1 });
  // idle clients see the server stop at the end
  const quiet = (p: Pool) => (p.on('error', () => undefined), p);
  quiet(admin);
  const sides: Array<{ b: Build; pool: Pool; aux: Pool; pid: number; domain: string; codes: number[]; seqs: number[] }> = [];
  try {
    for (const [k, b] of builds.entries()) {
      const name = `lookup_${k}`;
      await admin.query(`CREATE DATABASE ${name}`);
      const u = new URL(db.url);
      u.pathname = `/${name}`;
      const url = u.toString();
      const ds = await openServiceDataSource({ name: `links-bench-${k}`, url, schema: 'links', entities: [], migrations: b.migrations as never, migrationsRun: true });
      await ds.destroy();
      const pool = quiet(new Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0 }));
      const aux = quiet(new Pool({ connectionString: url, max: 2 }));
      const {
        rows: [d],
      } = await aux.query<{ id: string }>(`INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, 'go.example', 1, 'x', true, now(), now()) RETURNING id::text`, [ACCOUNT]);
      const cipher = new b.CodeCipher('bench-code-secret-of-length');
      // one more turn's links: a warm-up pass of each size, not counted (the statement's first, custom plans)
      const total = (TURNS + 1) * PER_TURN;
      const codes: number[] = [];
      const client = await aux.connect();
      for (let n0 = 0; n0 < total; n0 += 1000) {
        const n = Math.min(1000, total - n0);
        const answer = await b.mintBatch(
          client,
          {
            batchId: randomUUID(),
            accountId: ACCOUNT,
            campaignId: '1',
            streamId: null,
            variables: [{ variable: 'shorturl', kind: 'shorturl', offerId: null, url: 'https://shop.example/p?c={code}&n={firstName}', domainIds: [d.id], domainPoolId: null, expireInDays: null }],
            items: Array.from({ length: n }, (_, i) => ({ ref: String(i), messageUuid: randomUUID(), contactId: String(n0 + i), destination: `+49151${String(n0 + i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' })),
          },
          { cipher, scheme: 'https', now: new Date() },
        );
        for (const ref of Object.keys(answer.links)) codes.push(b.decodeCode(new URL(answer.links[ref].shorturl).pathname.slice(1)));
      }
      client.release();
      await aux.query('VACUUM ANALYZE');
      const pid = (await pool.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
      sides.push({ b, pool, aux, pid, domain: d.id, codes, seqs: codes.map((c) => cipher.decrypt(c)) });
    }
    // LinkStore's parameters: (domains, codes) before ranges, (domains, codes, sequence numbers) with them
    const values = (s: (typeof sides)[number], from: number, to: number) => {
      const v: unknown[] = [s.codes.slice(from, to).map(() => s.domain), s.codes.slice(from, to)];
      if (/\$3\b/.test(s.b.LOOKUP_SQL)) v.push(s.seqs.slice(from, to));
      return v;
    };
    if (process.env.EXPLAIN) {
      for (const s of sides) {
        const c = await s.aux.connect();
        await c.query(`SET plan_cache_mode = force_generic_plan`);
        await c.query(`PREPARE x AS ${s.b.LOOKUP_SQL}`);
        const args = values(s, 0, 20)
          .map((a) => `'{${(a as unknown[]).join(',')}}'`)
          .join(', ');
        const plan = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, VERBOSE, BUFFERS) EXECUTE x(${args})`);
        console.log(`${s.b.name}:\n${plan.rows.map((r) => r['QUERY PLAN']).join('\n')}`);
        await c.query(`DEALLOCATE x`);
        c.release();
      }
    }
    console.log(`link look-up: ${TURNS} turns, ${PER_TURN.toLocaleString()} links a build a turn, batches of ${SIZES.join(', ')} codes; load ${load1()}`);
    const sums = sides.map(() => new Map<number, number[]>(SIZES.map((z) => [z, []])));
    for (const size of SIZES) {
      for (let t = 0; t <= TURNS; t++) {
        for (const k of t % 2 ? [1, 0] : [0, 1]) {
          const s = sides[k];
          const c0 = cpuNs(s.pid);
          let found = 0;
          for (let i = t * PER_TURN; i < (t + 1) * PER_TURN; i += size) {
            found += (await s.pool.query({ name: 'links_link_lookup', text: s.b.LOOKUP_SQL, values: values(s, i, Math.min(i + size, (t + 1) * PER_TURN)) })).rowCount ?? 0;
          }
          if (found !== PER_TURN) throw new Error(`${s.b.name}: ${found} of ${PER_TURN} links found`);
          const us = (cpuNs(s.pid) - c0) / 1000 / PER_TURN;
          if (t === 0) continue;
          sums[k].get(size)!.push(us);
          console.log(`turn ${t}, ${size} codes a batch, ${s.b.name}: backend CPU a link ${us.toFixed(2)} µs (load ${load1()})`);
        }
      }
    }
    const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;
    for (const size of SIZES) console.log(`${size} codes a batch: ${sides.map((s, k) => `${s.b.name} ${range(sums[k].get(size)!)} µs`).join(', ')}`);
  } finally {
    for (const s of sides) {
      await s.pool.end();
      await s.aux.end();
    }
    await admin.end();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
