import { describe, expect, it } from '@jest/globals';
import { StandardVariable } from './constants';
import { columnLetter, guessMapping, mappingEntries, mappingProblems } from './imports/mapping';
import { fromFilterText, isComplete, newGroup, toFilter, type DraftGroup } from './segments/model';
import type { ImportPreview, Variable } from './types';
import { pageItems, pageSizeOptions } from '../../ui/table/pagination';

const variable = (id: number, name: string, UIname: string, isStandard = true): Variable => ({
  id,
  name,
  UIname,
  isStandard,
  type: 'text',
  hidden: false,
  example: null,
  mappable: true,
  createdAt: '2026-01-01T00:00:00Z',
});

const VARIABLES = [
  variable(StandardVariable.phone, 'phone', 'Phone number'),
  variable(StandardVariable.firstName, 'firstName', 'First name'),
  variable(StandardVariable.lastName, 'lastName', 'Last name'),
  variable(StandardVariable.email, 'email', 'Email'),
  variable(1000, 'promo', 'Promo code', false),
];

const preview = (rows: string[][]): ImportPreview => ({ format: 'csv', delimiter: ',', columns: rows[0].length, rows: rows.map((cells, i) => ({ line: i + 1, cells })) });

describe('the first guess of an import mapping', () => {
  it('maps header names, UI names and synonyms to variables, each variable once, and ignores the header line', () => {
    const guess = guessMapping(
      preview([
        ['Mobile', 'first_name', 'Promo code', 'phone'],
        ['+447410000001', 'Ann', 'P1', '+447410000009'],
      ]),
      VARIABLES,
    );
    expect(guess.mapping).toEqual({ 0: StandardVariable.phone, 1: StandardVariable.firstName, 2: 1000 });
    expect(guess.header).toBe(true);
  });

  it('without a header maps the first column of phone numbers to the phone and keeps the first line', () => {
    const guess = guessMapping(
      preview([
        ['Ann', '+44 7410 000001'],
        ['Bob', '+44 7410 000002'],
      ]),
      VARIABLES,
    );
    expect(guess.mapping).toEqual({ 1: StandardVariable.phone });
    expect(guess.header).toBe(false);
  });
});

describe('the mapping rules of spec 5', () => {
  it('asks for the phone (phoneVarMust)', () => {
    expect(mappingProblems({ 1: StandardVariable.firstName }).phoneMissing).toBe(true);
    expect(mappingProblems({ 0: StandardVariable.phone }).phoneMissing).toBe(false);
  });

  it('names every column of a variable mapped twice (notSameVars)', () => {
    const p = mappingProblems({ 0: StandardVariable.phone, 1: StandardVariable.firstName, 3: StandardVariable.firstName });
    expect([...p.duplicates].sort()).toEqual([1, 3]);
    expect(mappingProblems({ 0: StandardVariable.phone, 1: 1000 }).duplicates.size).toBe(0);
  });

  it('sends one entry per mapped column, in column order', () => {
    expect(mappingEntries({ 3: 1000, 0: StandardVariable.phone })).toEqual([
      { column: 0, variable: StandardVariable.phone },
      { column: 3, variable: 1000 },
    ]);
  });

  it('names columns like a spreadsheet', () => {
    expect([0, 25, 26, 27, 701, 702].map(columnLetter)).toEqual(['A', 'Z', 'AA', 'AB', 'ZZ', 'AAA']);
  });
});

describe('segment filters', () => {
  it('leaves incomplete groups out of the filter it sends', () => {
    const country = { ...newGroup('country'), values: ['GB'] } as DraftGroup;
    const emptyList = newGroup('contact_list');
    const custom = newGroup('custom_fields');
    const after = { ...newGroup('created_after'), value: '2026-05-01' } as DraftGroup;
    expect(isComplete(emptyList)).toBe(false);
    expect(isComplete(custom)).toBe(false);
    expect(toFilter('any', [country, emptyList, custom, after])).toEqual({
      match: 'any',
      groups: [
        { type: 'country', operator: 'in', values: ['GB'] },
        { type: 'created_after', value: '2026-05-01' },
      ],
    });
  });

  it('drops the value of conditions that take none and trims the others', () => {
    const group = { ...newGroup('custom_fields'), conditions: [{ variable: '1000', operator: 'empty' as const, value: 'x' }, { variable: '2', operator: 'contains' as const, value: ' an ' }] } as DraftGroup;
    expect(toFilter('all', [group]).groups).toEqual([
      { type: 'custom_fields', match: 'all', conditions: [{ variable: '1000', operator: 'empty' }, { variable: '2', operator: 'contains', value: 'an' }] },
    ]);
  });

  it('reads a stored filter back into the editor, leaving out what it does not know', () => {
    const stored = JSON.stringify({
      match: 'any',
      groups: [
        { type: 'segment', operator: 'not_in', values: [4, '5'] },
        { type: 'custom_fields', match: 'any', conditions: [{ variable: 'promo', operator: 'eq', value: 3 }] },
        { type: 'created_before', value: '2026-05-01T10:00:00Z' },
        { type: 'unknown', values: [] },
      ],
    });
    const { match, groups } = fromFilterText(stored);
    expect(match).toBe('any');
    expect(toFilter(match, groups)).toEqual({
      match: 'any',
      groups: [
        { type: 'segment', operator: 'not_in', values: ['4', '5'] },
        { type: 'custom_fields', match: 'any', conditions: [{ variable: 'promo', operator: 'eq', value: '3' }] },
        { type: 'created_before', value: '2026-05-01' },
      ],
    });
    expect(fromFilterText('not json')).toEqual({ match: 'all', groups: [] });
    expect(fromFilterText(null)).toEqual({ match: 'all', groups: [] });
  });
});

describe('table footer (spec 2 and 9)', () => {
  it('offers 10, 25, 50 and 100 plus the current size', () => {
    expect(pageSizeOptions(25)).toEqual([10, 25, 50, 100]);
    expect(pageSizeOptions(200)).toEqual([10, 25, 50, 100, 200]);
  });

  it('shows 4 pages in range and 1 margin page at each end', () => {
    expect(pageItems(1, 3)).toEqual([1, 2, 3]);
    expect(pageItems(10, 20)).toEqual([1, 'gap-start', 9, 10, 11, 12, 'gap-end', 20]);
  });
});
