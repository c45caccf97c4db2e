import { ValidationPipe, type ValidationError } from '@nestjs/common';
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

/** class-validator DTOs; unknown fields are refused; failures are 400 with code 0x1 and one violation per field rule. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => AppError.validation(flatten(errors)),
  });
}
