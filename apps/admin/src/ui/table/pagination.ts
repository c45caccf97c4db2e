import { PAGE_MARGIN, PAGE_RANGE, PAGE_SIZES } from '../../constants';

export type PageItem = number | 'gap-start' | 'gap-end';

/**
 * The page buttons of the table footer (spec 2 and 9): a window of PAGE_RANGE pages around the current one and
 * PAGE_MARGIN pages at each end, with a gap where pages are left out. Pages are 1-based.
 */
export function pageItems(page: number, pageCount: number, range = PAGE_RANGE, margin = PAGE_MARGIN): PageItem[] {
  if (pageCount <= 0) return [];
  if (pageCount <= range + 2 * margin) return Array.from({ length: pageCount }, (_, i) => i + 1);
  let start = Math.max(1, page - Math.floor((range - 1) / 2));
  let end = start + range - 1;
  if (end > pageCount) {
    end = pageCount;
    start = end - range + 1;
  }
  const shown = new Set<number>();
  for (let p = 1; p <= margin; p++) shown.add(p);
  for (let p = start; p <= end; p++) shown.add(p);
  for (let p = pageCount - margin + 1; p <= pageCount; p++) shown.add(p);
  const sorted = [...shown].filter((p) => p >= 1 && p <= pageCount).sort((a, b) => a - b);
  const out: PageItem[] = [];
  sorted.forEach((p, i) => {
    if (i > 0 && p - sorted[i - 1] > 1) out.push(sorted[i - 1] < page ? 'gap-start' : 'gap-end');
    out.push(p);
  });
  return out;
}

/** Spec 2: the page-size dropdown offers 10, 25, 50, 100 and adds the current size if missing. */
export function pageSizeOptions(current: number): number[] {
  const sizes: number[] = [...PAGE_SIZES];
  if (!sizes.includes(current)) sizes.push(current);
  return sizes.sort((a, b) => a - b);
}
