import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsOptional, IsString, MaxLength, ValidateIf, registerDecorator, type ValidationOptions } from 'class-validator';
import { isTimeZone } from '@switchboard/platform';

/** An IANA zone (`Europe/Paris`) or a timezone IRI (`/api/timezones/12`, the spec's "prefixed id"). */
export function isTimezone(v: string): boolean {
  return /^\/api\/timezones\/\d{1,18}$/.test(v) || isTimeZone(v);
}

function IsTimezone(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTimezone',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: 'must be a time zone name or /api/timezones/{id}', ...options },
      validator: { validate: (v: unknown) => typeof v === 'string' && (v.trim() === '' || isTimezone(v.trim())) },
    });
}

export class UpdateProfileDto {
  @ApiPropertyOptional({ example: 'Jane' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  firstName?: string;

  @ApiPropertyOptional({ example: 'Doe' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  lastName?: string;

  @ApiPropertyOptional({ nullable: true, example: 'Europe/Paris', type: 'string' })
  @ValidateIf((_, v) => v !== undefined && v !== null)
  @IsString()
  @MaxLength(64)
  @IsTimezone()
  timezone?: string | null;

  @ApiPropertyOptional({ description: 'JSON string (or object) of spec 3 preference keys; replaces the stored preferences', type: 'string', example: '{"pageSize":{"contacts":50}}' })
  @Allow() // checked key by key by the preference rules, which report one violation per key
  preferences?: unknown;

  @ApiPropertyOptional({ description: 'account to switch to: id or /api/customers/{id}', type: 'string', example: '/api/customers/1' })
  @Allow() // an id or an IRI; parsed by the service
  customer?: unknown;
}
