import { isContractUuid, isPlainRecord } from './items-batch';

/**
 * The building blocks of the contracts' hand-written event checks (`EventDefinition.fast`, docs/decisions/0192): each is
 * the rule of the zod 3 schema piece named beside it, for the values it is sure of. A check built of them answers
 * undefined for anything else, and the caller then runs the schema itself, so an error is always zod's.
 */
export type Fields = Record<string, unknown>;

/** `z.object`'s (and `z.record`'s) input: a plain object (items-batch.ts's `isPlainRecord`). */
export const isPlainObject: (v: unknown) => v is Fields = isPlainRecord;

/** `z.string().uuid()`. */
export const isUuid = isContractUuid;

const DECIMAL_ID = /^\d+$/;
/** The contracts' `id`: `z.string().regex(/^\d+$/)`. */
export const isDecimalId = (v: unknown): v is string => typeof v === 'string' && DECIMAL_ID.test(v);
/** `id.nullable()`. */
export const isDecimalIdOrNull = (v: unknown): v is string | null => v === null || isDecimalId(v);
/** `z.string()`. */
export const isString = (v: unknown): v is string => typeof v === 'string';
/** `z.string().nullable()`. */
export const isStringOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
/** `z.string().min(min).max(max)` (zod counts UTF-16 code units, as `length` does). */
export const isStringOf = (v: unknown, min: number, max: number): v is string => typeof v === 'string' && v.length >= min && v.length <= max;
/** `z.number().int()` (NaN and the infinities are not integers). */
export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
