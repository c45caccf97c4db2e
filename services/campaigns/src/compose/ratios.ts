/**
 * Ratios of variants and senders (spec 5): whole numbers from 0 to 100 summing to 100; by default an even split with
 * the remainder on the last item. Pure.
 */

/** `n` items: floor(100 / n) each, the last takes what is left (3 -> 33, 33, 34). */
export function evenSplit(n: number): number[] {
  if (!Number.isInteger(n) || n <= 0) return [];
  const each = Math.floor(100 / n);
  return Array.from({ length: n }, (_, i) => (i === n - 1 ? 100 - each * (n - 1) : each));
}

export type RatioProblem = 'notWhole' | 'totalRatio';

/** Null when the ratios are valid: whole numbers 0..100 that sum to exactly 100. */
export function ratioProblem(ratios: readonly number[]): RatioProblem | null {
  if (ratios.some((r) => !Number.isInteger(r) || r < 0 || r > 100)) return 'notWhole';
  return ratios.reduce((s, r) => s + r, 0) === 100 ? null : 'totalRatio';
}

/**
 * Smooth weighted round robin (as nginx balances upstreams): each call picks the index whose running credit is the
 * highest, then takes the total off it. Over every 100 picks each index is chosen exactly `ratio` times, spread evenly,
 * so any prefix of the recipients is within one pick per item of its share. Deterministic from its state; a picker
 * built again with new ratios (a ratio change mid-campaign) applies them to the recipients still to compose.
 */
export class RatioPicker {
  private readonly credit: number[];
  private readonly total: number;

  constructor(private readonly ratios: readonly number[]) {
    this.credit = ratios.map(() => 0);
    this.total = ratios.reduce((s, r) => s + r, 0);
    if (this.total <= 0) throw new Error('RatioPicker: the ratios sum to 0');
  }

  next(): number {
    let best = -1;
    for (let i = 0; i < this.ratios.length; i++) {
      this.credit[i] += this.ratios[i];
      if (best < 0 || this.credit[i] > this.credit[best]) best = i;
    }
    this.credit[best] -= this.total;
    return best;
  }
}
