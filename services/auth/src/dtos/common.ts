import { Transform } from 'class-transformer';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import { hasForbiddenCharacters, XSS_MESSAGE } from '../rules/text';

/** Trims strings; leaves anything else for the type validators to refuse. */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** A number or digit string id (`customerID`, `inviteID`) as a string of digits. */
export const AsIdString = () => Transform(({ value }: { value: unknown }) => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : value));

/** Spec 5, errors.client.xss. */
export function NoForbiddenCharacters(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'xss',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: XSS_MESSAGE, ...options },
      validator: { validate: (v: unknown) => typeof v !== 'string' || !hasForbiddenCharacters(v) },
    });
}

/** An id as the console sends it: a positive number, digits, or an IRI (checked again by the service). */
export function IsRef(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isRef',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'must be an id or an IRI', ...options },
      validator: {
        validate: (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && v.length <= 64 && /^(\/api\/[a-z_]+\/)?[1-9]\d{0,17}$/.test(v.trim())),
      },
    });
}
