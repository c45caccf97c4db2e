/**
 * Round axis ticks from 0 to at least `max`: 4 steps of 1, 2 or 5 times a power of ten. A count's axis (`whole`) steps
 * by whole numbers, so 1 click is not drawn against a 0.5 tick.
 */
export function axisTicks(max: number, whole = true): number[] {
  if (max <= 0) return [0, 1];
  const raw = max / 4;
  const pow = 10 ** Math.floor(Math.log10(raw));
  const found = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? raw;
  const step = whole ? Math.max(1, found) : found;
  return Array.from({ length: Math.ceil(max / step) + 1 }, (_, i) => i * step);
}
