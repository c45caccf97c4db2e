import { fillStored, fillTarget, storedVars } from './target';
import { classifyUserAgent, isPreview, UaClass } from './user-agent';
import type { Pool } from 'pg';
import { LinkStore } from './link-store';
import { hostOf, readHeaders, trustedProxies } from './redirect-server';
import { loadRedirectConfig } from './redirect.config';

describe('redirect helpers', () => {
  it('runs the redirect as a single process unless LINKS_REDIRECT_WORKERS asks for cluster workers (0: one per core)', () => {
    const base = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/links' };
    expect(loadRedirectConfig(base).LINKS_REDIRECT_WORKERS).toBe(1);
    expect(loadRedirectConfig({ ...base, LINKS_REDIRECT_WORKERS: '2' }).LINKS_REDIRECT_WORKERS).toBe(2);
    expect(loadRedirectConfig({ ...base, LINKS_REDIRECT_WORKERS: '0' }).LINKS_REDIRECT_WORKERS).toBe(0);
  });

  it('believes X-Forwarded-For only from the configured proxies, addresses and CIDRs', () => {
    const b = trustedProxies(['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);
    expect(b.check('10.1.2.3', 'ipv4')).toBe(true);
    expect(b.check('192.0.2.7', 'ipv4')).toBe(true);
    expect(b.check('192.0.2.8', 'ipv4')).toBe(false);
    expect(b.check('fd00::1', 'ipv6')).toBe(true);
    expect(() => trustedProxies(['10.0.0.0/40'])).toThrow(/not an address or CIDR/);
  });

  it('reads the host without port or trailing dot, and refuses what is not a host name', () => {
    expect(hostOf('Go.Shop.TEST:8080')).toBe('go.shop.test');
    expect(hostOf('go.shop.test.')).toBe('go.shop.test');
    expect(hostOf('evil.test/x')).toBeNull();
    expect(hostOf(undefined)).toBeNull();
  });

  it('reads host, user agent and the prefetch purpose from the raw headers as req.headers would', () => {
    expect(readHeaders(['Host', 'go.shop.test', 'User-Agent', 'A/1', 'host', 'evil.test', 'user-agent', 'B/2'])).toEqual({ host: 'go.shop.test', userAgent: 'A/1', purpose: undefined, forwardedFor: undefined });
    // Sec-Purpose first, then Purpose, X-Purpose, X-Moz; repeated ones joined
    expect(readHeaders(['X-Moz', 'prefetch', 'PURPOSE', 'other', 'Sec-Purpose', 'x', 'sec-purpose', 'prefetch;prerender']).purpose).toBe('x, prefetch;prerender');
    expect(readHeaders(['X-Moz', 'prefetch', 'Accept', '*/*']).purpose).toBe('prefetch');
    expect(readHeaders(['X-Purpose', 'preview', 'X-Moz', 'prefetch']).purpose).toBe('preview');
    expect(readHeaders([])).toEqual({ host: undefined, userAgent: undefined, purpose: undefined, forwardedFor: undefined });
  });

  it('fills targets with encoded values and refuses templates whose scheme or host is a variable', () => {
    expect(fillTarget('https://a.example/{p}?q={q}', { p: '../../x', q: 'a&b=c' })).toBe('https://a.example/..%2F..%2Fx?q=a%26b%3Dc');
    expect(fillTarget('https://A.example/ü/{p}', { p: 'x y' })).toBe('https://a.example/%C3%BC/x%20y');
    expect(fillTarget('{u}', { u: 'https://evil.example' })).toBeNull();
    expect(fillTarget('https://{h}.example/', { h: 'evil' })).toBeNull();
    expect(fillTarget('javascript:alert(1)//{x}', { x: '' })).toBeNull();
    expect(fillTarget('https://user:pw@a.example/', null)).toBeNull();
  });

  it('reads a link’s stored variables as the object minted or as its values by the URL’s placeholders (0150)', () => {
    const url = 'https://a.example/{x}?y={y}&z={z}&x2={x}&p={__proto__}';
    expect(storedVars(url, null)).toBeNull();
    expect(storedVars(url, '{"x":"1","z":"3"}')).toEqual({ x: '1', z: '3' });
    expect({ ...storedVars(url, '["1",null,"3","p"]') }).toEqual({ x: '1', z: '3', ['__proto__']: 'p' });
    expect({ ...storedVars(url, '[]') }).toEqual({});
    // a value named __proto__ is a value, not the object's prototype
    expect(fillTarget(url, storedVars(url, '["a b",null,"c/d","p"]'))).toBe('https://a.example/a%20b?y=&z=c%2Fd&x2=a%20b&p=p');
    expect(fillTarget(url, storedVars(url, '["a b",null,"c/d","p"]'))).toBe(fillTarget(url, storedVars(url, '{"x":"a b","z":"c/d","__proto__":"p"}')));
  });

  it('fills a stored link exactly as fillTarget(storedVars()) does, by position or by name, refusing what it refuses (0171)', () => {
    const templates = [
      'https://a.example/{x}?y={y}&z={z}&x2={x}&p={__proto__}',
      'https://shop.example/p?c={code}&n={firstName}',
      'https://A.example/ü/{p}#{q}',
      'https://a.example/plain',
      'https://a.example/{p}/{p}/{p}',
      '{u}',
      'https://{h}.example/',
      'https://user:pw@a.example/{x}',
    ];
    const texts = [
      null,
      '[]',
      '["a b",null,"c/d","p"]',
      '["Zoë","x&y=z"]',
      '["1",2,"3"]',
      '{"x":"1","z":"3"}',
      '{"code":"C1","firstName":"Zoë","p":"../../x","q":"#frag"}',
      '{"__proto__":"p","x":"?"}',
      'null',
      '"text"',
    ];
    for (const t of templates) for (const v of texts) expect([t, v, fillStored(t, v)]).toEqual([t, v, fillTarget(t, storedVars(t, v))]);
    expect(fillStored('https://shop.example/p?c={code}&n={firstName}', '["C1","Zoë"]')).toBe('https://shop.example/p?c=C1&n=Zo%C3%AB');
  });

  it('answers each code of a look-up batch from its own row, whatever order the rows come in, and a code asked twice once', async () => {
    const sent: string[][] = [];
    const pool = {
      query: async ({ values }: { values: [string, string, string] }) => {
        sent.push(values);
        const codes = values[1].slice(1, -1).split(',');
        // the rows backwards, and none for code 404
        const rows = codes.map((c, i) => [`${i + 1},7,70,700,,${c},,0,,,5,,,,`, `+49${c}`, `["v${c}"]`, 'https://a.example/?v={v}']).filter((r) => !r[0].includes(',404,'));
        return { rows: rows.reverse() };
      },
    } as unknown as Pool;
    const store = new LinkStore(pool, { cacheTtlMs: 10_000, negativeTtlMs: 2_000, cacheMax: 100, now: () => 1_000 });
    const [a, b, missing, again] = await Promise.all([store.loadLink('1', 11), store.loadLink('2', 22), store.loadLink('1', 404), store.loadLink('1', 11)]);
    // one look-up, the keys grouped by domain
    expect(sent).toEqual([['{1,1,2}', '{11,404,22}', '{-1,-1,-1}']]);
    expect(a).toMatchObject({ domainId: '1', code: 11, accountId: '7', campaignId: '70', variantId: '700', streamId: null, contactId: '11', destination: '+4911', location: 'https://a.example/?v=v11', createdAtMs: 5, expiresAtMs: Infinity, disabled: false, offerStamp: null });
    expect(b).toMatchObject({ domainId: '2', code: 22, contactId: '22', location: 'https://a.example/?v=v22' });
    expect(missing).toBeNull();
    expect(again).toBe(a);
  });

  it('tells people from previews and prefetches', () => {
    expect(classifyUserAgent('Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148')).toBe(UaClass.Mobile);
    expect(classifyUserAgent('Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)')).toBe(UaClass.Tablet);
    expect(classifyUserAgent('Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0')).toBe(UaClass.Desktop);
    expect(classifyUserAgent('WhatsApp/2.23.20.0 A')).toBe(UaClass.Preview);
    expect(isPreview('GET', {}, UaClass.Mobile)).toBe(false);
    expect(isPreview('HEAD', {}, UaClass.Mobile)).toBe(true);
    expect(isPreview('GET', { 'sec-purpose': 'prefetch;prerender' }, UaClass.Mobile)).toBe(true);
    expect(isPreview('GET', { purpose: 'prefetch' }, UaClass.Desktop)).toBe(true);
    expect(isPreview('GET', { 'x-moz': 'prefetch' }, UaClass.Desktop)).toBe(true);
  });

  it('keeps links in memory for their cache time, at most cacheMax of them, the oldest dropped first, across domains', async () => {
    let reads = 0;
    const pool = {
      // the store sends its lookup as a prepared statement's config ({ name, text, values })
      query: async ({ values: [domains] }: { values: [string, string, string] }) => {
        reads++;
        return { rows: domains.split(',').map((_d, i) => [`${i + 1},1,,,,,,0,,,0,,,,`, null, null, 'https://a.example/']) };
      },
    } as unknown as Pool;
    let now = 1_000;
    const store = new LinkStore(pool, { cacheTtlMs: 10_000, negativeTtlMs: 2_000, cacheMax: 10, now: () => now });
    for (let code = 0; code < 10; code++) await store.loadLink(code < 5 ? '1' : '2', code);
    expect(reads).toBe(10);
    for (let code = 0; code < 10; code++) expect(store.cachedLink(code < 5 ? '1' : '2', code)?.code).toBe(code);
    // the eleventh drops the oldest one; the others stay
    await store.loadLink('3', 99);
    expect(store.cachedLink('1', 0)).toBeUndefined();
    expect(store.cachedLink('1', 1)?.code).toBe(1);
    expect(store.cachedLink('3', 99)?.location).toBe('https://a.example/');
    // a link is the same code under its own domain only
    expect(store.cachedLink('2', 1)).toBeUndefined();
    // a link without an offer cannot answer differently (its rows never change): past the cache time it is served on,
    // and read again after REREAD_AFTER cache times (docs/decisions/0117)
    now += 10_001;
    expect(store.cachedLink('1', 1)?.code).toBe(1);
    now += 10_000 * LinkStore.REREAD_AFTER;
    expect(store.cachedLink('1', 1)).toBeUndefined();
    expect(reads).toBe(11);
  });
});
