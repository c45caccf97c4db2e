/**
 * Variant and sender choice by ratio (docs/decisions/0032-campaign-runner.md): deterministic, proportional on any run
 * of consecutive recipients, and a ratio change applies to the recipients not sent yet.
 *
 * Recipient number n (its ordinal in the campaign's snapshot) gets the point frac(salt + n·α) of a Weyl sequence,
 * α = φ − 1 for variants and √2 − 1 for senders (1, α_variant, α_sender are rationally independent, so the pairs are
 * equidistributed over the unit square and the variant and sender choices are independent). Consecutive points of a
 * Weyl sequence fill [0, 1) with a discrepancy of O(log N / N): over 100,000 recipients every share is within a few
 * hundredths of a percent of its ratio, whatever the first ordinal, so the recipients left after a ratio change
 * follow the new ratios as closely. The point is a pure function of (campaign, ordinal): the same recipient always
 * gets the same variant and sender while the ratios stay the same (a retry composes the same message).
 */
export const VARIANT_ALPHA = 0.6180339887498949;
export const SENDER_ALPHA = 0.41421356237309515;

export interface Weighted {
  ratio: number;
}

/** A campaign's salt in [0, 1), so two campaigns do not start their sequences at the same point. */
export function campaignSalt(campaignId: string): number {
  // FNV-1a over the id, to 32 bits
  let h = 0x811c9dc5;
  for (let i = 0; i < campaignId.length; i++) {
    h ^= campaignId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 0x1_0000_0000;
}

/** The recipient's point in [0, 1) for one dimension (variants or senders). */
export function ratioPoint(ordinal: number, salt: number, alpha: number): number {
  const x = salt + ordinal * alpha;
  return x - Math.floor(x);
}

/**
 * The index of the item whose share of the ratios' total holds `u` (items with ratio 0 are never chosen); -1 when no
 * item has a positive ratio.
 */
export function pickByRatio(items: readonly Weighted[], u: number): number {
  let total = 0;
  for (const it of items) if (it.ratio > 0) total += it.ratio;
  if (total <= 0) return -1;
  const target = u * total;
  let acc = 0;
  let last = -1;
  for (let i = 0; i < items.length; i++) {
    if (!(items[i].ratio > 0)) continue;
    acc += items[i].ratio;
    last = i;
    if (target < acc) return i;
  }
  return last;
}

/** Precomputed cumulative ratios for a hot loop (a million recipients). */
export class RatioPicker {
  private readonly bounds: number[] = [];
  private readonly index: number[] = [];

  constructor(
    items: readonly Weighted[],
    private readonly salt: number,
    private readonly alpha: number,
  ) {
    let total = 0;
    for (const it of items) if (it.ratio > 0) total += it.ratio;
    let acc = 0;
    items.forEach((it, i) => {
      if (!(it.ratio > 0)) return;
      acc += it.ratio;
      this.bounds.push(acc / total);
      this.index.push(i);
    });
  }

  /** The chosen item's index for a recipient ordinal; -1 when no item has a positive ratio. */
  pick(ordinal: number): number {
    const n = this.bounds.length;
    if (n === 0) return -1;
    const u = ratioPoint(ordinal, this.salt, this.alpha);
    for (let k = 0; k < n - 1; k++) if (u < this.bounds[k]) return this.index[k];
    return this.index[n - 1];
  }
}
