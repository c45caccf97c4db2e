import type { EntityManager } from 'typeorm';
import { checkWordLists, SpintaxError, type WordLists } from '@switchboard/contracts';
import { evenSplit, ratioProblem } from '../compose/ratios';
import { idOf, int, isObject, spintaxOf, type Violations } from './input';

/** Colours given to variants without one, by position. */
export const VARIANT_COLOURS = ['#ff9600', '#3b82f6', '#22c55e', '#ef4444', '#a855f7', '#14b8a6', '#eab308', '#ec4899'];
export const COLOUR = /^#[0-9a-fA-F]{6}$/;
export const MAX_TEXT = 10_000;

export interface VariantInput {
  /** Set when the item names an existing variant (ratio changes, updates keeping ids). */
  id: string | null;
  name: string;
  text: string;
  color: string;
  ratio: number;
}

/** The account's word lists, by lower-cased name (spintax `[[name]]`). */
export async function loadWordLists(m: Pick<EntityManager, 'query'>, accountId: string): Promise<WordLists> {
  const rows = await m.query<Array<{ name: string; words: string[] }>>(
    `SELECT l.name, coalesce(array_agg(w.value ORDER BY w.id) FILTER (WHERE w.id IS NOT NULL), '{}') AS words
       FROM campaigns.word_list l LEFT JOIN campaigns.word w ON w.word_list_id = l.id WHERE l.account_id = $1 GROUP BY l.id`,
    [accountId],
  );
  return new Map(rows.map((r) => [r.name.toLowerCase(), r.words]));
}

/** Checks a text's spintax and word lists; adds a violation naming the position on `path`. */
export function checkText(v: Violations, path: string, text: string, lists: WordLists): void {
  const nodes = spintaxOf(v, path, text);
  if (!nodes) return;
  try {
    checkWordLists(nodes, lists);
  } catch (e) {
    if (e instanceof SpintaxError) v.add(path, `Invalid spintax: ${e.message}.`, `spintax.${e.kind}`);
    else throw e;
  }
}

/**
 * A list of variants (spec 5): at least one (errors.client.oneVariant), every one with text (errors.client.allVariants),
 * ratios whole numbers summing to 100 (errors.client.totalRatio), or none given: an even split with the remainder on the
 * last. An unnamed variant is "Variant N"; a missing colour comes from the palette. Texts are checked as spintax.
 */
export function parseVariants(v: Violations, path: string, raw: unknown, lists: WordLists): VariantInput[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.length === 0) {
    v.add(path, 'At least one variant is needed.', 'errors.client.oneVariant');
    return undefined;
  }
  if (raw.length > 26) {
    v.add(path, 'At most 26 variants.', 'errors.client.max');
    return undefined;
  }
  const out: VariantInput[] = [];
  let ratiosGiven = 0;
  let textMissing = false;
  raw.forEach((item, i) => {
    const p = `${path}[${i}]`;
    if (!isObject(item)) {
      v.add(p, 'A variant is an object with name, text, color and ratio.');
      return;
    }
    const text = typeof item.text === 'string' ? item.text : '';
    if (!text.trim()) textMissing = true;
    else if (text.length > MAX_TEXT) v.add(`${p}.text`, `This value is too long. It should have ${MAX_TEXT} characters or less.`, 'errors.client.charLimit');
    else checkText(v, `${p}.text`, text, lists);
    const name = typeof item.name === 'string' && item.name.trim() ? item.name.trim().slice(0, 255) : `Variant ${i + 1}`;
    let color = VARIANT_COLOURS[i % VARIANT_COLOURS.length];
    if (item.color !== undefined && item.color !== null && item.color !== '') {
      if (typeof item.color !== 'string' || !COLOUR.test(item.color)) v.add(`${p}.color`, 'A colour is #RRGGBB.');
      else color = item.color.toLowerCase();
    }
    let ratio = 0;
    if (item.ratio !== undefined && item.ratio !== null) {
      ratiosGiven++;
      const r = int(v, `${p}.ratio`, item.ratio, { min: 0, max: 100 });
      if (typeof r === 'number') ratio = r;
    }
    out.push({ id: idOf(item.id), name, text, color, ratio });
  });
  if (textMissing) v.add(path, 'Every variant needs a text.', 'errors.client.allVariants');
  if (out.length !== raw.length) return undefined;
  if (ratiosGiven === 0) evenSplit(out.length).forEach((r, i) => (out[i].ratio = r));
  else if (ratiosGiven !== out.length || ratioProblem(out.map((x) => x.ratio))) v.add(path, 'The ratios must total 100.', 'errors.client.totalRatio');
  return out;
}

/** Ratios only (`[{ id, ratio }]`) for existing items: every item once, whole numbers, total 100. */
export function parseRatios(v: Violations, path: string, raw: unknown, known: readonly string[]): Map<string, number> | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) {
    v.add(path, 'A list of { id, ratio }.');
    return undefined;
  }
  const out = new Map<string, number>();
  raw.forEach((item, i) => {
    const id = isObject(item) ? idOf(item.id) : null;
    if (!id || !known.includes(id)) return v.add(`${path}[${i}].id`, 'Not an item of this campaign.');
    if (out.has(id)) return v.add(`${path}[${i}].id`, 'Given twice.');
    const r = int(v, `${path}[${i}].ratio`, (item as Record<string, unknown>).ratio, { min: 0, max: 100 });
    if (typeof r === 'number') out.set(id, r);
  });
  if (v.list.length) return undefined;
  if (out.size !== known.length) {
    v.add(path, 'Give the ratio of every item.', 'errors.client.totalRatio');
    return undefined;
  }
  if (ratioProblem([...out.values()])) {
    v.add(path, 'The ratios must total 100.', 'errors.client.totalRatio');
    return undefined;
  }
  return out;
}
