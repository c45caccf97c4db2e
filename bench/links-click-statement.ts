/**
 * The click group statement alone (docs/decisions/0098): the backend's CPU (its /proc schedstat, ns on a core) a click
 * for first clicks and repeat clicks, in turns between this build's statement (the recipient's fields sent by the
 * redirect) and another build's (BASE_DIST: a detached worktree's dist of main, whose statement joins `links.link`;
 * its links are copied into `links.link` from `links.link_of`, so both read the same recipients). Load-independent
 * enough for a shared machine: CPU time of one backend, not wall time.
 *
 *   node scripts/build.mjs --server-only && BASE_DIST=/work/wt/x-base/dist node dist/bench/links-click-statement.js [turns] [clicks a turn]
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openServiceDataSource } from '@switchboard/platform';
import { LINKS_MIGRATIONS } from '@switchboard/links';
import { Pool } from 'pg';
import { CodeCipher, decodeCode } from '../services/links/src/mint/codes';
import { mintBatch } from '../services/links/src/mint/mint';
import { encodeClicks, GroupCommitter, type Click } from '../services/links/src/redirect/click-recorder';
import { LinkStore, type ResolvedLink } from '../services/links/src/redirect/link-store';
import { benchDatabase } from './bench-database';

const TURNS = Number(process.argv[2] ?? 4);
const PER_TURN = Number(process.argv[3] ?? 4000);
const GROUP = 1000;
const ACCOUNT = '7';

type Variant = { name: string; encode: (g: readonly Click[]) => unknown; committer: { commit(c: unknown): Promise<void> }; pid?: number };

async function main(): Promise<void> {
  const baseDist = process.env.BASE_DIST;
  if (!baseDist) throw new Error('BASE_DIST: the dist folder of the build to compare with');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const base = require(path.join(baseDist, 'services/links/src/redirect/click-recorder.js')) as { encodeClicks: (g: readonly Click[]) => unknown; GroupCommitter: new (p: Pool, s: string) => { commit(c: unknown): Promise<void> } };
  const db = await benchDatabase('sb-links-click-stmt-');
  const ds = await openServiceDataSource({ name: 'links-bench', url: db.url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true });
  await ds.destroy();
  // one backend a variant (each prepares its statement under the same name)
  const pools = [new Pool({ connectionString: db.url, max: 1 }), new Pool({ connectionString: db.url, max: 1 })];
  const aux = new Pool({ connectionString: db.url, max: 2 });
  try {
    const {
      rows: [d],
    } = await aux.query<{ id: string }>(`INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, 'go.example', 1, 'x', true, now(), now()) RETURNING id::text`, [ACCOUNT]);
    const cipher = new CodeCipher('bench-code-secret-of-length');
    const total = TURNS * 2 * PER_TURN;
    const codes: number[] = [];
    const client = await aux.connect();
    for (let b = 0; b * 1000 < total; b++) {
      const n = Math.min(1000, total - b * 1000);
      const answer = await mintBatch(
        client,
        {
          batchId: `${randomUUID()}`,
          accountId: ACCOUNT,
          campaignId: '1',
          streamId: null,
          variables: [{ variable: 'shorturl', kind: 'shorturl', offerId: null, url: 'https://shop.example/p?c={code}&n={firstName}', domainIds: [d.id], domainPoolId: null, expireInDays: null }],
          items: Array.from({ length: n }, (_, i) => ({ ref: String(i), messageUuid: randomUUID(), contactId: String(b * 1000 + i), destination: `+49151${String(b * 1000 + i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' })),
        },
        { cipher, scheme: 'https', now: new Date() },
      );
      for (const ref of Object.keys(answer.links)) codes.push(decodeCode(new URL(answer.links[ref].shorturl).pathname.slice(1)));
    }
    client.release();
    const store = new LinkStore(aux, { cacheTtlMs: 1e9, negativeTtlMs: 1e9, cacheMax: 1e7, now: Date.now, cipher });
    const links: ResolvedLink[] = [];
    for (let i = 0; i < codes.length; i += 2000) links.push(...((await Promise.all(codes.slice(i, i + 2000).map((c) => store.loadLink(d.id, c)))) as ResolvedLink[]));
    if (links.some((l) => !l)) throw new Error('a minted code did not resolve');
    const variants: Variant[] = [
      { name: 'base (links.link row)', encode: base.encodeClicks, committer: new base.GroupCommitter(pools[0], 'https') },
      { name: 'this build (fields sent)', encode: encodeClicks, committer: new GroupCommitter(pools[1], 'https') as Variant['committer'] },
    ];
    for (let k = 0; k < 2; k++) variants[k].pid = (await pools[k].query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
    const cpuNs = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    const run = async (v: Variant, group: ResolvedLink[]) => {
      const pid = v.pid!;
      const t0 = cpuNs(pid);
      for (let i = 0; i < group.length; i += GROUP) {
        const clicks: Click[] = group.slice(i, i + GROUP).map((link) => ({ link, codeText: 'AAAAAAA', at: Date.now(), uaClass: 1, preview: false, ip: '10.0.0.1', userAgent: 'Mozilla/5.0 (iPhone)' }));
        await v.committer.commit(v.encode(clicks));
      }
      return (cpuNs(pid) - t0) / 1000 / group.length;
    };
    // the base build's links as links.link rows (what it resolves): the same recipients, copied from their range rows
    for (let t = 0; t < TURNS; t++) {
      const slice = links.slice(t * 2 * PER_TURN, t * 2 * PER_TURN + PER_TURN);
      await aux.query(`INSERT INTO links.link SELECT l.* FROM unnest($1::bigint[], $2::bigint[]) k(code, seq) CROSS JOIN LATERAL links.link_of($3, k.code, k.seq) l`, [slice.map((l) => l.code), slice.map((l) => l.seq), d.id]);
    }
    await aux.query('VACUUM ANALYZE links.link');
    console.log(`click group statement: ${TURNS} turns, ${PER_TURN.toLocaleString()} clicks a variant a turn, groups of ${GROUP}; load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
    for (let t = 0; t < TURNS; t++) {
      for (let k = 0; k < 2; k++) {
        const v = variants[k];
        const group = links.slice(t * 2 * PER_TURN + k * PER_TURN, t * 2 * PER_TURN + (k + 1) * PER_TURN);
        const first = await run(v, group);
        const repeat = await run(v, group);
        console.log(`turn ${t + 1} ${v.name}: backend CPU a first click ${first.toFixed(1)} µs, a repeat click ${repeat.toFixed(1)} µs (load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`);
      }
    }
  } finally {
    for (const p of pools) await p.end();
    await aux.end();
    await db.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
