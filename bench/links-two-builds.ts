/**
 * Two builds of links side by side, for the benches that time one statement of each in turns (links-lookup,
 * links-click-statement): a build loaded from a dist folder, and a side's own database, made by the build's own
 * migrations, with links minted by the build's own minting code for the same recipients.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openServiceDataSource } from '@switchboard/platform';
import { Pool } from 'pg';

export const BENCH_ACCOUNT = '7';

export interface LinksBuild {
  name: string;
  migrations: unknown[];
  LOOKUP_SQL: string;
  encodeClicks: (g: readonly unknown[]) => unknown;
  GroupCommitter: new (p: Pool, s: string) => { commit(c: unknown): Promise<void> };
  LinkStore: new (p: Pool, o: object) => { loadLink(d: string, c: number): Promise<unknown> };
  mintBatch: (client: unknown, req: unknown, o: unknown) => Promise<{ links: Record<string, { shorturl: string }> }>;
  CodeCipher: new (s: string) => { decrypt(c: number): number };
  decodeCode: (s: string) => number;
}

/** The build in `dist` (this one's: `path.resolve(__dirname, '..')`; another's: a detached worktree's dist). */
export function loadLinksBuild(name: string, dist: string): LinksBuild {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- another build's dist, chosen at run time
  const r = (p: string) => require(path.join(dist, p)) as Record<string, unknown>;
  const rec = r('services/links/src/redirect/click-recorder.js');
  const store = r('services/links/src/redirect/link-store.js');
  const codes = r('services/links/src/mint/codes.js');
  return {
    name,
    migrations: r('services/links/src/migrations/index.js').LINKS_MIGRATIONS as unknown[],
    LOOKUP_SQL: store.LOOKUP_SQL as string,
    encodeClicks: rec.encodeClicks as LinksBuild['encodeClicks'],
    GroupCommitter: rec.GroupCommitter as LinksBuild['GroupCommitter'],
    LinkStore: store.LinkStore as LinksBuild['LinkStore'],
    mintBatch: r('services/links/src/mint/mint.js').mintBatch as LinksBuild['mintBatch'],
    CodeCipher: codes.CodeCipher as LinksBuild['CodeCipher'],
    decodeCode: codes.decodeCode as LinksBuild['decodeCode'],
  };
}

/** ns one process spent on a core (its /proc schedstat), and the machine's one-minute load. */
export const cpuNs = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
export const load1 = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

/** Idle clients see the server stop at the end. */
export const quietPool = (p: Pool) => (p.on('error', () => undefined), p);

export interface LinksSide {
  b: LinksBuild;
  /** One connection: the statement timed, on its own backend. */
  pool: Pool;
  aux: Pool;
  pid: number;
  domain: string;
  cipher: InstanceType<LinksBuild['CodeCipher']>;
  /** The codes minted, in minting order. */
  codes: number[];
}

/**
 * Database `name` in the server at `serverUrl`, migrated by `b`'s migrations, with `total` links minted by `b` on one
 * configured domain (recipients 0 to total - 1, the same for every build).
 */
export async function linksSide(admin: Pool, serverUrl: string, name: string, b: LinksBuild, total: number): Promise<LinksSide> {
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  const ds = await openServiceDataSource({ name: `links-bench-${name}`, url, schema: 'links', entities: [], migrations: b.migrations as never, migrationsRun: true });
  await ds.destroy();
  const pool = quietPool(new Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0 }));
  const aux = quietPool(new Pool({ connectionString: url, max: 2 }));
  const {
    rows: [d],
  } = await aux.query<{ id: string }>(`INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, 'go.example', 1, 'x', true, now(), now()) RETURNING id::text`, [BENCH_ACCOUNT]);
  const cipher = new b.CodeCipher('bench-code-secret-of-length');
  const codes: number[] = [];
  const client = await aux.connect();
  try {
    for (let n0 = 0; n0 < total; n0 += 1000) {
      const n = Math.min(1000, total - n0);
      const answer = await b.mintBatch(
        client,
        {
          batchId: randomUUID(),
          accountId: BENCH_ACCOUNT,
          campaignId: '1',
          streamId: null,
          variables: [{ variable: 'shorturl', kind: 'shorturl', offerId: null, url: 'https://shop.example/p?c={code}&n={firstName}', domainIds: [d.id], domainPoolId: null, expireInDays: null }],
          items: Array.from({ length: n }, (_, i) => ({ ref: String(i), messageUuid: randomUUID(), contactId: String(n0 + i), destination: `+49151${String(n0 + i).padStart(8, '0')}`, vars: { code: `C${i}`, firstName: 'Zoë' }, variantId: '1' })),
        },
        { cipher, scheme: 'https', now: new Date() },
      );
      for (const ref of Object.keys(answer.links)) codes.push(b.decodeCode(new URL(answer.links[ref].shorturl).pathname.slice(1)));
    }
  } finally {
    client.release();
  }
  const pid = (await pool.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
  return { b, pool, aux, pid, domain: d.id, cipher, codes };
}
