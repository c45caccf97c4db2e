import { evenSplit, RatioPicker, ratioProblem } from './ratios';

describe('ratios', () => {
  it('splits 100 evenly in whole numbers with the remainder on the last', () => {
    expect(evenSplit(1)).toEqual([100]);
    expect(evenSplit(3)).toEqual([33, 33, 34]);
    expect(evenSplit(7)).toEqual([14, 14, 14, 14, 14, 14, 16]);
    for (let n = 1; n <= 100; n++) expect(evenSplit(n).reduce((s, r) => s + r, 0)).toBe(100);
  });

  it('accepts whole numbers summing to 100 and names what is wrong otherwise', () => {
    expect(ratioProblem([50, 50])).toBeNull();
    expect(ratioProblem([100, 0])).toBeNull();
    expect(ratioProblem([50, 49])).toBe('totalRatio');
    expect(ratioProblem([50.5, 49.5])).toBe('notWhole');
    expect(ratioProblem([-10, 110])).toBe('notWhole');
  });

  it('distributes 100,000 recipients within 1% of each ratio, and applies a change to the rest only', () => {
    for (const ratios of [[33, 33, 34], [70, 20, 10], [1, 99], [25, 25, 25, 25]]) {
      const picker = new RatioPicker(ratios);
      const counts = ratios.map(() => 0);
      for (let i = 0; i < 100_000; i++) counts[picker.next()]++;
      ratios.forEach((r, i) => expect(Math.abs(counts[i] / 100_000 - r / 100)).toBeLessThan(0.01));
    }
    const before = new RatioPicker([50, 50]);
    const counts = [0, 0];
    for (let i = 0; i < 50_000; i++) counts[before.next()]++;
    const after = new RatioPicker([90, 10]);
    for (let i = 0; i < 50_000; i++) counts[after.next()]++;
    expect(counts).toEqual([25_000 + 45_000, 25_000 + 5_000]);
  });
});
