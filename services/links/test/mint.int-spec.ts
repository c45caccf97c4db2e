import { Logger } from '@nestjs/common';
import { createEnvelope, NatsRealtime } from '@switchboard/platform';
import { natsTestUrl } from '@switchboard/platform/testing';
import { LinkBatchMintedV2, LinkBatchRequestedV1, mintedLinksByRef, realtimeSubject, type RealtimeMessage } from '@switchboard/contracts';
import { Client, type PoolClient } from 'pg';
import { CodeCipher } from '../src/mint/codes';
import { mintBatch } from '../src/mint/mint';
import { batch, CODE_SECRET, shortUrl, startLinks, waitFor, type LinksTestApp } from './redirect-support';

const A = '301';

describe('minting personal links for campaign batches', () => {
  let l: LinksTestApp;
  // the service publishes live frames on NATS (distributed mode's fan-out); the console's gateway is another client
  let service: NatsRealtime;
  let gateway: NatsRealtime;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    service = await NatsRealtime.connect({ servers: natsTestUrl(), name: 'links-mint-test' });
    gateway = await NatsRealtime.connect({ servers: natsTestUrl(), name: 'gateway-mint-test' });
    l = await startLinks({}, [], { realtime: service });
  }, 60_000);

  afterAll(async () => {
    await l?.close();
    await service?.close();
    await gateway?.close();
    jest.restoreAllMocks();
  });

  const hostsOf = (links: Record<string, Record<string, string>>, variable = 'shorturl') => Object.keys(links).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))).map((ref) => new URL(links[ref][variable]).host);
  const usages = async (ids: string[]) => (await l.sql<{ id: string; total_usages: string; state: number; last_used_at: Date | null }>(`SELECT id::text, total_usages::text, state, last_used_at FROM links.domain WHERE id = ANY ($1::bigint[]) ORDER BY id`, [ids]));

  it('spreads a pool evenly: consecutive recipients on different domains, usages counted per domain, member and pool', async () => {
    const d = [await l.domain(A, 'e1.test'), await l.domain(A, 'e2.test'), await l.domain(A, 'e3.test')];
    const pool = await l.pool(A, 'even', 10, d);
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://a.example/', domainPoolId: pool })], 7));
    expect(answer.outcome).toBe('minted');
    expect(hostsOf(answer.links)).toEqual(['e1.test', 'e2.test', 'e3.test', 'e1.test', 'e2.test', 'e3.test', 'e1.test']);
    expect((await usages(d)).map((u) => u.total_usages)).toEqual(['3', '2', '2']);
    // the event's links per domain and variant add up to the domains' usages
    const perDomain = new Map<string, number>();
    for (const u of answer.usages ?? []) perDomain.set(u.domainId, (perDomain.get(u.domainId) ?? 0) + u.links);
    expect(d.map((id) => perDomain.get(id))).toEqual([3, 2, 2]);
    expect((await usages(d)).every((u) => u.last_used_at !== null)).toBe(true);
    const [p] = await l.sql<{ usages: string }>(`SELECT usages::text FROM links.domain_pool WHERE id = $1`, [pool]);
    expect(p.usages).toBe('7');
    const members = await l.sql<{ usages: string }>(`SELECT usages::text FROM links.domain_pool_member WHERE pool_id = $1 ORDER BY position`, [pool]);
    expect(members.map((m) => m.usages)).toEqual(['3', '2', '2']);
    // the next batch evens the usages out: the two less used domains first
    const next = await l.mint(batch(A, [shortUrl({ url: 'https://a.example/', domainPoolId: pool })], 2));
    expect(hostsOf(next.links)).toEqual(['e2.test', 'e3.test']);
  });

  it('fills one domain after another (one by one) up to each messages limit, which moves the domain to reached limit', async () => {
    const d = [await l.domain(A, 'o1.test', { limit: 4, usages: 1 }), await l.domain(A, 'o2.test', { limit: 3 }), await l.domain(A, 'o3.test')];
    const pool = await l.pool(A, 'one by one', 1, d);
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://a.example/', domainPoolId: pool })], 8));
    expect(hostsOf(answer.links)).toEqual(['o1.test', 'o1.test', 'o1.test', 'o2.test', 'o2.test', 'o2.test', 'o3.test', 'o3.test']);
    expect((await usages(d)).map((u) => [u.total_usages, u.state])).toEqual([['4', 6], ['3', 6], ['2', 1]]);
  });

  it('tells the account\'s open consoles live when minting takes a domain to its messages limit (reached limit)', async () => {
    const frames: RealtimeMessage[] = [];
    const other: RealtimeMessage[] = [];
    // this test's domains only: an earlier test's frames, published after its answer, may still arrive under load
    const mine = new Set<number>();
    const off = await gateway.subscribe(realtimeSubject(A, 'domains'), (m) => void (mine.has((m.data as { id: number }).id) && frames.push(m)));
    const offOther = await gateway.subscribe(realtimeSubject('302', 'domains'), (m) => void (mine.has((m.data as { id: number }).id) && other.push(m)));
    try {
      const full = await l.domain(A, 'live1.test', { limit: 2 });
      const roomy = await l.domain(A, 'live2.test', { limit: 3 });
      mine.add(Number(full)).add(Number(roomy));
      const pool = await l.pool(A, 'live', 1, [full, roomy]);
      const mint = async (account: string, poolId: string, n: number) => expect((await l.mint(batch(account, [shortUrl({ url: 'https://a.example/', domainPoolId: poolId })], n))).outcome).toBe('minted');
      // one by one: live1 takes 2 links and reaches its limit, live2 takes 1 and stays configured
      await mint(A, pool, 3);
      await waitFor(() => frames.length > 0);
      expect(frames.map((f) => [f.type, f.accountId, f.data])).toEqual([['domain.changed', A, { id: Number(full), state: 6, declinedReason: null }]]);
      // a batch that changes no state sends nothing: the next frame is live2's, when a later batch fills it
      await mint(A, pool, 1);
      await mint(A, pool, 1);
      await waitFor(() => frames.length > 1);
      expect(frames.map((f) => f.data)).toEqual([
        { id: Number(full), state: 6, declinedReason: null },
        { id: Number(roomy), state: 6, declinedReason: null },
      ]);
      // another account's consoles hear only their own domain
      const theirs = await l.domain('302', 'live3.test', { limit: 1 });
      mine.add(Number(theirs));
      await mint('302', await l.pool('302', 'theirs', 1, [theirs]), 1);
      await waitFor(() => other.length > 0);
      expect(other.map((f) => [f.accountId, f.data])).toEqual([['302', { id: Number(theirs), state: 6, declinedReason: null }]]);
      expect(frames).toHaveLength(2);
    } finally {
      await off();
      await offOther();
    }
  });

  it('skips domains that are archived, blocked, unverified or over their limit, and answers no_valid_domain when none is left', async () => {
    const d = [
      await l.domain(A, 's1.test', { state: 5 }),
      await l.domain(A, 's2.test', { state: 7 }),
      await l.domain(A, 's3.test', { blocked: true }),
      await l.domain(A, 's4.test', { state: 2, claimed: false }),
      await l.domain(A, 's5.test', { limit: 10, usages: 10 }),
      await l.domain(A, 's6.test', { limit: 3 }),
    ];
    const pool = await l.pool(A, 'mixed', 10, d);
    const ok = await l.mint(batch(A, [shortUrl({ url: 'https://a.example/', domainPoolId: pool })], 3));
    expect(new Set(hostsOf(ok.links))).toEqual(new Set(['s6.test']));
    // s6 reached its limit with those three: nothing usable is left
    const req = batch(A, [shortUrl({ url: 'https://a.example/', domainPoolId: pool })], 1);
    const none = await l.mint(req);
    expect(none).toEqual({ batchId: req.batchId, accountId: A, campaignId: req.campaignId, outcome: 'no_valid_domain', refs: [], variables: [] });
    // the variable's own domains list, the same rule
    expect((await l.mint(batch(A, [shortUrl({ url: 'https://a.example/', domainIds: d.slice(0, 5) })], 1))).outcome).toBe('no_valid_domain');
    // a batch larger than what is left mints nothing at all
    const small = await l.domain(A, 's7.test', { limit: 2 });
    expect((await l.mint(batch(A, [shortUrl({ url: 'https://a.example/', domainIds: [small] })], 3))).outcome).toBe('no_valid_domain');
    expect((await usages([small]))[0].total_usages).toBe('0');
    // once a domain is added, the same request is decided afresh
    await l.sql(`INSERT INTO links.domain_pool_member (pool_id, domain_id, account_id, position, added_at) VALUES ($1, $2, $3, 99, now())`, [pool, await l.domain(A, 's8.test'), A]);
    expect((await l.mint(req)).outcome).toBe('minted');
  });

  it('answers a repeated batch with its stored links, whatever characters its id holds', async () => {
    const dom = await l.domain(A, 'again.test');
    const req = { ...batch(A, [shortUrl({ url: 'https://a.example/', domainIds: [dom] })], 3), batchId: `b'; SELECT 1; --\\ "x"` };
    const first = await l.mint(req);
    expect(first.outcome).toBe('minted');
    const again = await l.mint(req);
    expect(again.links).toEqual(first.links);
    expect((await usages([dom]))[0].total_usages).toBe('3');
  });

  it('leaves the session committing synchronously after a batch: only the reservation\'s own commit skips the WAL flush', async () => {
    const dom = await l.domain(A, 'sync.test');
    const client = new Client({ connectionString: l.t.db.url });
    await client.connect();
    try {
      const req = batch(A, [shortUrl({ url: 'https://a.example/{x}', domainIds: [dom] })], 20, (i) => ({ x: `s${i}` }));
      const answer = await mintBatch(client as unknown as PoolClient, req, { cipher: new CodeCipher(CODE_SECRET), scheme: 'http', now: new Date() });
      expect(answer.outcome).toBe('minted');
      // the links' transaction (and whatever the connection runs next) waits for its WAL as before
      expect((await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0].synchronous_commit).toBe('on');
      expect((await client.query<{ n: number }>('SELECT count(*)::int AS n FROM links.link_reservation WHERE batch_id = $1', [req.batchId])).rows[0].n).toBe(0);
      expect((await usages([dom]))[0].total_usages).toBe('20');
      const links = Object.values(answer.links).map((x) => x.shorturl);
      expect((await l.linkOf(links[19]))?.vars).toEqual({ x: 's19' });
    } finally {
      await client.end();
    }
  });

  it('writes two batches of one pool at once (the domains are held only while picked), a batch killed mid-write is finished by its redelivery, counted once, and one that fails gives its usages back', async () => {
    const d = [await l.domain(A, 'p1.test'), await l.domain(A, 'p2.test'), await l.domain(A, 'p3.test')];
    const pool = await l.pool(A, 'parallel', 10, d);
    const v = [shortUrl({ url: 'https://a.example/{x}', domainPoolId: pool })];
    const first = batch(A, v, 7, (i) => ({ x: `a${i}` }));
    const second = batch(A, v, 7, (i) => ({ x: `b${i}` }));
    // backends of this database waiting for a lock (pg_locks is live; the activity view is read afresh)
    const waiting = async () => {
      await l.sql(`SELECT pg_stat_clear_snapshot()`);
      const [r] = await l.sql<{ pids: number[] }>(
        `SELECT coalesce(array_agg(l.pid), '{}') AS pids FROM pg_locks l WHERE NOT l.granted AND l.pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`,
      );
      return r.pids;
    };
    // the first batch is held in its links' write: another transaction has its stored answer's key, not committed
    await l.sql('BEGIN');
    await l.sql(`INSERT INTO links.link_batch (account_id, batch_id, campaign_id, outcome, refs, variables, blocks, created_at) VALUES ($1, $2, $3, 'minted', '{}', '{}', '{}', now())`, [A, first.batchId, first.campaignId]);
    const held = l.mint(first);
    held.catch(() => undefined);
    await waitFor(async () => (await waiting()).length === 1);
    const [heldPid] = await waiting();
    // the second batch of the same pool is minted meanwhile, or waits for the first's domains
    let settled = false;
    const minted = l.mint(second).finally(() => (settled = true));
    const blocked = (async () => {
      while (!settled) {
        if ((await waiting()).length > 1) return 'waits for the first batch' as const;
        await new Promise((r) => setTimeout(r, 20));
      }
      return null;
    })();
    const outcome = await Promise.race([minted.then((a) => a.outcome), blocked]);
    // the first batch's process dies in its links' write (its domains were counted in its reservation)
    await l.sql(`SELECT pg_terminate_backend($1)`, [heldPid]);
    await l.sql('ROLLBACK');
    await expect(held).rejects.toThrow();
    expect(outcome).toBe('minted');
    const b = await minted;
    // the redelivery answers the first batch from its reservation: the same domains, counted once
    const a = await l.mint(first);
    expect(a.outcome).toBe('minted');
    expect(hostsOf(a.links)).toEqual(['p1.test', 'p2.test', 'p3.test', 'p1.test', 'p2.test', 'p3.test', 'p1.test']);
    expect(hostsOf(b.links)).toEqual(['p2.test', 'p3.test', 'p1.test', 'p2.test', 'p3.test', 'p1.test', 'p2.test']);
    expect((await usages(d)).map((u) => u.total_usages)).toEqual(['5', '5', '4']);
    const [p] = await l.sql<{ usages: string }>(`SELECT usages::text FROM links.domain_pool WHERE id = $1`, [pool]);
    expect(p.usages).toBe('14');
    expect(await l.sql(`SELECT 1 FROM links.link_reservation`)).toEqual([]);
    // every link its own code, resolving to its own recipient
    const all = [...Object.values(a.links), ...Object.values(b.links)].map((x) => x.shorturl);
    expect(new Set(all.map((u) => new URL(u).pathname)).size).toBe(14);
    for (const [req, ans] of [[first, a], [second, b]] as const) {
      for (let i = 0; i < 7; i++) expect(await l.linkOf(ans.links[`r${i}`].shorturl)).toMatchObject({ vars: { x: req.items[i].vars.x }, message_uuid: req.items[i].messageUuid });
    }
    // asked again, each answers the same links
    expect((await l.mint(first)).links).toEqual(a.links);

    // a batch whose links cannot be written gives back what its reservation counted, and is minted once asked again
    const dom = await l.domain(A, 'back.test', { limit: 3 });
    const req = batch(A, [shortUrl({ url: 'https://a.example/', domainIds: [dom] })], 3);
    // the links' write fails by itself (a check its range rows break), after the domain was reserved
    await l.sql(`ALTER TABLE links.link_range ADD CONSTRAINT mint_fails CHECK (campaign_id <> 77) NOT VALID`);
    try {
      await expect(l.mint({ ...req, campaignId: '77' })).rejects.toThrow(/mint_fails/);
    } finally {
      await l.sql(`ALTER TABLE links.link_range DROP CONSTRAINT mint_fails`);
    }
    // not counted, and the domain that the reservation took to its limit is configured again
    expect((await usages([dom]))[0]).toMatchObject({ total_usages: '0', state: 1 });
    expect(await l.sql(`SELECT 1 FROM links.link_reservation`)).toEqual([]);
    expect((await l.mint(req)).outcome).toBe('minted');
    expect((await usages([dom]))[0]).toMatchObject({ total_usages: '3', state: 6 });
  });

  it('answers the campaign through the bus: a requested batch becomes links.link_batch.minted', async () => {
    const dom = await l.domain(A, 'bus.test');
    const req = batch(A, [shortUrl({ url: 'https://a.example/{x}', domainIds: [dom] })], 2, (i) => ({ x: `v${i}` }));
    await l.bus.publish([createEnvelope(LinkBatchRequestedV1, req, { accountId: A, source: 'campaigns' })]);
    const events = () => l.events(LinkBatchMintedV2.type).filter((e) => (e.data as { batchId: string }).batchId === req.batchId);
    await waitFor(() => events().length > 0);
    // the compact answer (docs/decisions/0129): version 2, the domain written once, a pick and a code a link
    expect(events().map((e) => e.version)).toEqual([2]);
    expect(JSON.stringify(events()[0].data).split('bus.test/')).toHaveLength(2);
    const minted = events().map((e) => LinkBatchMintedV2.schema.parse(e.data));
    expect(minted[0].outcome).toBe('minted');
    expect(minted[0].refs).toEqual(['r0', 'r1']);
    expect(minted[0].variables).toEqual([{ variable: 'shorturl', prefixes: ['http://bus.test/'], codeWidth: 7, picks: '', codes: expect.stringMatching(/^[0-9A-Za-z]{14}$/) }]);
    const links = mintedLinksByRef(minted[0]);
    expect(Object.keys(links)).toEqual(['r0', 'r1']);
    // what the campaign reports per domain and variant (domain_stats, built from events by stats) need: links per domain
    expect(minted[0].usages).toEqual([
      { domainId: dom, domain: 'bus.test', variantId: '1', links: 1 },
      { domainId: dom, domain: 'bus.test', variantId: '2', links: 1 },
    ]);
    const row = await l.linkOf(links.r1.shorturl);
    expect(row).toMatchObject({ vars: { x: 'v1' }, destination: req.items[1].destination, campaign_id: req.campaignId, message_uuid: req.items[1].messageUuid });
  });
});
