import { Logger } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import { LinkRanges1797900000005 } from '../src/migrations/1797900000005-link-ranges';
import { LinkBatchRecipe1798100000000 } from '../src/migrations/1798100000000-link-batch-recipe';
import { CODE_SPACE, CodeCipher, decodeCode, encodeCode } from '../src/mint/codes';
import { beginArray, endArray, PgBinaryWriter, PgType, textArray, writeNull } from '../src/mint/pg-binary-array';
import { batch, CODE_SECRET, shortUrl, split, startLinks, type LinksTestApp } from './redirect-support';

const A = '401';
const B = '402';

/**
 * Personal links minted as range rows of 16 links (docs/decisions/0092): no row per link, each code still
 * its own recipient's, unguessable, bound to its domain and account, and a batch asked again after a crash answers
 * the same codes without counting its links twice.
 */
describe('personal links stored as ranges', () => {
  let l: LinksTestApp;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    l = await startLinks();
  }, 60_000);

  afterAll(async () => {
    await l?.close();
    jest.restoreAllMocks();
  });

  const ranges = async (batchId: string) => (await l.sql<{ n: string }>(`SELECT count(*)::text AS n FROM links.link_range r JOIN links.link_target t ON t.id = r.target_id WHERE t.batch_id = $1`, [batchId]))[0].n;
  const usages = async (id: string) => (await l.sql<{ total_usages: string }>(`SELECT total_usages::text FROM links.domain WHERE id = $1`, [id]))[0].total_usages;

  it('stores a batch variable as rows of 16 links, and each code resolves to its own recipient, variables and domain', async () => {
    const d = [await l.domain(A, 'rr1.test'), await l.domain(A, 'rr2.test'), await l.domain(A, 'rr3.test')];
    const pool = await l.pool(A, 'ranges', 10, d);
    const req = batch(A, [shortUrl({ url: 'https://shop.example/p?n={name}', domainPoolId: pool }), shortUrl({ variable: 'optout', kind: 'optout', domainIds: [d[1]] })], 40, (i) => ({ name: `Zoë "${i}" \\ ✓` }), '91');
    req.items[7].contactId = null;
    const answer = await l.mint(req);
    expect(answer.outcome).toBe('minted');
    // a row per 16 links of each variable (40 recipients: 3 rows each), none per link
    expect(await ranges(req.batchId)).toBe('6');
    for (let i = 0; i < req.items.length; i++) {
      const item = req.items[i];
      const links = answer.links[item.ref];
      const short = await l.linkOf(links.shorturl);
      expect(short).toMatchObject({
        domain_id: d[i % 3],
        account_id: A,
        campaign_id: '91',
        variant_id: item.variantId,
        contact_id: item.contactId,
        message_uuid: item.messageUuid,
        destination: item.destination,
        vars: { name: item.vars.name },
      });
      const optout = await l.linkOf(links.optout);
      expect(optout).toMatchObject({ domain_id: d[1], message_uuid: item.messageUuid, contact_id: item.contactId, vars: null });
      expect(optout!.target_id).not.toBe(short!.target_id);
    }
    // the redirect answers each recipient's own target
    for (const i of [0, 7, 39]) {
      const { host, path } = split(answer.links[`r${i}`].shorturl);
      const res = await l.hit(host, path);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`https://shop.example/p?n=${encodeURIComponent(req.items[i].vars.name)}`);
    }
  });

  it('stores every recipient field as the request sent it: the largest ids, missing variants and contacts, upper-case uuids, any text', async () => {
    const d = await l.domain(A, 'fields.test');
    const req = batch(A, [shortUrl({ url: 'https://shop.example/f?a={a}&b={b}&c={c}', domainIds: [d], expireInDays: 3 })], 20, (i): Record<string, string> => (i === 3 ? { a: 'only a' } : { a: `a${i} \u{1F600} "q" \\ \u0001`, b: 'Zoë ✓', c: 'NULL' }), '9223372036854775807');
    req.streamId = '9007199254740993';
    req.items[0].contactId = '9223372036854775807';
    req.items[1].contactId = null;
    req.items[2].variantId = null;
    req.items[4].messageUuid = req.items[4].messageUuid.toUpperCase();
    req.items[5].destination = 'whatsapp:+49 151 "x" \\ {y} ,NULL, 📱';
    req.items[6].destination = '';
    const answer = await l.mint(req);
    expect(answer.outcome).toBe('minted');
    for (const [i, item] of req.items.entries()) {
      const link = await l.linkOf(answer.links[item.ref].shorturl);
      expect(link).toMatchObject({
        domain_id: d,
        account_id: A,
        campaign_id: '9223372036854775807',
        stream_id: '9007199254740993',
        variant_id: item.variantId,
        contact_id: item.contactId,
        message_uuid: item.messageUuid.toLowerCase(),
        destination: item.destination,
      });
      // the variables' JSON text as JSON.stringify writes the object of those the target uses
      const [{ vars }] = await l.sql<{ vars: string }>(`SELECT vars FROM links.link_of($1, $2, $3)`, [d, link!.code, new CodeCipher(CODE_SECRET).decrypt(Number(link!.code))]);
      expect(vars).toBe(JSON.stringify(i === 3 ? { a: 'only a' } : { a: item.vars.a, b: item.vars.b, c: item.vars.c }));
      expect(link!.expires_at!.getTime() - link!.created_at.getTime()).toBe(3 * 86_400_000);
    }
  });

  it('sends binary arrays that PostgreSQL reads as it reads their text, and refuses what it refuses', async () => {
    const uuids = ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', 'a0eebc999c0b4ef8bb6d6bb9bd380a11', 'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11'];
    const ints = ['0', '7', '999999999999999', '1000000000000000', '9223372036854775807', '-9223372036854775808', '-1', ' 42 ', '0042'];
    const texts = ['', 'plain', 'Zoë ✓ 📱', '"quoted", \\ {braces} NULL'];
    const array = (type: number, values: string[], write: (w: PgBinaryWriter, v: string) => void) => {
      const w = new PgBinaryWriter(16);
      const h = beginArray(w, type);
      for (const v of values) write(w, v);
      writeNull(w);
      endArray(w, h, values.length + 1, true);
      return w.bytes();
    };
    const [same] = await l.sql<{ u: boolean; i: boolean; t: boolean; refs: boolean }>(
      `SELECT $1::uuid[] IS NOT DISTINCT FROM ($2::text[] || NULL::text)::uuid[] AS u, $3::bigint[] IS NOT DISTINCT FROM ($4::text[] || NULL::text)::bigint[] AS i,
              $5::text[] IS NOT DISTINCT FROM ($6::text[] || NULL::text) AS t, $7::text[] = $6::text[] AS refs`,
      [array(PgType.uuid, uuids, (w, v) => w.uuid(v)), uuids, array(PgType.int8, ints, (w, v) => w.int8(v)), ints, array(PgType.text, texts, (w, v) => w.text(v)), texts, textArray(texts)],
    );
    expect(same).toEqual({ u: true, i: true, t: true, refs: true });
    for (const bad of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g', '{a0eebc999c0b4ef8bb6d6bb9bd380a11', 'a0eebc999c0b4ef8bb6d6bb9bd380a11-', 'a0e-ebc999c0b4ef8bb6d6bb9bd380a11']) {
      await expect(l.sql(`SELECT $1::uuid`, [bad])).rejects.toThrow(/invalid input syntax for type uuid/);
      expect(() => new PgBinaryWriter().uuid(bad)).toThrow(/invalid input syntax for type uuid/);
    }
    for (const bad of ['', '1.5', 'abc', '9223372036854775808', '-9223372036854775809', '1e3']) {
      await expect(l.sql(`SELECT $1::bigint`, [bad])).rejects.toThrow(/invalid input syntax for type bigint|out of range for type bigint/);
      expect(() => new PgBinaryWriter().int8(bad)).toThrow(/invalid input syntax for type bigint|out of range for type bigint/);
    }
    // ids are decimal (the contract's): PostgreSQL 16's hexadecimal and underscored integers are refused, not guessed
    for (const other of ['0x10', '1_000']) expect(() => new PgBinaryWriter().int8(other)).toThrow(/invalid input syntax for type bigint/);
  });

  it('mints codes unique across batches, campaigns and accounts, none a neighbour of another or resolvable by guessing one', async () => {
    const da = await l.domain(A, 'uq-a.test');
    const db = await l.domain(B, 'uq-b.test');
    const answers = [];
    for (let k = 0; k < 6; k++) {
      const [account, dom] = k % 2 ? [B, db] : [A, da];
      answers.push(await l.mint(batch(account, [shortUrl({ url: 'https://shop.example/', domainIds: [dom] }), shortUrl({ variable: 'optout', kind: 'optout', domainIds: [dom] })], 250, () => ({}), String(80 + (k % 3)))));
    }
    const urls = answers.flatMap((a) => Object.values(a.links).flatMap((v) => Object.values(v)));
    const codes = urls.map((u) => decodeCode(split(u).path.slice(1)));
    expect(codes).toHaveLength(3000);
    expect(codes.every((c) => c >= 0)).toBe(true);
    expect(new Set(codes).size).toBe(3000);
    // the order of minting is not the order of the codes: consecutive recipients' codes are far apart
    const steps = codes.slice(1).map((c, i) => Math.abs(c - codes[i]));
    expect(Math.min(...steps)).toBeGreaterThan(1000);
    // a code next to a minted one (guessing by counting) is no link, on the minted code's own host
    const taken = new Set(codes);
    for (const u of urls.slice(0, 200)) {
      const { host, path } = split(u);
      const c = decodeCode(path.slice(1));
      for (const guess of [c - 1, c + 1]) {
        if (guess < 0 || guess >= CODE_SPACE || taken.has(guess)) continue;
        expect(await l.linkOf(`http://${host}/${encodeCode(guess)}`)).toBeUndefined();
      }
    }
    const guessed = await l.hit(split(urls[0]).host, `/${encodeCode((codes[0] + 1) % CODE_SPACE)}`);
    expect(guessed.status).toBe(404);
  });

  it('answers the same codes when a batch is asked again after a crash, its links counted once', async () => {
    const dom = await l.domain(A, 'crash.test');
    const req = batch(A, [shortUrl({ url: 'https://shop.example/c', domainIds: [dom] })], 30);
    // a crash inside the batch's transaction (the stored answer fails): nothing of it stays
    await l.sql(`CREATE FUNCTION links.fail_batch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.batch_id = '${req.batchId}' THEN RAISE EXCEPTION 'crash'; END IF; RETURN NEW; END $$`);
    await l.sql(`CREATE TRIGGER fail_batch BEFORE INSERT ON links.link_batch FOR EACH ROW EXECUTE FUNCTION links.fail_batch()`);
    try {
      await expect(l.mint(req)).rejects.toThrow(/crash/);
    } finally {
      await l.sql(`DROP TRIGGER fail_batch ON links.link_batch`);
      await l.sql(`DROP FUNCTION links.fail_batch()`);
    }
    expect(await ranges(req.batchId)).toBe('0');
    expect(await usages(dom)).toBe('0');
    // the redelivered request mints; asked again (a crash after the commit, before the answer was acknowledged) it
    // answers the same codes, writes no second range and counts no usage twice
    const first = await l.mint(req);
    expect(first.outcome).toBe('minted');
    const again = await l.mint(req);
    expect(again.links).toEqual(first.links);
    expect(again.usages).toBeUndefined();
    expect(await ranges(req.batchId)).toBe('2');
    expect(await usages(dom)).toBe('30');
    for (const ref of ['r0', 'r29']) expect((await l.linkOf(first.links[ref].shorturl))?.message_uuid).toBe(req.items[Number(ref.slice(1))].messageUuid);
  });

  it('stores a batch as its refs, variables and code blocks, not its links, and a repeat writes the same links again', async () => {
    const d = [await l.domain(A, 'rc1.test'), await l.domain(A, 'rc2.test'), await l.domain(A, 'rc3.test')];
    // uneven usages: the pool's spread gives the first recipients to the least used domains, then alternates
    await l.sql(`UPDATE links.domain SET total_usages = 5 WHERE id = $1`, [d[0]]);
    const pool = await l.pool(A, 'recipe', 10, d);
    const req = batch(A, [shortUrl({ url: 'https://shop.example/r?n={name}', domainPoolId: pool }), shortUrl({ variable: 'optout', kind: 'optout', domainIds: [d[2]] })], 37, (i) => ({ name: `n${i}` }));
    req.items[3].ref = 'ref "quoted" \\ ✓';
    const first = await l.mint(req);
    expect(first.outcome).toBe('minted');
    const [stored] = await l.sql<{ links: unknown; links_text: string | null; refs: string[]; variables: string[]; blocks: number }>(
      `SELECT links, links_text, refs, variables, cardinality(blocks) AS blocks FROM links.link_batch WHERE account_id = $1 AND batch_id = $2`,
      [A, req.batchId],
    );
    // no text a link is kept for the repeat: the refs in batch order, the variables, one code block each
    expect(stored).toEqual({ links: null, links_text: null, refs: req.items.map((i) => i.ref), variables: ['shorturl', 'optout'], blocks: 2 });
    const hosts = new Set(Object.values(first.links).map((v) => split(v.shorturl).host));
    expect(hosts).toEqual(new Set(['rc1.test', 'rc2.test', 'rc3.test']));
    // asked again: every link as first answered, each still its own recipient's
    const again = await l.mint(req);
    expect(again.outcome).toBe('minted');
    expect(again.links).toEqual(first.links);
    for (const i of [0, 3, 36]) expect((await l.linkOf(again.links[req.items[i].ref].shorturl))?.message_uuid).toBe(req.items[i].messageUuid);
    expect(await usages(d[1])).toBe(String(Object.values(first.links).filter((v) => split(v.shorturl).host === 'rc2.test').length));
  });

  it("never resolves a code under another tenant's domain, nor under another domain of its own account", async () => {
    const a1 = await l.domain(A, 'iso-a1.test');
    await l.domain(A, 'iso-a2.test');
    const b1 = await l.domain(B, 'iso-b1.test');
    const mintedA = await l.mint(batch(A, [shortUrl({ url: 'https://a.example/', domainIds: [a1] })], 3));
    const mintedB = await l.mint(batch(B, [shortUrl({ url: 'https://b.example/', domainIds: [b1] })], 3));
    for (const ref of ['r0', 'r1', 'r2']) {
      const a = split(mintedA.links[ref].shorturl);
      const b = split(mintedB.links[ref].shorturl);
      expect((await l.linkOf(mintedA.links[ref].shorturl))?.account_id).toBe(A);
      // B's code under A's domains, A's under B's, A's under A's other domain: no link, 404
      expect(await l.linkOf(`http://iso-a1.test${b.path}`)).toBeUndefined();
      expect(await l.linkOf(`http://iso-a2.test${b.path}`)).toBeUndefined();
      expect(await l.linkOf(`http://iso-b1.test${a.path}`)).toBeUndefined();
      expect(await l.linkOf(`http://iso-a2.test${a.path}`)).toBeUndefined();
      expect((await l.hit('iso-a1.test', b.path)).status).toBe(404);
      expect((await l.hit('iso-b1.test', a.path)).status).toBe(404);
      expect((await l.hit('iso-a2.test', a.path)).status).toBe(404);
      expect((await l.hit(a.host, a.path)).status).toBe(302);
    }
  });

  it('reads a recipient by its place in its range row, redirects and counts its clicks as its own, and finds nothing in an empty place', async () => {
    const dom = await l.domain(A, 'slots.test');
    const cipher = new CodeCipher(CODE_SECRET);
    const req = batch(A, [shortUrl({ url: 'https://shop.example/s?n={name}', domainIds: [dom] })], 19, (i) => ({ name: `n${i}` }), '93');
    const answer = await l.mint(req);
    // 19 recipients: one full row of 16 and one of 3
    const rows = await l.sql<{ n: number }>(`SELECT cardinality(r.domains) AS n FROM links.link_range r JOIN links.link_target t ON t.id = r.target_id WHERE t.batch_id = $1 ORDER BY r.page`, [req.batchId]);
    expect(rows.map((r) => r.n)).toEqual([16, 3]);
    const hits = ['r0', 'r15', 'r16', 'r18'].map((ref) => split(answer.links[ref].shorturl).path);
    for (const path of hits) {
      const res = await l.hit('slots.test', path);
      expect(res.status).toBe(302);
    }
    expect((await l.hit('slots.test', hits[1])).headers.location).toBe('https://shop.example/s?n=n15');
    await l.redirect.running!.clicks.drain();
    // every click is its own recipient's: the click rows and first clicks carry the recipient read from its place
    // (a recipient's count is their counted click rows: docs/decisions/0104)
    const clicked = await l.sql<{ message_uuid: string; clicks: string }>(
      `SELECT r.message_uuid::text, (SELECT count(*) FROM links.click c WHERE c.account_id = r.account_id AND c.message_uuid = r.message_uuid AND NOT c.preview)::text AS clicks
         FROM links.recipient_click r WHERE r.campaign_id = 93 ORDER BY r.message_uuid`,
    );
    const expected = [[0, '1'], [15, '2'], [16, '1'], [18, '1']].map(([i, n]) => ({ message_uuid: req.items[i as number].messageUuid, clicks: n }));
    expect(clicked).toEqual(expected.sort((a, b) => a.message_uuid.localeCompare(b.message_uuid)));
    // the places after the last recipient of the short row, and the row after it, hold no link (404)
    const last = cipher.decrypt(decodeCode(hits[3].slice(1)));
    for (const seq of [last + 1, last + 13, last + 16]) {
      expect(await l.linkOf(`http://slots.test/${encodeCode(cipher.encrypt(seq))}`)).toBeUndefined();
      expect((await l.hit('slots.test', `/${encodeCode(cipher.encrypt(seq))}`)).status).toBe(404);
    }
  });
  it('redirects a recipient whose variable holds a NUL character, and every link read in the same look-up with it', async () => {
    // JSON text may carry \u0000, which PostgreSQL's jsonb refuses: a look-up that decoded it as jsonb failed for every
    // code read with it (docs/decisions/0109). The variables are read as the text minted and filled in Node
    const dom = await l.domain(A, 'nul.test');
    const req = batch(A, [shortUrl({ url: 'https://shop.example/n?v={v}', domainIds: [dom] })], 6, (i) => ({ v: i === 2 ? 'a\u0000b' : `v${i}` }), '94');
    const answer = await l.mint(req);
    expect(answer.outcome).toBe('minted');
    // the six codes arrive in one turn of the event loop: one look-up reads them together
    const replies = await Promise.all(req.items.map((item) => split(answer.links[item.ref].shorturl)).map(({ host, path }) => l.hit(host, path)));
    expect(replies.map((r) => r.status)).toEqual([302, 302, 302, 302, 302, 302]);
    expect(replies.map((r) => r.headers.location)).toEqual(req.items.map((item) => `https://shop.example/n?v=${encodeURIComponent(item.vars.v)}`));
    expect(replies[2].headers.location).toBe('https://shop.example/n?v=a%00b');
  });

  it('keeps links minted before ranges resolving and clicked through the migration, up and down, and reads range rows alone when there were none', async () => {
    const q = { query: (text: string, params?: unknown[]) => l.sql(text, params) } as unknown as QueryRunner;
    const ranges = new LinkRanges1797900000005();
    const recipe = new LinkBatchRecipe1798100000000();
    // the migrations after ranges go down first and come up after them
    const migration = {
      down: async (r: QueryRunner) => {
        await recipe.down(r);
        await ranges.down(r);
      },
      up: async (r: QueryRunner) => {
        await ranges.up(r);
        await recipe.up(r);
      },
    };
    const plan = async () => (await l.sql<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF, GENERIC_PLAN) SELECT * FROM links.link_of($1::bigint, $2::bigint, $3::bigint)`)).map((r) => r['QUERY PLAN']).join('\n');
    // this deployment had no link before ranges: a code is one probe of the range rows, no branch for `links.link` (the
    // plan any code gets: the generic one)
    expect(await l.sql(`SELECT 1 FROM links.link`)).toEqual([]);
    expect(await plan()).toContain('link_range_pkey');
    expect(await plan()).not.toMatch(/ on link |link_pkey/);

    // back to a row a link, and a link minted there as the code before ranges did (seq 5: block 0, never handed out)
    const dom = await l.domain(A, 'old-links.test');
    const ranged = await l.mint(batch(A, [shortUrl({ url: 'https://shop.example/r', domainIds: [dom] })], 2, () => ({}), '95'));
    await migration.down(q);
    expect(await l.sql(`SELECT to_regclass('links.link_range') AS t`)).toEqual([{ t: null }]);
    const cipher = new CodeCipher(CODE_SECRET);
    const code = cipher.encrypt(5);
    const [target] = await l.sql<{ id: string }>(
      `INSERT INTO links.link_target (account_id, campaign_id, batch_id, variable, kind, url, created_at) VALUES ($1, 95, 'old-batch', 'shorturl', 0, 'https://shop.example/old?n={name}', now()) RETURNING id::text`,
      [A],
    );
    const message = '6f1c1c3e-2a4b-4c55-9a0d-0b7d5e2f3a01';
    await l.sql(
      `INSERT INTO links.link (domain_id, code, account_id, target_id, campaign_id, variant_id, stream_id, contact_id, message_uuid, destination, vars, expires_at, created_at)
       VALUES ($1, $2, $3, $4, 95, 1, NULL, 77, $5, '+491510000077', '{"name": "Zoë & co"}', NULL, now())`,
      [dom, code, A, target.id, message],
    );

    // up with links minted before: they resolve through their own rows, range links minted after through theirs
    await migration.up(q);
    expect(await plan()).toMatch(/link_pkey/);
    const old = `http://old-links.test/${encodeCode(code)}`;
    expect(await l.linkOf(old)).toMatchObject({ account_id: A, message_uuid: message, contact_id: '77', vars: { name: 'Zoë & co' } });
    const freshReq = batch(A, [shortUrl({ url: 'https://shop.example/new?n={name}', domainIds: [dom] })], 3, (i) => ({ name: `new ${i}` }), '95');
    const fresh = await l.mint(freshReq);
    l.redirect.running!.store.clear();
    const oldReply = await l.hit('old-links.test', `/${encodeCode(code)}`);
    expect(oldReply.status).toBe(302);
    expect(oldReply.headers.location).toBe(`https://shop.example/old?n=${encodeURIComponent('Zoë & co')}`);
    const freshReply = await l.hit('old-links.test', split(fresh.links.r1.shorturl).path);
    expect(freshReply.headers.location).toBe('https://shop.example/new?n=new%201');
    // the range links minted before the round trip went with their range rows; their batch is minted afresh if asked again
    expect((await l.hit('old-links.test', split(ranged.links.r0.shorturl).path)).status).toBe(404);
    // both kinds of link are clicked as their own recipient's
    await l.redirect.running!.clicks.drain();
    const clicked = await l.sql<{ message_uuid: string }>(`SELECT message_uuid::text FROM links.click WHERE campaign_id = 95 AND NOT preview ORDER BY clicked_at`);
    expect(clicked.map((c) => c.message_uuid)).toEqual([message, freshReq.items[1].messageUuid]);

    // down again: the old link keeps its row, and up once more leaves the look-up as it was
    await migration.down(q);
    expect(await l.sql(`SELECT code::text FROM links.link WHERE domain_id = $1`, [dom])).toEqual([{ code: String(code) }]);
    await migration.up(q);
    l.redirect.running!.store.clear();
    expect((await l.hit('old-links.test', `/${encodeCode(code)}`)).status).toBe(302);
  });
});
