import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/** The bodies and answers of the runner's routes, for the OpenAPI document (/api/docs.json). */
export class EstimatedCountryResponse {
  @ApiProperty({ type: String, description: 'ISO 3166-1 alpha-2; empty for contacts without a country', example: 'GB' }) country!: string;
  @ApiProperty({ type: Number, example: 6000 }) recipients!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'price per segment in micro-units of the currency; null: no price for the country', example: 30000 }) priceMicros!: number | null;
  @ApiProperty({ type: Number, description: 'recipients × segments × price', example: 360000000 }) costMicros!: number;
}

export class EstimatedCostResponse {
  @ApiProperty({ type: String, enum: ['pending', 'ready', 'error'], description: 'pending until contacts has counted the audience (a campaign.estimate_ready live update follows)', example: 'ready' })
  status!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) error!: string | null;
  @ApiProperty({ type: String, example: 'EUR' }) currency!: string;
  @ApiProperty({ type: Number, description: 'recipients after exclusions and the duplicate rule', example: 10000 }) total!: number;
  @ApiProperty({ type: Number, description: 'segments a message (the longest variant as written)', example: 2 }) segments!: number;
  @ApiProperty({ type: Number, example: 440000000 }) totalCostMicros!: number;
  @ApiProperty({ type: [EstimatedCountryResponse] }) countries!: EstimatedCountryResponse[];
}

export class UnreachableZoneResponse {
  @ApiProperty({ type: String, example: 'America/New_York' }) timezone!: string;
  @ApiProperty({ type: Number, example: 4000 }) count!: number;
}

export class UnreachableTimezonesResponse {
  @ApiProperty({ type: String, enum: ['pending', 'ready', 'error'], example: 'ready' }) status!: string;
  @ApiProperty({ type: [UnreachableZoneResponse] }) items!: UnreachableZoneResponse[];
}

export class DemoMessageDto {
  @ApiPropertyOptional({ type: Number, description: 'the campaign', example: 12 }) @Allow() campaign?: unknown;
  @ApiPropertyOptional({ type: String, description: 'E.164, with or without +', example: '+447400000123' }) @Allow() phone?: unknown;
  @ApiPropertyOptional({ type: String, example: 'Ann' }) @Allow() firstName?: unknown;
  @ApiPropertyOptional({ type: String, example: 'Lee' }) @Allow() lastName?: unknown;
  @ApiPropertyOptional({ type: String, example: 'ann@example.com' }) @Allow() email?: unknown;
  @ApiPropertyOptional({ type: String, example: 'GB' }) @Allow() country?: unknown;
  @ApiPropertyOptional({ type: String, example: 'Europe/London' }) @Allow() timezone?: unknown;
  @ApiPropertyOptional({ type: String, description: 'stands for {{shorturl}} in the demo', example: 'https://go.example/abc' }) @Allow() shorturl?: unknown;
  @ApiPropertyOptional({ type: String, description: 'stands for {{optout}} in the demo', example: 'https://go.example/stop' }) @Allow() optout?: unknown;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'custom variables by id', example: { '1000': 'Leeds' } }) @Allow() variables?: unknown;
}

export class DemoMessageResponse {
  @ApiProperty({
    type: String,
    enum: ['success', 'campaign_not_selected', 'campaign_not_exist', 'phone_not_entered', 'phone_invalid', 'message_empty', 'sender_not_exist'],
    example: 'success',
  })
  status!: string;
  @ApiPropertyOptional({ type: String, description: 'the demo message (success only)', example: '0b6f8a52-3c1e-4d7a-9f61-2a4c8e9d1b23' }) messageUuid?: string;
}
