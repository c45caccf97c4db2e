import { Logger } from '@nestjs/common';
import { CodeCipher, decodeCode } from '../src/mint/codes';
import { batch, CODE_SECRET, shortUrl, split, startLinks, type LinksTestApp } from './redirect-support';

const A = '451';

/**
 * Variables minted as their values alone (docs/decisions/0150, `mintVarsValues`): a link of a target with its own URL
 * keeps the JSON array of its values in the order of the URL's placeholders, and the redirect answers the same URL as
 * for the object of them; an offer's links (whose URL may change) keep the object.
 */
describe('links minted with their variables as values', () => {
  let l: LinksTestApp;
  const cipher = new CodeCipher(CODE_SECRET);

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    l = await startLinks({ mintVarsValues: true });
  }, 60_000);

  afterAll(async () => {
    await l?.close();
    jest.restoreAllMocks();
  });

  /** The `vars` text `links.link_of` gives for a short URL (as the redirect reads it). */
  const storedText = async (short: string): Promise<string | null> => {
    const u = new URL(short);
    const code = decodeCode(u.pathname.slice(1));
    const [row] = await l.sql<{ vars: string | null }>(`SELECT l.vars FROM links.domain d CROSS JOIN LATERAL links.link_of(d.id, $2, $3) l WHERE d.name = $1`, [u.host, code, cipher.decrypt(code)]);
    return row.vars;
  };

  it('stores each link’s values in the URL’s placeholder order and redirects to the URL filled as before', async () => {
    const d = await l.domain(A, 'values.test');
    // `{a}` twice: one value, both places filled
    const url = 'https://shop.example/v/{a}?b={b}&c={c}&again={a}';
    const varsOf = (i: number): Record<string, string> => {
      switch (i) {
        case 0:
          return { a: 'plain', b: 'Zoë ✓', c: `x${i}` };
        case 1:
          return { a: `q "1" \\ \u0001 \n`, b: '\u{1F600}', c: 'NULL', unused: 'not stored' };
        case 2:
          return { a: 'only a' }; // the last two missing: left out
        case 3:
          return { c: 'only c' }; // the first two missing: null
        case 4:
          return {}; // none
        case 5:
          return { a: 'a\u0000b', b: '', c: '[1,2]' };
        default:
          return { a: `a${i}`, b: `b${i}`, c: `c${i}` };
      }
    };
    const req = batch(A, [shortUrl({ url, domainIds: [d] })], 20, varsOf, '95');
    const answer = await l.mint(req);
    expect(answer.outcome).toBe('minted');
    const expectedText = [
      JSON.stringify(['plain', 'Zoë ✓', 'x0']),
      JSON.stringify([`q "1" \\ \u0001 \n`, '\u{1F600}', 'NULL']),
      '["only a"]',
      '[null,null,"only c"]',
      '[]',
      JSON.stringify(['a\u0000b', '', '[1,2]']),
    ];
    for (const [i, item] of req.items.entries()) {
      const short = answer.links[item.ref].shorturl;
      const v = item.vars;
      expect(await storedText(short)).toBe(expectedText[i] ?? JSON.stringify([`a${i}`, `b${i}`, `c${i}`]));
      const { host, path } = split(short);
      const res = await l.hit(host, path);
      expect(res.status).toBe(302);
      const e = (name: string) => encodeURIComponent(v[name] ?? '');
      expect(res.headers.location).toBe(`https://shop.example/v/${e('a')}?b=${e('b')}&c=${e('c')}&again=${e('a')}`);
    }
  });

  it('keeps an offer’s links’ variables as the object of them, and redirects them', async () => {
    const d = await l.domain(A, 'values-offer.test');
    const offer = await l.offer(A, 'https://shop.example/o?n={name}&m={more}');
    const req = batch(A, [shortUrl({ offerId: offer, domainIds: [d] })], 3, (i): Record<string, string> => (i === 1 ? { more: 'm' } : { name: `Zoë ${i}`, more: 'm' }), '96');
    const answer = await l.mint(req);
    expect(answer.outcome).toBe('minted');
    for (const [i, item] of req.items.entries()) {
      const short = answer.links[item.ref].shorturl;
      expect(await storedText(short)).toBe(JSON.stringify(i === 1 ? { more: 'm' } : { name: `Zoë ${i}`, more: 'm' }));
      const { host, path } = split(short);
      const res = await l.hit(host, path);
      expect(res.headers.location).toBe(`https://shop.example/o?n=${encodeURIComponent(item.vars.name ?? '')}&m=m`);
    }
  });
});
