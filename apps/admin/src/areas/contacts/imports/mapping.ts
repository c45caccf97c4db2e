import { PHONE_VARIABLE_ID, StandardVariable } from '../constants';
import type { ImportPreview, Variable } from '../types';

/** Column index -> variable id; a column left out is not imported. */
export type Mapping = Record<number, number>;

const norm = (s: string) => s.toLowerCase().replace(/[^a-zа-яё0-9]/gi, '');

/** Header words that name a variable, beyond its own name and UI name. */
const SYNONYMS: Record<number, string[]> = {
  [StandardVariable.phone]: ['phone', 'phonenumber', 'mobile', 'mobilephone', 'msisdn', 'tel', 'telephone', 'cell', 'number', 'телефон', 'номер'],
  [StandardVariable.firstName]: ['firstname', 'first', 'name', 'givenname', 'имя'],
  [StandardVariable.lastName]: ['lastname', 'last', 'surname', 'familyname', 'фамилия'],
  [StandardVariable.email]: ['email', 'mail', 'emailaddress', 'почта'],
  [StandardVariable.country]: ['country', 'countrycode', 'страна'],
  [StandardVariable.timezone]: ['timezone', 'tz', 'zone'],
};

const PHONE_LIKE = /^\+?[\d\s()./-]{7,20}$/;

/**
 * A first guess of the mapping from the header line: a column whose header names a variable (its name, UI name or a
 * common synonym) is mapped to it, each variable once. Without a usable header, the first column that holds phone
 * numbers is mapped to the phone.
 */
export function guessMapping(preview: ImportPreview, variables: Variable[]): { mapping: Mapping; header: boolean } {
  const mapping: Mapping = {};
  const used = new Set<number>();
  const header = preview.rows[0]?.cells ?? [];
  header.forEach((cell, column) => {
    const h = norm(cell);
    if (!h) return;
    const hit =
      variables.find((v) => !used.has(v.id) && (norm(v.name) === h || norm(v.UIname) === h)) ??
      variables.find((v) => !used.has(v.id) && (SYNONYMS[v.id] ?? []).includes(h));
    if (hit) {
      mapping[column] = hit.id;
      used.add(hit.id);
    }
  });
  const headerFound = Object.keys(mapping).length > 0 && !header.some((c) => PHONE_LIKE.test(c.trim()));
  if (!used.has(PHONE_VARIABLE_ID)) {
    const sample = preview.rows[headerFound ? 1 : 0]?.cells ?? [];
    const column = sample.findIndex((c, i) => mapping[i] === undefined && PHONE_LIKE.test(c.trim()));
    if (column >= 0) mapping[column] = PHONE_VARIABLE_ID;
  }
  return { mapping, header: headerFound || !header.some((c) => PHONE_LIKE.test(c.trim())) };
}

export interface MappingProblems {
  /** Spec 5 phoneVarMust: no column is mapped to the phone. */
  phoneMissing: boolean;
  /** Spec 5 notSameVars: columns whose variable is also mapped to another column. */
  duplicates: Set<number>;
}

export function mappingProblems(mapping: Mapping): MappingProblems {
  const byVariable = new Map<number, number[]>();
  for (const [column, variable] of Object.entries(mapping)) byVariable.set(variable, [...(byVariable.get(variable) ?? []), Number(column)]);
  const duplicates = new Set<number>();
  for (const columns of byVariable.values()) if (columns.length > 1) columns.forEach((c) => duplicates.add(c));
  return { phoneMissing: !byVariable.has(PHONE_VARIABLE_ID), duplicates };
}

/** The body of PUT /api/import_lists/{id}: one entry per mapped column, in column order. */
export const mappingEntries = (mapping: Mapping): Array<{ column: number; variable: number }> =>
  Object.entries(mapping)
    .map(([column, variable]) => ({ column: Number(column), variable }))
    .sort((a, b) => a.column - b.column);

/** Spreadsheet column letters: 0 -> A, 25 -> Z, 26 -> AA. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let s = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}
