import { encodeMintedLinks, LinkBatchMintedV1, LinkBatchMintedV2, mintedLinkAt, mintedLinksByRef, mintedPickWidth, readLinkBatchMinted } from './links-events';

/** A v1 answer as links wrote it: per ref, each variable's `https://<domain>/<7-character code>`. */
function v1Links(refs: string[], domains: string[], variables: string[]): Record<string, Record<string, string>> {
  const code = (i: number, vi: number) => `${String.fromCharCode(65 + vi)}${String(i).padStart(6, '0')}`.replace(/0/g, 'z');
  return Object.fromEntries(refs.map((ref, i) => [ref, Object.fromEntries(variables.map((v, vi) => [v, `https://${domains[(i * (vi + 1)) % domains.length]}/${code(i, vi)}`]))]));
}

const base = { batchId: 'b-1', accountId: '7', campaignId: '42', outcome: 'minted' as const };

describe('links.link_batch.minted v2, the compact answer', () => {
  it('encodes v1 links into refs, per-variable prefixes, picks and codes, and decodes them to the same links', () => {
    const refs = Array.from({ length: 40 }, (_, i) => String(i));
    const links = v1Links(refs, ['go.acme.test', 'b.acme.test', 'c.acme.test'], ['shorturl', 'optout']);
    const packed = encodeMintedLinks(links);
    expect(packed.refs).toEqual(refs);
    expect(packed.variables.map((v) => [v.variable, v.prefixes, v.codeWidth, v.picks.length, v.codes.length])).toEqual([
      ['shorturl', ['https://go.acme.test/', 'https://b.acme.test/', 'https://c.acme.test/'], 7, 40, 280],
      ['optout', ['https://go.acme.test/', 'https://c.acme.test/', 'https://b.acme.test/'], 7, 40, 280],
    ]);
    // validated as it travels, then read back link by link
    const data = LinkBatchMintedV2.schema.parse(JSON.parse(JSON.stringify({ ...base, ...packed })));
    expect(mintedLinksByRef(data)).toEqual(links);
    expect(mintedLinkAt(data.variables[1], 5)).toBe(links['5'].optout);
    // the domain is written once a variable, not once a link: under half of v1's bytes
    expect(JSON.stringify(data).length).toBeLessThan(JSON.stringify({ ...base, links }).length / 2);
  });

  it('reads a v1 and a v2 answer of the same links the same way (a rolling upgrade), and nothing else', () => {
    const refs = ['r3', 'r1', 'r2'];
    const links = v1Links(refs, ['one.test'], ['shorturl']);
    const v1 = readLinkBatchMinted({ type: LinkBatchMintedV1.type, version: 1, data: { ...base, links, usages: [{ domainId: '5', domain: 'one.test', variantId: null, links: 3 }] } });
    const v2 = readLinkBatchMinted({ type: LinkBatchMintedV2.type, version: 2, data: { ...base, ...encodeMintedLinks(links), usages: [{ domainId: '5', domain: 'one.test', variantId: null, links: 3 }] } });
    for (const read of [v1, v2]) {
      expect(read).toMatchObject({ ...base, refs, variables: ['shorturl'], usages: [{ domainId: '5', links: 3 }] });
      expect(refs.map((_, i) => read!.link(i, 0))).toEqual(refs.map((r) => links[r].shorturl));
      expect([...read!.perPrefix()]).toEqual([['https://one.test/', 3]]);
    }
    // one domain: no picks at all
    expect(encodeMintedLinks(links).variables[0].picks).toBe('');
    expect(readLinkBatchMinted({ type: LinkBatchMintedV2.type, version: 3, data: {} })).toBeNull();
    expect(readLinkBatchMinted({ type: 'links.link.clicked', version: 2, data: {} })).toBeNull();
    const refused = readLinkBatchMinted({ type: LinkBatchMintedV2.type, version: 2, data: { ...base, outcome: 'no_valid_domain', refs: [], variables: [] } });
    expect(refused).toMatchObject({ outcome: 'no_valid_domain', refs: [] });
  });

  it('counts each domain prefix’s links from the picks, over every variable', () => {
    const refs = Array.from({ length: 7 }, (_, i) => `r${i}`);
    const read = readLinkBatchMinted({ type: LinkBatchMintedV2.type, version: 2, data: { ...base, ...encodeMintedLinks(v1Links(refs, ['a.test', 'b.test'], ['x', 'y'])) } })!;
    const v1 = readLinkBatchMinted({ type: LinkBatchMintedV1.type, version: 1, data: { ...base, links: v1Links(refs, ['a.test', 'b.test'], ['x', 'y']) } })!;
    expect(Object.fromEntries(read.perPrefix())).toEqual({ 'https://a.test/': 11, 'https://b.test/': 3 });
    expect(Object.fromEntries(v1.perPrefix())).toEqual(Object.fromEntries(read.perPrefix()));
  });

  it('refuses an answer whose runs do not match its refs, a pick past its prefixes, or a prefix that is not a scheme and a host', () => {
    const good = { ...base, ...encodeMintedLinks(v1Links(['0', '1'], ['a.test', 'b.test'], ['shorturl'])) };
    const v = good.variables[0];
    expect(LinkBatchMintedV2.schema.safeParse(good).success).toBe(true);
    expect(LinkBatchMintedV2.schema.safeParse({ ...good, variables: [{ ...v, codes: v.codes.slice(1) }] }).success).toBe(false);
    expect(LinkBatchMintedV2.schema.safeParse({ ...good, variables: [{ ...v, picks: '0' }] }).success).toBe(false);
    expect(LinkBatchMintedV2.schema.safeParse({ ...good, variables: [{ ...v, picks: '02' }] }).success).toBe(false);
    expect(LinkBatchMintedV2.schema.safeParse({ ...good, variables: [{ ...v, prefixes: ['https://a.test/x/', 'https://b.test/'] }] }).success).toBe(false);
    expect(LinkBatchMintedV2.schema.safeParse({ ...good, variables: [{ ...v, prefixes: ['javascript:alert(1)//', 'https://b.test/'] }] }).success).toBe(false);
    expect(LinkBatchMintedV2.schema.safeParse({ ...good, variables: [{ ...v, codes: `${v.codes.slice(0, 13)}"` }] }).success).toBe(false);
    expect(() => encodeMintedLinks({ a: { shorturl: 'https://a.test/abc' }, b: { shorturl: 'https://a.test/abcd' } })).toThrow(/one width/);
    expect(() => encodeMintedLinks({ a: { shorturl: 'https://a.test/abc' }, b: {} })).toThrow(/has no shorturl/);
  });

  it('writes a pick in as few base62 digits as its prefixes need', () => {
    expect([1, 2, 62, 63, 3844].map(mintedPickWidth)).toEqual([0, 1, 1, 2, 2]);
    const refs = Array.from({ length: 70 }, (_, i) => String(i));
    const domains = Array.from({ length: 70 }, (_, i) => `d${i}.test`);
    const links = Object.fromEntries(refs.map((r, i) => [r, { shorturl: `https://${domains[i]}/abcdefg` }]));
    const packed = encodeMintedLinks(links);
    expect(packed.variables[0].picks).toHaveLength(140);
    expect(mintedLinksByRef(LinkBatchMintedV2.schema.parse({ ...base, ...packed }))).toEqual(links);
  });
});
