import { applyDecorators, SetMetadata, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';

/**
 * The list contract's answer (`{ items, total }`, spec 7) for the OpenAPI document: `items` are `model`s.
 * `status` is the route's success status (200 unless the route says otherwise).
 */
export function ApiListResponse(model: Type<unknown>, opts: { status?: number; description?: string } = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: opts.status ?? 200,
      description: opts.description ?? 'one page of the list and the total count',
      schema: {
        type: 'object',
        required: ['items', 'total'],
        properties: {
          items: { type: 'array', items: { $ref: getSchemaPath(model) } },
          total: { type: 'integer', description: 'items matching the filter, over every page', example: 1 },
        },
      },
    }),
  );
}

/** One refused field of a 400 answer. */
export class ViolationSchema {
  @ApiProperty({ example: 'phone', description: 'the field (dotted path) that was refused; empty for the whole body' })
  propertyPath!: string;

  @ApiProperty({ example: 'phone is not a valid number' })
  message!: string;

  @ApiPropertyOptional({ example: 'impossiblePhoneNumber', description: 'a machine-readable reason, when there is one' })
  code?: string;
}

/** The codes an error body carries (spec section 8, plus the HTTP-level ones the platform adds). */
export const ERROR_CODE_DESCRIPTIONS: Record<string, string> = {
  '0x0': 'general (internal) error',
  '0x1': 'request validation: see violations',
  '0x11': 'missing token',
  '0x12': 'invalid token (a stream token or API key that does not exist or was reset)',
  '0x13': 'IP ACL restriction',
  '0x14': 'invalid JWT (expired, malformed or wrongly signed access token)',
  '0x15': 'invalid integration token',
  '0x16': 'banned IP',
  '0x17': 'invalid argument',
  '0x18': 'invalid credentials',
  '0x19': 'duplicate message',
  '0x21': 'stream unavailable (disabled, restricted, sending off, account not approved)',
  '0x22': 'stream not ready (draft)',
  '0x23': 'stream missing for provider (no provider settings yet)',
  '0x30': 'limit undefined or reached (no TPS set, daily limit reached)',
  '0x31': 'TPS reached',
  '0x32': 'max OTP requests',
  '0x33': 'max OTP failures',
  '0x41': 'payment required (the balance does not cover the message)',
  '1801': 'login failed',
  'E-0158': 'invalid business id',
  'E-0159': 'invalid provider token',
  'E-0160': 'invalid Telegram bot token',
  NO_PERMISSIONS: 'the caller lacks a permission the route needs (403)',
  NOT_FOUND: 'no such resource in the caller\'s account (404)',
  CONFLICT: 'the change conflicts with the current state (409)',
  TOO_MANY_REQUESTS: 'too many requests (429)',
  ACCESS_DENIED: 'access denied',
  NOT_AUTHENTICATED: 'not authenticated',
  CAMPAIGN_ACTION_NOT_ALLOWED: 'the campaign\'s status does not allow this action (spec 4) (409)',
};

/** Every non-2xx answer: `{ code, message, status, violations? }`. */
export class ErrorBodySchema {
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'integer' }],
    example: '0x1',
    description: `the error code; one of: ${Object.entries(ERROR_CODE_DESCRIPTIONS).map(([c, d]) => `\`${c}\` ${d}`).join('; ')}`,
  })
  code!: string | number;

  @ApiProperty({ example: 'request validation failed', description: 'a human-readable explanation (English)' })
  message!: string;

  @ApiProperty({ example: 400, description: 'the HTTP status, repeated' })
  status!: number;

  @ApiPropertyOptional({ type: () => [ViolationSchema], description: 'only on 400 `0x1`: each refused field' })
  violations?: ViolationSchema[];
}

export const API_ERRORS_KEY = 'switchboard:api-errors';

/** An error a route answers besides the ones every route of its kind can (400 0x1, 401, 403, 404). */
export interface DocumentedError {
  status: number;
  code: string | number;
  message: string;
}

/**
 * The route's own error answers, for the OpenAPI document: the document builder adds them, with the shape of
 * {@link ErrorBodySchema} and each one as a named example, next to the errors every route of its access kind has.
 */
export const ApiErrors = (...errors: DocumentedError[]): MethodDecorator & ClassDecorator => SetMetadata(API_ERRORS_KEY, errors);
