import { ErrorCode } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';

/** Request fields the links services read from loosely typed bodies and queries (spec 5 rules, 0x1 with violations). */

const ID = /^\d{1,18}$/;

export function parseLimit(v: unknown, path: string): number | null {
  if (v === null) return null;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 1e15) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
  throw AppError.validation([{ propertyPath: path, message: 'a whole number of messages from 0, or null for no limit', code: 'onlyPositive' }]);
}

export function parseIds(v: unknown, path: string, max = 1000): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > max) throw AppError.validation([{ propertyPath: path, message: `1 to ${max} ids`, code: 'required' }]);
  const ids = v.map((x) => String(typeof x === 'string' ? x.replace(/^.*\//, '') : x));
  const bad = ids.findIndex((x) => !ID.test(x));
  if (bad >= 0) throw AppError.validation([{ propertyPath: `${path}[${bad}]`, message: 'an id' }]);
  return [...new Set(ids)];
}

export function bool(v: unknown, name: string): boolean {
  if (v === true || v === 1 || v === '1' || v === 'true') return true;
  if (v === false || v === 0 || v === '0' || v === 'false') return false;
  throw AppError.validation([{ propertyPath: name, message: 'true or false (1 or 0)', code: ErrorCode.RequestValidation }]);
}
