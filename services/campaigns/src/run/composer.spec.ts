import { MissingRule } from '@switchboard/contracts';
import { z } from 'zod';
import { Composer, recipientMessageUuid, recipientMessageUuidV5, type ComposeInput } from './composer';

/** A small stand-in spintax (flat `{a|b}` groups), deterministic for a seed, as the campaigns service's module is. */
const spin = (text: string, seed: string): string => {
  let h = 0;
  for (const c of seed) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return text.replace(/\{([^{}]*\|[^{}]*)\}/g, (_, body: string) => {
    const options = body.split('|');
    h = (h * 1103515245 + 12345) >>> 0;
    return options[h % options.length];
  });
};

const base: ComposeInput = {
  campaignId: '7',
  variants: [{ id: '1', text: 'Hi {{firstName}}, {{city}} sale!', ratio: 100 }],
  senders: [{ value: 'Acme', ratio: 100 }],
  variables: [
    { id: '1001', name: 'city', defaultValue: 'your city', missingRule: MissingRule.UseDefault, link: false },
    { id: '2', name: 'firstName', defaultValue: null, missingRule: MissingRule.SkipRecipient, link: false },
  ],
  sms: true,
};

const r = (ordinal: number, variables: Record<string, string>, contactId = String(100 + ordinal)) => ({ ordinal, contactId, occurrence: 0, variables });

describe('message composer', () => {
  it('fills variables, and applies the missing rules: skip the recipient, or use the default value', () => {
    const c = new Composer(base);
    expect(c.compose(r(0, { '2': 'Ann', '1001': 'Paris' }))).toMatchObject({ ok: true, text: 'Hi Ann, Paris sale!', sender: 'Acme', segments: 1, encoding: 'GSM7' });
    expect(c.compose(r(1, { '2': 'Bob' }))).toMatchObject({ ok: true, text: 'Hi Bob, your city sale!' });
    expect(c.compose(r(2, { '1001': 'Rome' }))).toEqual({ ok: false, reason: 'missing_variable', variable: 'firstName' });
    expect(c.compose(r(3, { '2': '', '1001': 'Rome' }))).toEqual({ ok: false, reason: 'missing_variable', variable: 'firstName' });
  });

  it("composes from the values of its variable ids as from the recipient's variables (what the runner reads per recipient)", () => {
    const c = new Composer({ ...base, variants: [{ id: '1', text: 'Hi {{firstName}}, {{city}} sale!', ratio: 50 }, { id: '2', text: '{{city}} for {{firstName}} and {{lastName}}', ratio: 50 }] });
    expect(c.valueIds).toEqual(['2', '1001', '3']);
    const cases: Array<Record<string, string>> = [{ '2': 'Ann', '1001': 'Paris', '3': 'Doe' }, { '2': 'Bob' }, { '1001': 'Rome' }, { '2': '', '1001': 'Rome' }, {}];
    for (let ordinal = 0; ordinal < 40; ordinal++) {
      const vars = cases[ordinal % cases.length];
      const values = c.valueIds.map((id) => vars[id] ?? null);
      expect(c.compose({ ordinal, contactId: String(ordinal), occurrence: 0, values })).toEqual(c.compose(r(ordinal, vars)));
    }
  });

  it('reads a recipient\'s values from where they start in a page of fields (the send step reads a page as one array)', () => {
    const c = new Composer({ ...base, variants: [{ id: '1', text: 'Hi {{firstName}}, {{city}} sale!', ratio: 100 }] });
    // a page of rows of [ordinal, firstName, city]
    const page = ['0', 'Ann', 'Paris', '1', 'Bob', null, '2', null, 'Rome'];
    const at = (i: number) => c.compose({ ordinal: Number(page[i]), contactId: String(i), occurrence: 0, values: page, valuesFrom: i + 1 });
    expect(at(0)).toMatchObject({ ok: true, text: 'Hi Ann, Paris sale!' });
    expect(at(3)).toMatchObject({ ok: true, text: 'Hi Bob, your city sale!' });
    expect(at(6)).toEqual({ ok: false, reason: 'missing_variable', variable: 'firstName' });
  });

  it("composes a text holding the marks' own characters without spintax as it does with spintax", () => {
    const c = new Composer({ ...base, variants: [{ id: '1', text: 'A \uE0001\uE001 {{firstName}} \uE0000\uE001 {{city}}', ratio: 100 }] });
    const spun = new Composer({ ...base, spin, variants: [{ id: '1', text: '{A|A} \uE0001\uE001 {{firstName}} \uE0000\uE001 {{city}}', ratio: 100 }] });
    expect(c.compose(r(0, { '2': 'Ann', '1001': 'Rome' }))).toEqual({ ...spun.compose(r(0, { '2': 'Ann', '1001': 'Rome' })), variantId: '1' });
  });

  it('places every value where its placeholder stands, repeated, adjacent, first or last, and inserts values as written', () => {
    const c = new Composer({ ...base, variants: [{ id: '1', text: '{{firstName}}{{firstName}} x {{city}}', ratio: 100 }] });
    expect(c.compose(r(0, { '2': 'Ann', '1001': 'Paris' }))).toMatchObject({ ok: true, text: 'AnnAnn x Paris' });
    // replacement patterns and the composer's own marks inside a value stay as they are
    expect(c.compose(r(1, { '2': "$& $1 $'", '1001': '\uE0000\uE001' }))).toMatchObject({ ok: true, text: "$& $1 $'$& $1 $' x \uE0000\uE001" });
  });

  it('uses an empty default for a standard variable the campaign did not link, and leaves unknown placeholders as written', () => {
    const c = new Composer({ ...base, variables: [], variants: [{ id: '1', text: 'Hi {{lastName}}{{nope}}', ratio: 100 }] });
    expect(c.compose(r(0, {}))).toMatchObject({ ok: true, text: 'Hi {{nope}}' });
    expect(c.compose(r(0, { '3': 'Doe' }))).toMatchObject({ ok: true, text: 'Hi Doe{{nope}}' });
  });

  it('resolves spintax per recipient, the same text on every retry, and never reads a value as spintax', () => {
    const c = new Composer({ ...base, spin, variants: [{ id: '1', text: '{Hello|Hi|Hey} {{firstName}}, {great|big} {{city}} sale', ratio: 100 }] });
    const texts = Array.from({ length: 50 }, (_, i) => c.compose(r(i, { '2': 'A{b|c}', '1001': 'X' })));
    for (const t of texts) expect(t.ok && /^(Hello|Hi|Hey) A\{b\|c\}, (great|big) X sale$/.test(t.text)).toBe(true);
    expect(new Set(texts.map((t) => t.ok && t.text.split(' ')[0])).size).toBe(3);
    const again = new Composer({ ...base, spin, variants: [{ id: '1', text: '{Hello|Hi|Hey} {{firstName}}, {great|big} {{city}} sale', ratio: 100 }] });
    expect(Array.from({ length: 50 }, (_, i) => again.compose(r(i, { '2': 'A{b|c}', '1001': 'X' })))).toEqual(texts);
  });

  it('picks the variant and sender by ratio and counts segments of the final text', () => {
    const c = new Composer({
      ...base,
      variables: [],
      variants: [
        { id: '10', text: 'short', ratio: 50 },
        { id: '11', text: `long ${'x'.repeat(200)} Привет`, ratio: 50 },
      ],
      senders: [
        { value: 'A', ratio: 25 },
        { value: 'B', ratio: 75 },
      ],
    });
    const out = Array.from({ length: 10_000 }, (_, i) => c.compose(r(i, {})));
    const long = out.filter((o) => o.ok && o.variantId === '11');
    expect(Math.abs(long.length - 5000)).toBeLessThan(100);
    expect(long[0]).toMatchObject({ encoding: 'UCS2', segments: 4 });
    expect(Math.abs(out.filter((o) => o.ok && o.sender === 'A').length - 2500)).toBeLessThan(100);
  });

  it('needs a minted link for each link variable', () => {
    const c = new Composer({ ...base, variables: [], variants: [{ id: '1', text: 'Go {{shorturl}} stop: {{optout}}', ratio: 100 }] });
    expect(c.linkVariables.sort()).toEqual(['optout', 'shorturl']);
    expect(c.compose(r(0, {}), { shorturl: 'https://s.io/a' })).toEqual({ ok: false, reason: 'missing_link', variable: 'optout' });
    expect(c.compose(r(0, {}), { shorturl: 'https://s.io/a', optout: 'https://s.io/o' })).toMatchObject({ ok: true, text: 'Go https://s.io/a stop: https://s.io/o' });
  });

  it('gives a recipient copy the same uuid every time, another copy another', () => {
    const u = recipientMessageUuid('7', '100', 0);
    expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(z.string().uuid().safeParse(u).success).toBe(true); // what dispatch's and links' contracts accept
    expect(recipientMessageUuid('7', '100', 0)).toBe(u);
    expect(recipientMessageUuid('7', '100', 1)).not.toBe(u);
    expect(recipientMessageUuid('8', '100', 0)).not.toBe(u);
    expect(recipientMessageUuid('7', '101', 0)).not.toBe(u);
    // the version 5 uuids of runs already stored keep their values (a run restarted on a new version asks again with them)
    expect([recipientMessageUuidV5('7', '100', 0), recipientMessageUuidV5('7', '100', 1), recipientMessageUuidV5('123456789', '987654321', 2)]).toEqual([
      '947f4b2f-a9af-584a-829c-39e4bd043821',
      '1c4a20f7-5994-5cd9-b863-800e0ee658a6',
      'dff4a560-9015-587d-903a-e04b5fa7084b',
    ]);
  });

  it('writes an audience read in contact order as ascending uuids, one for each (campaign, contact, copy)', () => {
    // the audience's order (contact id, then copy): its uuids must come out sorted so the unique index is appended to
    const audience: Array<[string, number]> = [];
    for (const contact of ['1', '2', '15', '16', '255', '256', '4095', '4096', '999999999999999', '1000000000000000', '1152921504606846975']) {
      for (let copy = 0; copy < 3; copy++) audience.push([contact, copy]);
    }
    audience.push(['1152921504606846975', 4095]);
    for (const campaign of ['1', '4660', '281474976710655']) {
      const uuids = audience.map(([contact, copy]) => recipientMessageUuid(campaign, contact, copy));
      expect([...uuids].sort()).toEqual(uuids);
      expect(new Set(uuids).size).toBe(uuids.length);
      for (const u of uuids) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    // a later campaign's audience sorts after an earlier one's
    expect(recipientMessageUuid('4661', '1', 0) > recipientMessageUuid('4660', '1152921504606846975', 4095)).toBe(true);
    expect(recipientMessageUuid('4660', '16', 2)).toBe('00000000-1234-8000-8000-000000010002');
  });

  it('gives ids outside the ordered ranges the version 5 uuid, never one an ordered id has', () => {
    const big = [
      ['281474976710656', '1', 0], // campaign of 2^48
      ['7', '1152921504606846976', 0], // contact of 2^60
      ['7', '100', 4096], // a copy past 12 bits
      ['7', '100', -1],
    ] as const;
    for (const [campaign, contact, copy] of big) {
      expect(recipientMessageUuid(campaign, contact, copy)).toBe(recipientMessageUuidV5(campaign, contact, copy));
      expect(recipientMessageUuid(campaign, contact, copy)[14]).toBe('5');
    }
  });
});
