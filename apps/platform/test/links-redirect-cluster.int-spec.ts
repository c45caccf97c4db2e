import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import * as path from 'node:path';
import { Pool } from 'pg';
import { freePort, openServiceDataSource } from '@switchboard/platform';
import { createTestDatabase, startNodeProcess, type TestDatabase } from '@switchboard/platform/testing';
import { CodeCipher, decodeCode, LINKS_MIGRATIONS, mintBatch } from '@switchboard/links';
import { buildServer, repoRoot, type ServerProcess } from './server-process';

/**
 * The redirect process as deployed (`dist/services/links/src/main-redirect.js`) with two cluster workers sharing the
 * primary's click group commit (docs/decisions/0057), a click buffer of 4 so that answers must wait for commits:
 * every answered click is a row with its own user agent (the workers' groups merged into one statement keep them
 * apart), none dropped, and SIGTERM commits what is waiting before the process exits.
 */
describe('redirect cluster (main-redirect.js, two workers)', () => {
  let db: TestDatabase;
  let pool: Pool;
  let proc: ServerProcess | null = null;

  beforeAll(async () => {
    buildServer();
    db = await createTestDatabase();
    const ds = await openServiceDataSource({ name: 'links-cluster-test', url: db.url, schema: 'links', entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: true });
    await ds.destroy();
    pool = new Pool({ connectionString: db.url, max: 2 });
  }, 120_000);

  afterAll(async () => {
    await proc?.stop('SIGKILL');
    await pool?.end();
    await db?.drop();
  }, 60_000);

  it('stores every answered click with its user agent, drops none at a full buffer, and commits the rest on SIGTERM', async () => {
    const host = 'go.cluster.test';
    const {
      rows: [d],
    } = await pool.query<{ id: string }>(`INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES (5, $1, 1, 'x', true, now(), now()) RETURNING id::text`, [host]);
    const client = await pool.connect();
    const answer = await mintBatch(
      client,
      {
        batchId: randomUUID(),
        accountId: '5',
        campaignId: '9',
        streamId: null,
        variables: [{ variable: 'shorturl', kind: 'shorturl', offerId: null, url: 'https://shop.example/p?n={name}', domainIds: [d.id], domainPoolId: null, expireInDays: null }],
        items: Array.from({ length: 30 }, (_, i) => ({ ref: `r${i}`, messageUuid: randomUUID(), contactId: String(i + 1), destination: `+4915100000${String(i).padStart(3, '0')}`, vars: { name: `Zoë ${i}` }, variantId: '1' })),
      },
      { cipher: new CodeCipher('cluster-test-code-secret'), scheme: 'http', now: new Date() },
    );
    client.release();
    const port = await freePort();
    proc = await startNodeProcess(path.join(repoRoot, 'dist/services/links/src/main-redirect.js'), { url: `http://127.0.0.1:${port}/-/health` }, {
      cwd: repoRoot,
      env: { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', LINKS_PUBLIC_SCHEME: 'http', LINKS_CODE_SECRET: 'cluster-test-code-secret', LINKS_REDIRECT_WORKERS: '2', LINKS_CLICK_BUFFER_MAX: '4', LINKS_CLICK_FLUSH_MS: '5' },
    });
    await proc.waitFor(/served on .* by 2 workers/);

    // 240 clicks over 24 connections at once, each connection its own user agent (quotes, backslash, non-ASCII)
    const agentOf = (c: number) => `Agent ${c} "q" \\ ü/${c % 3}`;
    const sent: Array<{ code: string; ua: string }> = [];
    await Promise.all(
      Array.from({ length: 24 }, async (_, c) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        for (let k = 0; k < 10; k++) {
          const ref = `r${(c * 10 + k) % 30}`;
          const code = new URL(answer.links[ref].shorturl).pathname;
          const status = await new Promise<number>((resolve, reject) => {
            http
              .get({ host: '127.0.0.1', port, path: code, agent, headers: { host, 'user-agent': agentOf(c) } }, (res) => {
                res.resume();
                res.on('end', () => resolve(res.statusCode ?? 0));
              })
              .on('error', reject);
          });
          expect(status).toBe(302);
          sent.push({ code: code.slice(1), ua: agentOf(c) });
        }
        agent.destroy();
      }),
    );
    expect(await proc.stop('SIGTERM')).toBe(0);

    const { rows } = await pool.query<{ code: string; user_agent: string; n: number }>(
      `SELECT c.code::text, c.user_agent, count(*)::int AS n FROM links.click c WHERE c.campaign_id = 9 AND NOT c.preview GROUP BY 1, 2`,
    );
    expect(rows.reduce((a, r) => a + r.n, 0)).toBe(240);
    // every (code, user agent) pair as sent, as many times
    const want = new Map<string, number>();
    for (const x of sent) want.set(`${decodeCode(x.code)} ${x.ua}`, (want.get(`${decodeCode(x.code)} ${x.ua}`) ?? 0) + 1);
    expect(new Map(rows.map((r) => [`${r.code} ${r.user_agent}`, r.n]))).toEqual(want);
  }, 120_000);
});
