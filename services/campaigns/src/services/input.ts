import { type Violation, parseSpintax, SpintaxError, type SpinNode } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';

/** Collects the violations of one request; `done()` throws 400 0x1 with all of them, or returns. */
export class Violations {
  readonly list: Violation[] = [];

  add(propertyPath: string, message: string, code?: string): void {
    this.list.push({ propertyPath, message, ...(code ? { code } : {}) });
  }

  done(): void {
    if (this.list.length) throw AppError.validation(this.list);
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string field: undefined when absent; null when null and allowed. */
export function str(v: Violations, body: Record<string, unknown>, key: string, opts: { max?: number; required?: boolean; nullable?: boolean; trim?: boolean } = {}): string | null | undefined {
  const raw = body[key];
  if (raw === undefined) {
    if (opts.required) v.add(key, 'This value should not be blank.', 'errors.client.required');
    return undefined;
  }
  if (raw === null) {
    if (opts.nullable) return null;
    v.add(key, 'This value should not be null.', 'errors.client.required');
    return undefined;
  }
  if (typeof raw !== 'string') {
    v.add(key, 'This value should be of type string.');
    return undefined;
  }
  const s = opts.trim === false ? raw : raw.trim();
  if (opts.required && !s) {
    v.add(key, 'This value should not be blank.', 'errors.client.required');
    return undefined;
  }
  if (opts.max !== undefined && s.length > opts.max) {
    v.add(key, `This value is too long. It should have ${opts.max} characters or less.`, 'errors.client.charLimit');
    return undefined;
  }
  return s;
}

/** true/false, 1/0, "1"/"0", "true"/"false". */
export function bool(v: Violations, body: Record<string, unknown>, key: string): boolean | undefined {
  const raw = body[key];
  if (raw === undefined) return undefined;
  if (raw === true || raw === 1 || raw === '1' || raw === 'true') return true;
  if (raw === false || raw === 0 || raw === '0' || raw === 'false') return false;
  v.add(key, 'This value should be a boolean (true, false, 1 or 0).');
  return undefined;
}

export function int(v: Violations, path: string, raw: unknown, opts: { min?: number; max?: number; nullable?: boolean } = {}): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || raw === '') {
    if (opts.nullable) return null;
    v.add(path, 'This value should not be null.', 'errors.client.required');
    return undefined;
  }
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) {
    v.add(path, 'This value should be a whole number.');
    return undefined;
  }
  if (opts.min !== undefined && n < opts.min) {
    v.add(path, `This value should be ${opts.min} or more.`, 'errors.client.minNumber');
    return undefined;
  }
  if (opts.max !== undefined && n > opts.max) {
    v.add(path, `This value should be ${opts.max} or less.`, 'errors.client.maxNumber');
    return undefined;
  }
  return n;
}

/** An id given as a number, a decimal string or an IRI (`/api/senders/5`). */
export function idOf(raw: unknown): string | null {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw > 0) return String(raw);
  if (typeof raw === 'string') {
    const m = /^(?:\/api\/[a-z_]+\/)?(\d{1,18})$/.exec(raw.trim());
    if (m && m[1] !== '0') return m[1].replace(/^0+/, '');
  }
  return null;
}

/** Parses a spintax text, turning a syntax error into a violation on `path` that names the position. */
export function spintaxOf(v: Violations, path: string, text: string): SpinNode[] | null {
  try {
    return parseSpintax(text);
  } catch (e) {
    if (e instanceof SpintaxError) {
      v.add(path, `Invalid spintax: ${e.message}.`, `spintax.${e.kind}`);
      return null;
    }
    throw e;
  }
}

/** "HH:MM" (or "HH:MM:SS") 00:00..23:59. */
export const isClock = (s: unknown): s is string => typeof s === 'string' && /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/.test(s);

export function isoDate(raw: unknown): Date | null {
  if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(raw)) return null;
  const d = new Date(raw);
  return Number.isNaN(d.getTime()) ? null : d;
}
