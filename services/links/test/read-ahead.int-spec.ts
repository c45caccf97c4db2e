import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { CodeCipher, decodeCode, encodeCode } from '../src/mint/codes';
import { LinkStore, textArray, type ResolvedLink } from '../src/redirect/link-store';
import { batch, CODE_SECRET, shortUrl, split, startLinks, type LinksTestApp } from './redirect-support';

const A = '431';
const B = '432';

/**
 * The redirect's read-ahead (docs/decisions/0203): a missed code reads its whole range page (the 16 recipients minted
 * together) in its look-up and caches every link of it under the link's own domain, so the page's other recipients are
 * answered from memory. Every rule of the one-link read holds: a code resolves only under its own domain, another
 * account's never, unknown codes are remembered as unknown, the cache stays within its bound.
 */
describe('redirect read-ahead of a range page', () => {
  let l: LinksTestApp;
  let pool: Pool;
  let reads = 0;
  /** Holds the look-ups answered by PostgreSQL until released (a read in flight while more codes arrive). */
  let gate: Promise<void> | null = null;
  const cipher = new CodeCipher(CODE_SECRET);

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    l = await startLinks();
    pool = new Pool({ connectionString: l.t.db.url, max: 2 });
    const query = pool.query.bind(pool) as (c: { name?: string }) => Promise<unknown>;
    pool.query = (async (c: { name?: string }) => {
      if (c.name === 'links_link_lookup') reads++;
      const r = await query(c);
      if (gate) await gate;
      return r;
    }) as typeof pool.query;
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await l?.close();
    jest.restoreAllMocks();
  });

  beforeEach(() => {
    reads = 0;
    gate = null;
  });

  const store = (o: { readAhead: boolean; cacheMax?: number }) =>
    new LinkStore(pool, { cacheTtlMs: 60_000, negativeTtlMs: 60_000, cacheMax: o.cacheMax ?? 10_000, now: Date.now, cipher, readAhead: o.readAhead });
  const codesOf = (answer: Awaited<ReturnType<LinksTestApp['mint']>>, n: number) => Array.from({ length: n }, (_, i) => decodeCode(split(answer.links[`r${i}`].shorturl).path.slice(1)));
  /** What the redirect answers from: the fields a response and a click are made of. */
  const fields = (k: ResolvedLink | null | undefined) =>
    k && {
      domainId: k.domainId,
      code: k.code,
      seq: k.seq,
      accountId: k.accountId,
      campaignId: k.campaignId,
      variantId: k.variantId,
      streamId: k.streamId,
      contactId: k.contactId,
      messageUuid: k.messageUuid,
      destination: k.destination,
      kind: k.kind,
      offerId: k.offerId,
      location: k.location,
      template: k.template,
      expiresAtMs: k.expiresAtMs,
      disabled: k.disabled,
      createdAtMs: k.createdAtMs,
      offerStamp: k.offerStamp,
    };

  it("answers a page's other codes from its page after one look-up, each link as a read of its own finds it", async () => {
    const d = await l.domain(A, 'ahead1.test');
    const offer = await l.offer(A, 'https://shop.example/o?n={name}', { expireInDays: 30, method: 'link_creation' });
    // every field as the page's arrays carry it as text: quotes, backslashes, braces, commas, the word NULL, empty
    const name = (i: number) => `Zoë "${i}" \\ {x}, NULL ✓`;
    const req = batch(A, [shortUrl({ offerId: offer, domainIds: [d], expireInDays: 90 })], 40, (i): Record<string, string> => (i === 9 ? {} : { name: name(i) }), '93');
    req.items[3].destination = 'whatsapp:+49 151 "x" \\ {y} ,NULL, 📱';
    req.items[4].destination = '';
    req.items[5].contactId = null;
    req.items[6].variantId = null;
    req.items[7].messageUuid = req.items[7].messageUuid.toUpperCase();
    const codes = codesOf(await l.mint(req), 40);
    const ahead = store({ readAhead: true });
    // r0 is read, and with it every link of its page (recipients 0 to 15)
    expect((await ahead.loadLink(d, codes[0]))?.contactId).toBe(req.items[0].contactId);
    expect(reads).toBe(1);
    const one = store({ readAhead: false });
    for (let i = 1; i < 16; i++) {
      const cached = await ahead.loadLink(d, codes[i]);
      expect(cached).toBeTruthy();
      expect(fields(cached)).toEqual(fields(await one.loadLink(d, codes[i])));
      expect(cached).toMatchObject({ messageUuid: req.items[i].messageUuid.toLowerCase(), destination: req.items[i].destination, contactId: req.items[i].contactId, offerId: offer });
      if (i !== 9) expect(cached?.location).toBe(`https://shop.example/o?n=${encodeURIComponent(name(i))}`);
    }
    expect(fields(ahead.cachedLink(d, codes[0]))).toEqual(fields(await one.loadLink(d, codes[0])));
    expect(reads).toBe(1 + 16);
    // the next page is not: r16 is a look-up of its own (and brings r17 to r31)
    expect(ahead.cachedLink(d, codes[16])).toBeUndefined();
    reads = 0;
    await ahead.loadLink(d, codes[16]);
    expect((await ahead.loadLink(d, codes[31]))?.contactId).toBe(req.items[31].contactId);
    // the last page holds 8 recipients: a code of its empty places is unknown, remembered as such without a read
    await ahead.loadLink(d, codes[32]);
    const page = Math.floor(cipher.decrypt(codes[32]) / 16) * 16;
    const empty = cipher.encrypt(page + 12);
    expect(reads).toBe(2);
    expect(await ahead.loadLink(d, empty)).toBeNull();
    expect(ahead.cachedLink(d, empty)).toBeNull();
    expect(reads).toBe(2);
  });

  it('reads a page once for its codes asked together, and for its codes that arrive while it is read', async () => {
    const d = await l.domain(A, 'ahead2.test');
    const req = batch(A, [shortUrl({ url: 'https://shop.example/c?n={name}', domainIds: [d] })], 32, (i) => ({ name: `c${i}` }), '93');
    const codes = codesOf(await l.mint(req), 32);
    const ahead = store({ readAhead: true });
    // sixteen misses of one page in one turn of the event loop: one look-up, one page read
    const first = await Promise.all(codes.slice(0, 16).map((c) => ahead.loadLink(d, c)));
    expect(first.map((k) => k?.contactId)).toEqual(req.items.slice(0, 16).map((i) => i.contactId));
    expect(reads).toBe(1);
    // r16's page is read (held in flight) while r17 to r31 miss: they wait on that read, none is read again
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const p16 = ahead.loadLink(d, codes[16]);
    await new Promise((r) => setTimeout(r, 50));
    const rest = codes.slice(17, 32).map((c) => ahead.loadLink(d, c));
    await new Promise((r) => setTimeout(r, 50));
    release();
    gate = null;
    const second = await Promise.all([p16, ...rest]);
    expect(second.map((k) => k?.location)).toEqual(req.items.slice(16, 32).map((_i, k) => `https://shop.example/c?n=c${16 + k}`));
    expect(reads).toBe(2);
  });

  it("never resolves a page's code under another domain of the account or another account's, nor reads ahead for a code asked under one", async () => {
    const [d1, d2] = [await l.domain(A, 'ahead3a.test'), await l.domain(A, 'ahead3b.test')];
    const dB = await l.domain(B, 'ahead3-other.test');
    // a pool spread evenly: the page's recipients alternate between the two domains
    const p = await l.pool(A, 'ahead3', 10, [d1, d2]);
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop.example/i', domainPoolId: p })], 16, () => ({}), '93'));
    const hosts = Array.from({ length: 16 }, (_, i) => split(answer.links[`r${i}`].shorturl).host);
    const codes = codesOf(answer, 16);
    const domainOf = (host: string) => (host === 'ahead3a.test' ? d1 : d2);
    const other = (host: string) => (host === 'ahead3a.test' ? d2 : d1);
    expect(new Set(hosts)).toEqual(new Set(['ahead3a.test', 'ahead3b.test']));
    const ahead = store({ readAhead: true });
    // asked under another account's domain, or the account's other one: unknown, and nothing of the page is read ahead
    expect(await ahead.loadLink(dB, codes[0])).toBeNull();
    expect(await ahead.loadLink(other(hosts[0]), codes[0])).toBeNull();
    for (let i = 1; i < 16; i++) expect(ahead.cachedLink(domainOf(hosts[i]), codes[i])).toBeUndefined();
    // asked under its own: the page is read, each link cached under its own domain only
    expect((await ahead.loadLink(domainOf(hosts[0]), codes[0]))?.location).toBe('https://shop.example/i');
    reads = 0;
    for (let i = 1; i < 16; i++) {
      expect(ahead.cachedLink(other(hosts[i]), codes[i])).toBeUndefined();
      expect(await ahead.loadLink(other(hosts[i]), codes[i])).toBeNull();
      expect(await ahead.loadLink(dB, codes[i])).toBeNull();
      expect((await ahead.loadLink(domainOf(hosts[i]), codes[i]))?.domainId).toBe(domainOf(hosts[i]));
    }
    expect(reads).toBe(0);
    expect(await ahead.loadLink(other(hosts[1]), codes[1])).toBeNull();
    expect(await ahead.loadLink(dB, codes[1])).toBeNull();
    // through the app's redirect (read-ahead on by default): 302 under its own host, 404 under the others
    expect((await l.hit(hosts[2], split(answer.links.r2.shorturl).path)).status).toBe(302);
    expect((await l.hit(hosts[3] === hosts[2] ? 'ahead3-other.test' : hosts[3], split(answer.links.r2.shorturl).path)).status).toBe(404);
    expect((await l.hit('ahead3-other.test', split(answer.links.r4.shorturl).path)).status).toBe(404);
    expect((await l.hit(hosts[4], split(answer.links.r4.shorturl).path)).status).toBe(302);
  });

  it('keeps the cache within its bound while pages are read ahead, and answers every code of a look-up whose page was dropped meanwhile', async () => {
    const d = await l.domain(A, 'ahead4.test');
    const req = batch(A, [shortUrl({ url: 'https://shop.example/b?n={name}', domainIds: [d] })], 64, (i) => ({ name: `b${i}` }), '93');
    const codes = codesOf(await l.mint(req), 64);
    const small = store({ readAhead: true, cacheMax: 10 });
    const cachedCount = () => codes.filter((c) => small.cachedLink(d, c) !== undefined).length;
    // one look-up of four pages (64 links read, far more than the bound): every code asked answers its own link
    const got = await Promise.all([0, 17, 34, 51, 1, 18].map((i) => small.loadLink(d, codes[i])));
    expect(got.map((k) => k?.contactId)).toEqual([0, 17, 34, 51, 1, 18].map((i) => req.items[i].contactId));
    expect(cachedCount()).toBeLessThanOrEqual(10);
    for (const i of [5, 20, 40, 60]) await small.loadLink(d, codes[i]);
    expect(cachedCount()).toBeLessThanOrEqual(10);
  });

  it("reads a text array as PostgreSQL writes it, whatever its elements hold", async () => {
    const values = ['plain', '', 'NULL', 'null', ' lead', 'a,b', '{x}', 'q"uote', 'back\\slash', '\\"', 'Zoë ✓ 📱', 'tab\tnew\nline', '["C1","Zoë"]', '{"a":"\\u0001"}'];
    const [{ t }] = await l.sql<{ t: string }>(`SELECT ($1::text[] || ARRAY[NULL::text])::text AS t`, [values]);
    expect(textArray(t)).toEqual([...values, null]);
    expect(textArray('{}')).toEqual([]);
  });

  it('reads one link a code with the setting off', async () => {
    const d = await l.domain(A, 'ahead5.test');
    const req = batch(A, [shortUrl({ url: 'https://shop.example/off', domainIds: [d] })], 16, () => ({}), '93');
    const codes = codesOf(await l.mint(req), 16);
    const off = store({ readAhead: false });
    expect((await off.loadLink(d, codes[0]))?.contactId).toBe(req.items[0].contactId);
    for (let i = 1; i < 16; i++) expect(off.cachedLink(d, codes[i])).toBeUndefined();
    expect((await off.loadLink(d, codes[1]))?.contactId).toBe(req.items[1].contactId);
    expect(reads).toBe(2);
    // an unknown code: null, remembered
    const unknown = encodeCode(cipher.encrypt(Math.floor(cipher.decrypt(codes[0]) / 16) * 16 + 1000));
    expect(await off.loadLink(d, decodeCode(unknown))).toBeNull();
    expect(off.cachedLink(d, decodeCode(unknown))).toBeNull();
  });
});
