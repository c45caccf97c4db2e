import { describe, expect, it } from '@jest/globals';
import { axisTicks } from './ticks';

describe('a chart axis', () => {
  it('counts in whole steps: 1 click is drawn against 0 and 1, not a 0.5 tick (walkthrough 10)', () => {
    expect(axisTicks(1)).toEqual([0, 1]);
    expect(axisTicks(3)).toEqual([0, 1, 2, 3]);
    expect(axisTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(axisTicks(1000)).toEqual([0, 500, 1000]);
    for (const max of [1, 2, 3, 5, 9, 13, 120]) expect(axisTicks(max).every(Number.isInteger)).toBe(true);
  });

  it('keeps fractional steps for money', () => {
    expect(axisTicks(1, false)).toEqual([0, 0.5, 1]);
    expect(axisTicks(2, false)).toEqual([0, 0.5, 1, 1.5, 2]);
  });
});
