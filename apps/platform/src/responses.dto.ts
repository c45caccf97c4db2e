import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class StoredMailResponse {
  @ApiProperty({ type: String, example: '2026-11-25T16:40:29.263Z' })
  sentAt!: string;

  @ApiProperty({ type: String, example: 'admin@switchboard.local' })
  to!: string;

  @ApiProperty({ type: String, example: 'Your Switchboard sign-in code' })
  subject!: string;

  @ApiProperty({ type: String, example: 'Your sign-in code is 123456\n\nIt expires in 10 minutes and works once.\nIf you did not try to sign in, change your password: someone knows it.' })
  text!: string;

  @ApiProperty({ type: String, nullable: true, required: false })
  html?: string;
}
