import { AppError } from '@switchboard/platform';
import { compileFilter, MAX_FILTER_TERMS, parseFilter, SqlParams, type FilterResolver, type ResolvedVariable } from './filter';

const resolver: FilterResolver = {
  lists: async (ids) =>
    new Map(
      ids
        .filter((id) => ['10', '11', '20', '21'].includes(id))
        .map((id) => [id, id.startsWith('2') ? { type: 'segment', filter: id === '20' ? { groups: [{ type: 'country', values: ['FR'] }] } : { groups: [{ type: 'segment', values: ['20'] }] } } : { type: 'list', filter: null }]),
    ),
  importLists: async (ids) => new Map(ids.filter((id) => id === '5').map((id) => [id, '10'])),
  variables: async (refs) => {
    const known: Record<string, ResolvedVariable> = {
      promo: { id: '1000', name: 'promo', type: 'text', isStandard: false },
      '1000': { id: '1000', name: 'promo', type: 'text', isStandard: false },
      score: { id: '1001', name: 'score', type: 'number', isStandard: false },
      firstName: { id: '2', name: 'firstName', type: 'text', isStandard: true },
    };
    return new Map(refs.filter((r) => known[r]).map((r) => [r, known[r]]));
  },
};

async function compile(filter: unknown): Promise<{ sql: string; params: unknown[] }> {
  const params = new SqlParams(['1']);
  const sql = await compileFilter(parseFilter(filter), resolver, params);
  return { sql, params: params.values };
}

async function violations(filter: unknown): Promise<Array<[string, string]>> {
  try {
    await compile(filter);
  } catch (e) {
    if (e instanceof AppError) return (e.violations ?? []).map((v) => [v.propertyPath, v.message]);
    throw e;
  }
  throw new Error('expected a validation error');
}

describe('segment filter compiler', () => {
  it('compiles each group to a condition with every value bound', async () => {
    const { sql, params } = await compile({
      groups: [
        { type: 'country', values: ['gb', 'FR'] },
        { type: 'contact_list', operator: 'not_in', values: [10] },
        { type: 'import_list', values: ['5'] },
        { type: 'custom_fields', match: 'any', conditions: [{ variable: 'promo', operator: 'contains', value: '50%_off' }, { variable: 'score', operator: 'gte', value: 3 }] },
        { type: 'created_after', value: '2024-01-31' },
        { type: 'created_before', value: '2024-02-01' },
      ],
    });
    expect(sql).toBe(
      '(coalesce(c.country = ANY($2::text[]), false)) AND (NOT (c.list_ids && $3::bigint[])) AND (c.list_ids && $4::bigint[]) AND ' +
        "(((c.variables ->> $5) ILIKE $6 OR (CASE WHEN (c.variables ->> $7) ~ '^-?[0-9]{1,15}(\\.[0-9]{1,10})?$' THEN ((c.variables ->> $7))::numeric END) >= $8::numeric)) AND " +
        '(c.created_at >= $9::timestamptz) AND (c.created_at < $10::timestamptz)',
    );
    expect(params).toEqual(['1', ['GB', 'FR'], ['10'], ['10'], '1000', '%50\\%\\_off%', '1001', '3', '2024-01-31T00:00:00Z', '2024-02-02T00:00:00.000Z']);
  });

  it('expands a segment referred to by another into its own filter', async () => {
    const { sql, params } = await compile({ groups: [{ type: 'segment', values: [21] }] });
    expect(sql).toBe('(((((coalesce(c.country = ANY($2::text[]), false))))))');
    expect(params).toEqual(['1', ['FR']]);
  });

  it('makes click, registration and FTD groups match nothing until their read model exists', async () => {
    expect((await compile({ groups: [{ type: 'campaign_clickers', values: [1] }] })).sql).toBe('(FALSE)');
    expect((await compile({ groups: [{ type: 'offers_ftd', operator: 'not_in', values: [1] }] })).sql).toBe('(NOT (FALSE))');
  });

  it('keeps hostile text in parameters, never in the SQL', async () => {
    const hostile = "x'); DROP TABLE contacts.contact; --";
    const { sql, params } = await compile({ groups: [{ type: 'operator', values: [hostile] }, { type: 'custom_fields', conditions: [{ variable: 'promo', operator: 'eq', value: hostile }] }] });
    expect(sql).not.toContain('DROP');
    expect(params).toContain(hostile);
  });

  it('refuses unknown groups, operators, fields and values with the path of each', async () => {
    expect(await violations({ groups: [{ type: 'raw_sql', values: ['1=1'] }] })).toEqual([['filter.groups[0].type', expect.stringContaining('Invalid discriminator value')]]);
    expect(await violations({ groups: [{ type: 'country', operator: 'like', values: ['GB'] }] })).toEqual([['filter.groups[0].operator', expect.any(String)]]);
    expect(await violations({ groups: [{ type: 'country', values: ["GB' OR '1'='1"] }] })).toEqual([['filter.groups[0].values[0]', 'must be an ISO 3166 alpha-2 code']]);
    expect(await violations({ groups: [{ type: 'contact_list', values: ['1 OR 1=1'] }] })).toEqual([['filter.groups[0].values[0]', 'must be an id']]);
    expect(await violations({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'promo; DROP', operator: 'eq', value: 'x' }] }] })).toEqual([
      ['filter.groups[0].conditions[0].variable', expect.any(String)],
    ]);
    expect(await violations({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'promo', operator: 'eq) OR (1=1', value: 'x' }] }] })).toEqual([
      ['filter.groups[0].conditions[0].operator', expect.any(String)],
    ]);
    expect(await violations({ groups: [{ type: 'country', values: ['GB'], sql: 'x' }] })).toEqual([['filter.groups[0]', expect.stringContaining('sql')]]);
    expect(await violations({ groups: [{ type: 'created_after', value: "2024-01-01' OR 1=1" }] })).toEqual([['filter.groups[0].value', expect.any(String)]]);
    expect(await violations({ groups: [{ type: 'custom_fields', conditions: [{ variable: 'score', operator: 'gt', value: '1; DROP' }] }] })).toEqual([['filter', '"1; DROP" is not a number']]);
    expect(await violations('{"groups": [')).toEqual([['filter', 'must be a JSON object']]);
    expect(await violations('{"groups": [], "__proto__": {"polluted": true}}')).toEqual([['filter', expect.stringContaining('__proto__')]]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses references outside the account and segments that refer to themselves', async () => {
    expect(await violations({ groups: [{ type: 'contact_list', values: [10, 99] }, { type: 'import_list', values: [6] }, { type: 'custom_fields', conditions: [{ variable: 'other', operator: 'empty' }] }] })).toEqual([
      ['filter.groups[0].values[1]', 'no contact list 99'],
      ['filter.groups[1].values[0]', 'no import list 6'],
      ['filter.groups[2].conditions[0].variable', 'no contact field other'],
    ]);
    expect(await violations({ groups: [{ type: 'segment', values: [10] }] })).toEqual([['filter.groups[0].values[0]', 'no segment 10']]);
    const params = new SqlParams(['1']);
    await expect(compileFilter(parseFilter({ groups: [{ type: 'segment', values: [21] }] }), { ...resolver, lists: async () => new Map([['21', { type: 'segment', filter: { groups: [{ type: 'segment', values: [21] }] } }]]) }, params)).rejects.toThrow(
      AppError,
    );
  });

  it('refuses a 10,000-term filter with a validation error', async () => {
    const groups = Array.from({ length: 50 }, (_, g) => ({ type: 'contact_list', values: Array.from({ length: 200 }, (_, v) => 1 + g * 200 + v) }));
    expect(await violations({ groups })).toEqual([['filter', `has 10000 terms; at most ${MAX_FILTER_TERMS}`]]);
    expect(await violations(JSON.stringify({ match: 'any', groups }))).toEqual([['filter', `has 10000 terms; at most ${MAX_FILTER_TERMS}`]]);
  });

  it('refuses segments whose references multiply past the limit, before building their SQL', async () => {
    // segment 100 names segments 200..249, each of which names 300..349: 2,500 expansions from a 1-term filter
    const ids = (from: number) => Array.from({ length: 50 }, (_, i) => String(from + i));
    const segments: Record<string, unknown> = { '100': { groups: [{ type: 'segment', values: ids(200) }] } };
    for (const id of ids(200)) segments[id] = { match: 'any', groups: [{ type: 'segment', values: ids(300) }] };
    for (const id of ids(300)) segments[id] = { groups: [{ type: 'country', values: ['FR'] }] };
    let lookups = 0;
    const fan: FilterResolver = {
      ...resolver,
      lists: async (ids) => {
        lookups++;
        return new Map(ids.filter((id) => segments[id]).map((id) => [id, { type: 'segment', filter: segments[id] }]));
      },
    };
    const params = new SqlParams(['1']);
    const err = await compileFilter(parseFilter({ groups: [{ type: 'segment', values: [100] }] }), fan, params).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).violations?.[0]?.message).toBe(`the filter, with the segments it refers to, has more than ${MAX_FILTER_TERMS} terms`);
    expect(lookups).toBeLessThanOrEqual(MAX_FILTER_TERMS + 1);
    expect(params.values.length).toBeLessThanOrEqual(MAX_FILTER_TERMS + 1);
  });

  it('collapses repeated values, conditions and groups into one', async () => {
    const filter = parseFilter({
      groups: [
        { type: 'country', values: ['fr', 'FR', 'gb', 'fr'] },
        { type: 'contact_list', values: [10, '10', 10] },
        { type: 'contact_list', values: ['10'] },
        { type: 'custom_fields', conditions: [{ variable: 'promo', operator: 'eq', value: 'x' }, { variable: 'promo', operator: 'eq', value: 'x' }] },
        { type: 'country', values: ['FR', 'GB'] },
      ],
    });
    expect(filter.groups).toEqual([
      { type: 'country', operator: 'in', values: ['FR', 'GB'] },
      { type: 'contact_list', operator: 'in', values: ['10'] },
      { type: 'custom_fields', match: 'all', conditions: [{ variable: 'promo', operator: 'eq', value: 'x' }] },
    ]);
    const { sql, params } = await compile(filter);
    expect(sql).toBe('(coalesce(c.country = ANY($2::text[]), false)) AND (c.list_ids && $3::bigint[]) AND ((lower((c.variables ->> $4)) = lower($5)))');
    expect(params).toEqual(['1', ['FR', 'GB'], ['10'], '1000', 'x']);
  });
});

