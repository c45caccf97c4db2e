import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class HealthLiveResponse {
  @ApiProperty({ type: String, enum: ['ok'], example: 'ok' })
  status!: string;
}
