import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { WEBHOOK_TRIGGERS } from '@switchboard/contracts';

/**
 * Create and update take the same fields; a field left out (spec 5: the console omits empty fields) keeps its value
 * on update and its default on create. name, url and trigger are required on create (checked by the service).
 */
export class WebhookInputDto {
  @ApiPropertyOptional({ example: 'Order statuses' }) @IsOptional() @IsString() @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ example: 'https://hooks.example.com/switchboard' }) @IsOptional() @IsString() @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional({ enum: ['GET', 'POST'], example: 'POST' }) @IsOptional() @IsIn(['GET', 'POST', 'get', 'post'])
  httpMethod?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { 'x-api-key': 'abc' } }) @Allow()
  headers?: unknown;

  @ApiPropertyOptional({ oneOf: [{ type: 'boolean' }, { type: 'integer', enum: [0, 1] }], example: true }) @Allow()
  active?: unknown;

  @ApiPropertyOptional({ enum: WEBHOOK_TRIGGERS, example: 'message_status_change' }) @IsOptional() @IsIn([...WEBHOOK_TRIGGERS])
  trigger?: string;

  @ApiPropertyOptional({ type: 'object', properties: { stream_id: { type: 'array', items: { type: 'integer' } } }, description: 'only these streams (none: every stream)', example: { stream_id: [1, 2] } }) @Allow()
  filter?: unknown;

  @ApiPropertyOptional({
    type: 'object',
    properties: { send_bulk: { type: 'boolean' }, include_message_text: { type: 'boolean' }, include_contact_details: { type: 'boolean' }, include_lead_id: { type: 'boolean' } },
    example: { send_bulk: false, include_message_text: true, include_contact_details: false, include_lead_id: false },
  })
  @Allow()
  params?: unknown;
}
