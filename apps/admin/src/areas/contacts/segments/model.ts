import { FILTER_GROUPS, VALUELESS_OPERATORS, type FilterGroupType } from '../constants';
import type { CustomCondition, FilterGroup, SegmentFilter, SetOperator } from '../types';

/** A group being edited: any group of the filter plus a key for React; it may be incomplete. */
export type DraftGroup = FilterGroup & { key: string };

let seq = 0;
const nextKey = () => `g${++seq}`;

export const isSetGroup = (g: FilterGroup): g is Extract<FilterGroup, { values: string[] }> => 'values' in g;
export const isDateGroup = (g: FilterGroup): g is Extract<FilterGroup, { type: 'created_before' | 'created_after' }> =>
  g.type === 'created_before' || g.type === 'created_after';

export function newGroup(type: FilterGroupType): DraftGroup {
  if (type === 'custom_fields') return { key: nextKey(), type, match: 'all', conditions: [{ variable: '', operator: 'eq', value: '' }] };
  if (type === 'created_before' || type === 'created_after') return { key: nextKey(), type, value: '' };
  return { key: nextKey(), type, operator: 'in' as SetOperator, values: [] } as DraftGroup;
}

const conditionComplete = (c: CustomCondition) => !!c.variable && (VALUELESS_OPERATORS.has(c.operator) || (c.value ?? '').trim() !== '');

/** Whether the group says enough to be sent: values chosen, conditions filled, a date given. */
export function isComplete(g: FilterGroup): boolean {
  if (g.type === 'custom_fields') return g.conditions.length > 0 && g.conditions.every(conditionComplete);
  if (isDateGroup(g)) return /^\d{4}-\d{2}-\d{2}$/.test(g.value);
  return g.values.length > 0;
}

/** The filter the server reads: complete groups only, without the editor's keys. */
export function toFilter(match: 'all' | 'any', groups: DraftGroup[]): SegmentFilter {
  return {
    match,
    groups: groups.filter(isComplete).map((g): FilterGroup => {
      if (g.type === 'custom_fields') {
        return {
          type: g.type,
          match: g.match,
          conditions: g.conditions.map((c) => (VALUELESS_OPERATORS.has(c.operator) ? { variable: c.variable, operator: c.operator } : { variable: c.variable, operator: c.operator, value: (c.value ?? '').trim() })),
        };
      }
      if (isDateGroup(g)) return { type: g.type, value: g.value };
      return { type: g.type, operator: g.operator, values: g.values } as FilterGroup;
    }),
  };
}

const KNOWN = new Set<string>(FILTER_GROUPS);

/** The stored filter (JSON text) as editor groups; unknown or malformed parts are left out. */
export function fromFilterText(text: string | null | undefined): { match: 'all' | 'any'; groups: DraftGroup[] } {
  let raw: unknown = null;
  try {
    raw = text ? JSON.parse(text) : null;
  } catch (_e) {
    raw = null;
  }
  const obj = (raw && typeof raw === 'object' ? raw : {}) as { match?: unknown; groups?: unknown };
  const match = obj.match === 'any' ? 'any' : 'all';
  const groups: DraftGroup[] = [];
  for (const g of Array.isArray(obj.groups) ? obj.groups : []) {
    if (!g || typeof g !== 'object' || !KNOWN.has((g as { type?: string }).type ?? '')) continue;
    const group = g as Record<string, unknown> & { type: FilterGroupType };
    if (group.type === 'custom_fields') {
      const conditions = (Array.isArray(group.conditions) ? group.conditions : []).map((c: Record<string, unknown>) => ({
        variable: String(c.variable ?? ''),
        operator: (c.operator as CustomCondition['operator']) ?? 'eq',
        value: c.value === undefined ? '' : String(c.value),
      }));
      groups.push({ key: nextKey(), type: 'custom_fields', match: group.match === 'any' ? 'any' : 'all', conditions });
    } else if (group.type === 'created_before' || group.type === 'created_after') {
      groups.push({ key: nextKey(), type: group.type, value: String(group.value ?? '').slice(0, 10) });
    } else {
      groups.push({
        key: nextKey(),
        type: group.type,
        operator: group.operator === 'not_in' ? 'not_in' : 'in',
        values: (Array.isArray(group.values) ? group.values : []).map(String),
      } as DraftGroup);
    }
  }
  return { match, groups };
}
