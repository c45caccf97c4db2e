import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class StoredMailResponse {
  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  sentAt!: string;

  @ApiProperty({ type: String })
  to!: string;

  @ApiProperty({ type: String })
  subject!: string;

  @ApiProperty({ type: String, example: 'Hello from Switchboard' })
  text!: string;

  @ApiProperty({ type: String, nullable: true, required: false })
  html?: string;
}
