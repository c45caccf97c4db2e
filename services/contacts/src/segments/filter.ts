import { z } from 'zod';
import { FilterGroupType, StandardVariable, type Violation } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';

/**
 * A segment filter: groups combined with `match` (all = AND, any = OR). Each group is one filter of spec 3's list.
 * Stored and sent as JSON (the spec's "filter (JSON string)"). Compiled to SQL only from the allow-lists below,
 * every value a bound parameter: no text from a filter is ever pasted into SQL.
 */
const idValue = z.union([z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,18}$/, 'must be an id')]).transform(String);
const idList = z.array(idValue).min(1, 'needs at least one value').max(1000);
const setOperator = z.enum(['in', 'not_in']).default('in');

const idGroup = <T extends string>(type: T) => z.object({ type: z.literal(type), operator: setOperator, values: idList }).strict();

const CustomOperator = z.enum(['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'empty', 'not_empty', 'gt', 'gte', 'lt', 'lte']);
export type CustomOperatorValue = z.infer<typeof CustomOperator>;

const customCondition = z
  .object({
    /** A variable id, or its name. */
    variable: z.union([idValue, z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'must be a variable id or name')]),
    operator: CustomOperator,
    value: z.union([z.string().max(1000), z.number().finite()]).optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.operator !== 'empty' && c.operator !== 'not_empty' && c.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: 'is required for this operator' });
  });

/** `2024-05-01` (a whole day) or an ISO 8601 date-time with its offset. */
const dateValue = z
  .string()
  .max(40)
  .refine(
    (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) || /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:?\d{2})$/.test(s)) && !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s)),
    'must be a date, YYYY-MM-DD or an ISO 8601 date-time with its offset',
  );

const group = z.discriminatedUnion('type', [
  z.object({ type: z.literal(FilterGroupType.Country), operator: setOperator, values: z.array(z.string().regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166 alpha-2 code')).min(1).max(300) }).strict(),
  z.object({ type: z.literal(FilterGroupType.Operator), operator: setOperator, values: z.array(z.string().min(1).max(100)).min(1).max(300) }).strict(),
  idGroup(FilterGroupType.ImportList),
  idGroup(FilterGroupType.Segment),
  idGroup(FilterGroupType.ContactList),
  idGroup(FilterGroupType.CampaignClickers),
  idGroup(FilterGroupType.CampaignRegister),
  idGroup(FilterGroupType.CampaignFtd),
  idGroup(FilterGroupType.OffersClickers),
  idGroup(FilterGroupType.OffersRegister),
  idGroup(FilterGroupType.OffersFtd),
  z.object({ type: z.literal(FilterGroupType.CustomFields), match: z.enum(['all', 'any']).default('all'), conditions: z.array(customCondition).min(1).max(50) }).strict(),
  z.object({ type: z.literal(FilterGroupType.CreatedBefore), value: dateValue }).strict(),
  z.object({ type: z.literal(FilterGroupType.CreatedAfter), value: dateValue }).strict(),
]);

export const SegmentFilterSchema = z.object({ match: z.enum(['all', 'any']).default('all'), groups: z.array(group).max(50) }).strict();
export type SegmentFilter = z.infer<typeof SegmentFilterSchema>;
type FilterGroup = SegmentFilter['groups'][number];

/**
 * Most terms (values, conditions, dates and expanded segment references, counted through every nested segment)
 * one filter may compile to. Without it, segments referring to segments multiply the SQL: 50 groups naming a
 * segment whose 50 groups name another is 2,500 expansions already.
 */
export const MAX_FILTER_TERMS = 1000;
/** Deepest chain of segments within segments. */
export const MAX_SEGMENT_DEPTH = 5;

const uniq = <T>(values: T[], key: (v: T) => string = String): T[] => {
  const seen = new Set<string>();
  return values.filter((v) => {
    const k = key(v);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

/** The same filter without repeats: a value twice in a group, a condition twice, a group twice all mean it once. */
function collapse(filter: SegmentFilter): SegmentFilter {
  const groups = filter.groups.map((g): FilterGroup => {
    if (g.type === FilterGroupType.Country) return { ...g, values: uniq(g.values.map((v) => v.toUpperCase())) };
    if ('values' in g) return { ...g, values: uniq(g.values as string[]) } as FilterGroup;
    if (g.type === FilterGroupType.CustomFields) return { ...g, conditions: uniq(g.conditions, (c) => JSON.stringify([String(c.variable), c.operator, c.value])) };
    return g;
  });
  return { ...filter, groups: uniq(groups, (g) => JSON.stringify(g)) };
}

const termsOf = (g: FilterGroup): number => ('values' in g ? g.values.length : g.type === FilterGroupType.CustomFields ? g.conditions.length : 1);

/** Reads a filter given as an object or as its JSON text; bad input is a 400 naming each bad path under `prefix`. */
export function parseFilter(input: unknown, prefix = 'filter'): SegmentFilter {
  let value = input;
  if (typeof input === 'string') {
    if (input.length > 100_000) throw AppError.validation([{ propertyPath: prefix, message: 'is too long' }]);
    try {
      value = JSON.parse(input);
    } catch {
      throw AppError.validation([{ propertyPath: prefix, message: 'must be a JSON object' }]);
    }
  }
  if (value === null || value === undefined) value = { groups: [] };
  const r = SegmentFilterSchema.safeParse(value);
  if (!r.success) {
    const violations: Violation[] = r.error.issues.map((i) => ({
      propertyPath: [prefix, ...i.path].reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), ''),
      message: i.message,
    }));
    throw AppError.validation(violations);
  }
  const filter = collapse(r.data);
  const terms = filter.groups.reduce((n, g) => n + termsOf(g), 0);
  if (terms > MAX_FILTER_TERMS) throw AppError.validation([{ propertyPath: prefix, message: `has ${terms} terms; at most ${MAX_FILTER_TERMS}` }]);
  return filter;
}

export interface ResolvedVariable {
  id: string;
  name: string;
  type: string;
  isStandard: boolean;
}

/** The account's data a filter refers to; every lookup is scoped to the account by the implementation. */
export interface FilterResolver {
  /** Lists and segments of the account among `ids` (not deleted), with a segment's stored filter. */
  lists(ids: string[]): Promise<Map<string, { type: string; filter: unknown }>>;
  /** Import lists of the account among `ids`, with the contact list each one filled (null when none). */
  importLists(ids: string[]): Promise<Map<string, string | null>>;
  /** Standard and the account's custom variables matching ids or names. */
  variables(refs: string[]): Promise<Map<string, ResolvedVariable>>;
}

/** Bound parameters of one statement; `add` returns the placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  constructor(initial: unknown[] = []) {
    this.values.push(...initial);
  }
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** Columns of the standard variables a custom-field condition may test (anything else is a jsonb key). */
const STANDARD_COLUMNS: Record<string, string> = {
  [StandardVariable.phone]: 'c.normalized_phone',
  [StandardVariable.firstName]: 'c.first_name',
  [StandardVariable.lastName]: 'c.last_name',
  [StandardVariable.email]: 'c.email',
  [StandardVariable.country]: 'c.country',
  [StandardVariable.timezone]: 'c.timezone',
};

const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function dayStart(value: string): string {
  return value.length === 10 ? `${value}T00:00:00Z` : value;
}
function nextDayStart(value: string): string {
  if (value.length !== 10) return value;
  const d = new Date(`${value}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

/**
 * Compiles a filter to a SQL condition on `contact c` (the caller adds the account and sendability conditions).
 * Group types, operators and column names come from fixed allow-lists; values are bound through `params`.
 * Referenced lists, segments, imports and variables must belong to the account: an unknown one is a 400.
 */
export async function compileFilter(
  filter: SegmentFilter,
  resolver: FilterResolver,
  params: SqlParams,
  path = 'filter',
  seen: string[] = [],
  budget: { terms: number } = { terms: MAX_FILTER_TERMS },
): Promise<string> {
  if (filter.groups.length === 0) return 'TRUE';
  const violations: Violation[] = [];
  const parts: string[] = [];
  for (let gi = 0; gi < filter.groups.length; gi++) {
    const g = filter.groups[gi];
    const at = `${path}.groups[${gi}]`;
    budget.terms -= termsOf(g);
    if (budget.terms < 0) throw AppError.validation([{ propertyPath: at, message: `the filter, with the segments it refers to, has more than ${MAX_FILTER_TERMS} terms` }]);
    const negate = (sql: string, op: 'in' | 'not_in') => (op === 'not_in' ? `NOT (${sql})` : sql);
    switch (g.type) {
      case FilterGroupType.Country:
        parts.push(negate(`coalesce(c.country = ANY(${params.add(g.values.map((v) => v.toUpperCase()))}::text[]), false)`, g.operator));
        break;
      case FilterGroupType.Operator:
        parts.push(negate(`coalesce(c.operator = ANY(${params.add(g.values)}::text[]), false)`, g.operator));
        break;
      case FilterGroupType.ContactList:
      case FilterGroupType.Segment: {
        const found = await resolver.lists(g.values);
        const listIds: string[] = [];
        const nested: string[] = [];
        for (const [vi, id] of g.values.entries()) {
          const l = found.get(id);
          if (!l || (g.type === FilterGroupType.Segment && l.type !== 'segment')) {
            violations.push({ propertyPath: `${at}.values[${vi}]`, message: `no ${g.type === FilterGroupType.Segment ? 'segment' : 'contact list'} ${id}` });
            continue;
          }
          if (l.type !== 'segment') {
            listIds.push(id);
            continue;
          }
          if (seen.includes(id) || seen.length >= MAX_SEGMENT_DEPTH) {
            violations.push({ propertyPath: `${at}.values[${vi}]`, message: `segment ${id} refers to itself or nests too deep` });
            continue;
          }
          const inner = parseFilter(l.filter ?? { groups: [] }, `${at}.values[${vi}]`);
          nested.push(`(${await compileFilter(inner, resolver, params, `${at}.values[${vi}]`, [...seen, id], budget)})`);
        }
        const any: string[] = [];
        if (listIds.length) any.push(`c.list_ids && ${params.add(listIds)}::bigint[]`);
        any.push(...nested);
        if (any.length) parts.push(negate(any.join(' OR '), g.operator));
        break;
      }
      case FilterGroupType.ImportList: {
        const found = await resolver.importLists(g.values);
        const listIds: string[] = [];
        for (const [vi, id] of g.values.entries()) {
          if (!found.has(id)) violations.push({ propertyPath: `${at}.values[${vi}]`, message: `no import list ${id}` });
          else if (found.get(id)) listIds.push(found.get(id) as string);
        }
        // contacts the import brought in: members of the list it filled
        parts.push(negate(listIds.length ? `c.list_ids && ${params.add(listIds)}::bigint[]` : 'FALSE', g.operator));
        break;
      }
      case FilterGroupType.CampaignClickers:
      case FilterGroupType.CampaignRegister:
      case FilterGroupType.CampaignFtd:
      case FilterGroupType.OffersClickers:
      case FilterGroupType.OffersRegister:
      case FilterGroupType.OffersFtd:
        parts.push(negate('FALSE', g.operator));
        break;
      case FilterGroupType.CustomFields: {
        const vars = await resolver.variables(g.conditions.map((c) => String(c.variable)));
        const conds: string[] = [];
        for (const [ci, cond] of g.conditions.entries()) {
          const v = vars.get(String(cond.variable));
          if (!v || v.id === String(StandardVariable.shorturl) || v.id === String(StandardVariable.optout)) {
            violations.push({ propertyPath: `${at}.conditions[${ci}].variable`, message: `no contact field ${String(cond.variable)}` });
            continue;
          }
          const column = v.isStandard ? STANDARD_COLUMNS[v.id] : `(c.variables ->> ${params.add(v.id)})`;
          conds.push(customCondition_(column, v.type, cond.operator, cond.value, params));
        }
        if (conds.length) parts.push(`(${conds.join(g.match === 'any' ? ' OR ' : ' AND ')})`);
        break;
      }
      case FilterGroupType.CreatedBefore:
        parts.push(`c.created_at < ${params.add(nextDayStart(g.value))}::timestamptz`);
        break;
      case FilterGroupType.CreatedAfter:
        parts.push(`c.created_at >= ${params.add(dayStart(g.value))}::timestamptz`);
        break;
    }
  }
  if (violations.length) throw AppError.validation(violations);
  if (!parts.length) return 'TRUE';
  return parts.map((p) => `(${p})`).join(filter.match === 'any' ? ' OR ' : ' AND ');
}

/** One custom-field condition. Numbers and dates compare only values that read as such (others never match). */
function customCondition_(column: string, type: string, op: CustomOperatorValue, value: string | number | undefined, params: SqlParams): string {
  const text = value === undefined ? '' : String(value);
  switch (op) {
    case 'empty':
      return `coalesce(${column}, '') = ''`;
    case 'not_empty':
      return `coalesce(${column}, '') <> ''`;
    case 'eq':
      return type === 'number' ? numeric(column, '=', text, params) : `lower(${column}) = lower(${params.add(text)})`;
    case 'neq':
      return type === 'number' ? `NOT coalesce(${numeric(column, '=', text, params)}, false)` : `lower(coalesce(${column}, '')) <> lower(${params.add(text)})`;
    case 'contains':
      return `${column} ILIKE ${params.add(`%${likeEscape(text)}%`)}`;
    case 'not_contains':
      return `coalesce(${column}, '') NOT ILIKE ${params.add(`%${likeEscape(text)}%`)}`;
    case 'starts_with':
      return `${column} ILIKE ${params.add(`${likeEscape(text)}%`)}`;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const sqlOp = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
      if (type === 'date') return dateCompare(column, sqlOp, text, params);
      return numeric(column, sqlOp, text, params);
    }
  }
}

const NUMBER = /^-?\d{1,15}(\.\d{1,10})?$/;

function numeric(column: string, sqlOp: string, text: string, params: SqlParams): string {
  if (!NUMBER.test(text.trim())) throw AppError.validation([{ propertyPath: 'filter', message: `${JSON.stringify(text.slice(0, 40))} is not a number` }]);
  // CASE guards the cast: SQL may evaluate AND operands in any order
  return `(CASE WHEN ${column} ~ '^-?[0-9]{1,15}(\\.[0-9]{1,10})?$' THEN (${column})::numeric END) ${sqlOp} ${params.add(text.trim())}::numeric`;
}

function dateCompare(column: string, sqlOp: string, text: string, params: SqlParams): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) throw AppError.validation([{ propertyPath: 'filter', message: `${JSON.stringify(text.slice(0, 40))} is not a date (YYYY-MM-DD)` }]);
  return `(CASE WHEN ${column} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN (${column}) END) ${sqlOp} ${params.add(text)}`;
}
