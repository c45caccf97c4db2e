import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import type { Violation } from '@switchboard/contracts';
import { AppError } from '../errors/app-error';

function flatten(errors: ValidationError[], prefix = ''): Violation[] {
  const out: Violation[] = [];
  for (const e of errors) {
    const p = prefix ? `${prefix}.${e.property}` : e.property;
    for (const [code, message] of Object.entries(e.constraints ?? {})) out.push({ propertyPath: p, message, code });
    if (e.children?.length) out.push(...flatten(e.children, p));
  }
  return out;
}

/**
 * Nest's pipe turns a `number` route or query parameter with `+value` (so "abc" is NaN and "" is 0) and a `boolean`
 * one into false for anything but "true". Here both refuse what they cannot read.
 */
class StrictValidationPipe extends ValidationPipe {
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    const { type, metatype, data } = metadata;
    if (data && (type === 'param' || type === 'query') && value !== undefined) {
      if (metatype === Number && (typeof value !== 'string' || !/^-?\d+(\.\d+)?$/.test(value))) {
        throw AppError.validation([{ propertyPath: data, message: `${data} must be a number`, code: 'isNumber' }]);
      }
      if (metatype === Boolean && value !== 'true' && value !== 'false' && value !== true && value !== false) {
        throw AppError.validation([{ propertyPath: data, message: `${data} must be true or false`, code: 'isBoolean' }]);
      }
    }
    return super.transformPrimitive(value, metadata);
  }
}

/** class-validator DTOs; unknown fields are refused; failures are 400 with code 0x1 and one violation per field rule. */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => AppError.validation(flatten(errors)),
  });
}
