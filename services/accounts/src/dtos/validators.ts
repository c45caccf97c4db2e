import { registerDecorator, type ValidationOptions } from 'class-validator';
import { isCurrency, toMicros } from '../rules/money';

function rule(name: string, message: string, validate: (v: unknown, o: object) => boolean, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message, ...options },
      validator: { validate: (v: unknown, args) => validate(v, args?.object ?? {}) },
    });
}

/** An id as a positive integer or a string of digits (`5`, `"5"`), or the IRI `/api/customers/5`. */
export const IsIdRef = (options?: ValidationOptions) =>
  rule('isIdRef', '$property must be an id', (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^(\/api\/[a-z_]+\/)?[1-9]\d{0,17}$/.test(v)), options);

/** The id of an IdRef value. */
export const idOf = (v: unknown): string => String(v).replace(/^\/api\/[a-z_]+\//, '');

/** A decimal amount in currency units with at most 6 places, as a number or a string. */
export const IsDecimalAmount = (opts: { min?: number; nonZero?: boolean } = {}, options?: ValidationOptions) =>
  rule(
    'isDecimalAmount',
    `$property must be a decimal amount with at most 6 decimal places${opts.min !== undefined ? ` and at least ${opts.min}` : ''}${opts.nonZero ? ', not 0' : ''}`,
    (v) => {
      const micros = toMicros(v);
      if (micros === null) return false;
      if (opts.min !== undefined && micros < BigInt(opts.min) * 1_000_000n) return false;
      return !(opts.nonZero && micros === 0n);
    },
    options,
  );

export const IsCurrencyCode = (options?: ValidationOptions) => rule('isCurrencyCode', '$property must be an ISO 4217 currency code', (v) => isCurrency(v), options);

/** Required text that is not only spaces (spec 5: "not blank"). */
export const NotBlank = (options?: ValidationOptions) => rule('notBlank', '$property must not be blank', (v) => typeof v === 'string' && v.trim() !== '', options);

/** A time zone: IANA name, timezone id, or `/api/timezones/{id}`. */
export const IsTimezoneRef = (options?: ValidationOptions) =>
  rule(
    'isTimezoneRef',
    '$property must be a time zone name, id or /api/timezones/{id}',
    (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^(\/api\/timezones\/\d{1,18}|\d{1,18}|[A-Za-z][A-Za-z0-9_+\-/]{0,63})$/.test(v)),
    options,
  );

/** Spec 5 (sending hours): from and to differ. */
export const DiffersFrom = (other: string, options?: ValidationOptions) =>
  rule('notSameTime', 'notSameTime: start and end must differ', (v, o) => v !== (o as Record<string, unknown>)[other], options);
