import { campaignSalt, pickByRatio, RatioPicker, SENDER_ALPHA, VARIANT_ALPHA } from './ratio';

const shares = (picks: number[], n: number) => {
  const counts = new Array<number>(n).fill(0);
  for (const p of picks) counts[p]++;
  return counts.map((c) => (c / picks.length) * 100);
};

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('variant and sender ratios', () => {
  const salt = campaignSalt('1234');

  it('gives every variant its ratio within 1% over 100,000 recipients', () => {
    for (const ratios of [[50, 50], [70, 20, 10], [34, 33, 33], [1, 99], [25, 25, 25, 25], [10, 0, 90]]) {
      const picker = new RatioPicker(ratios.map((ratio) => ({ ratio })), salt, VARIANT_ALPHA);
      const got = shares(range(0, 100_000).map((n) => picker.pick(n)), ratios.length);
      got.forEach((s, i) => expect(Math.abs(s - ratios[i])).toBeLessThan(1));
    }
  });

  it('gives every sender its ratio within 1% over 100,000 recipients, independently of the variant', () => {
    const variants = new RatioPicker([{ ratio: 60 }, { ratio: 40 }], salt, VARIANT_ALPHA);
    const senders = new RatioPicker([{ ratio: 20 }, { ratio: 30 }, { ratio: 50 }], salt, SENDER_ALPHA);
    const pairs = range(0, 100_000).map((n) => [variants.pick(n), senders.pick(n)]);
    const got = shares(pairs.map(([, s]) => s), 3);
    [20, 30, 50].forEach((r, i) => expect(Math.abs(got[i] - r)).toBeLessThan(1));
    // each variant's recipients are split between the senders by the senders' ratios too
    for (const v of [0, 1]) {
      const mine = shares(pairs.filter(([pv]) => pv === v).map(([, s]) => s), 3);
      [20, 30, 50].forEach((r, i) => expect(Math.abs(mine[i] - r)).toBeLessThan(1));
    }
  });

  it('applies a ratio change to the recipients not sent yet', () => {
    const before = new RatioPicker([{ ratio: 50 }, { ratio: 50 }], salt, VARIANT_ALPHA);
    const after = new RatioPicker([{ ratio: 90 }, { ratio: 10 }], salt, VARIANT_ALPHA);
    const sent = range(0, 37_123).map((n) => before.pick(n));
    const rest = range(37_123, 137_123).map((n) => after.pick(n));
    const s1 = shares(sent, 2);
    const s2 = shares(rest, 2);
    expect(Math.abs(s1[0] - 50)).toBeLessThan(1);
    expect(Math.abs(s2[0] - 90)).toBeLessThan(1);
    expect(Math.abs(s2[1] - 10)).toBeLessThan(1);
  });

  it('is deterministic: the same recipient gets the same choice, another campaign another sequence', () => {
    const a = new RatioPicker([{ ratio: 30 }, { ratio: 70 }], salt, VARIANT_ALPHA);
    const b = new RatioPicker([{ ratio: 30 }, { ratio: 70 }], salt, VARIANT_ALPHA);
    const other = new RatioPicker([{ ratio: 30 }, { ratio: 70 }], campaignSalt('1235'), VARIANT_ALPHA);
    const seq = range(0, 1000).map((n) => a.pick(n));
    expect(range(0, 1000).map((n) => b.pick(n))).toEqual(seq);
    expect(range(0, 1000).map((n) => other.pick(n))).not.toEqual(seq);
  });

  it('never picks a zero ratio, and answers -1 when nothing can be picked', () => {
    expect(pickByRatio([{ ratio: 0 }, { ratio: 100 }], 0)).toBe(1);
    expect(pickByRatio([{ ratio: 100 }, { ratio: 0 }], 0.999)).toBe(0);
    expect(pickByRatio([{ ratio: 0 }], 0.5)).toBe(-1);
    expect(new RatioPicker([], salt, VARIANT_ALPHA).pick(3)).toBe(-1);
  });
});
