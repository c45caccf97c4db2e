import type { IntegrationContactFilter } from '@switchboard/contracts';
import type { CrmContact } from '../connectors/connector';

/** A contact's value for a filter field: the CRM field, or one of the standard ones. */
function valueOf(c: Pick<CrmContact, 'fields' | 'phone' | 'email' | 'firstName' | 'lastName'>, field: string): unknown {
  if (field in c.fields) return c.fields[field];
  const standard: Record<string, unknown> = { phone: c.phone, email: c.email, firstName: c.firstName, lastName: c.lastName };
  return standard[field];
}

const empty = (v: unknown) => v === null || v === undefined || v === '';
const num = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : typeof v === 'string' && Number.isFinite(Date.parse(v)) ? Date.parse(v) : NaN);
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v)).toLowerCase();

/** An integration list's filters, all of which must hold (the CRM's own fields, as the list's contact variables). */
export function matchesFilters(c: Pick<CrmContact, 'fields' | 'phone' | 'email' | 'firstName' | 'lastName'>, filters: readonly IntegrationContactFilter[]): boolean {
  return filters.every((f) => {
    const v = valueOf(c, f.field);
    switch (f.operator) {
      case 'empty':
        return empty(v);
      case 'not_empty':
        return !empty(v);
      case 'eq':
        return str(v) === str(f.value);
      case 'neq':
        return str(v) !== str(f.value);
      case 'contains':
        return str(v).includes(str(f.value));
      case 'in':
        return Array.isArray(f.value) && f.value.some((x) => str(x) === str(v));
      case 'gt':
        return num(v) > num(f.value);
      case 'lt':
        return num(v) < num(f.value);
      default:
        return false;
    }
  });
}
