import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsOptional, IsString } from 'class-validator';

/** `POST /streams/subscribe`: a time slice of the stream figures (moved from streams, same contract). */
export class SubscribeDto {
  @ApiProperty({ description: 'time slice: day, week, month, year, custom, all (or 1 to 4)', oneOf: [{ type: 'string', enum: ['day', 'week', 'month', 'year', 'custom', 'all'] }, { type: 'integer' }], example: 'day' }) @Allow()
  type!: string | number;

  @ApiPropertyOptional({ description: 'a day inside the slice (ISO date); default today', example: '2026-11-25' }) @IsOptional() @IsString()
  date?: string;

  @ApiPropertyOptional({ example: '2026-11-01' }) @IsOptional() @IsString()
  start?: string;

  @ApiPropertyOptional({ example: '2026-11-25' }) @IsOptional() @IsString()
  end?: string;

  @ApiPropertyOptional({ oneOf: [{ type: 'integer' }, { type: 'string', example: '/api/streams/7' }], example: 7 }) @Allow()
  streamId?: number | string;
}

/** The stream figures (`GET /streams/statistics`, `POST /streams/subscribe`), as the console reads them. */
export class StatisticsTotalsResponse {
  @ApiProperty({ type: Number })
  accepted!: number;

  @ApiProperty({ type: Number, example: 1 })
  sent!: number;

  @ApiProperty({ type: Number, example: 1 })
  delivered!: number;

  @ApiProperty({ type: Number, example: 1 })
  sent_failed!: number;

  @ApiProperty({ type: Number, example: 1 })
  undelivered!: number;

  @ApiProperty({ type: Number })
  no_routes!: number;

  @ApiProperty({ type: Number })
  rejected!: number;

  @ApiProperty({ type: Number, example: 1 })
  total!: number;

  @ApiProperty({ type: Number, example: 1 })
  parts!: number;

  @ApiProperty({ type: Number, example: 0.05 })
  cost!: number;
}

export class StreamStatsResponse {
  @ApiProperty({ type: Number, example: 42 })
  streamId!: number;

  @ApiProperty({ type: String, example: 'f3b0c9e2-5d1a-4c1e-9b8e-2a7d4c6e8f10' })
  streamUid!: string;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: Number })
  streamType!: number;

  @ApiProperty({ type: Number, example: 1 })
  total!: number;

  @ApiProperty({ type: Number, example: 1 })
  parts!: number;

  @ApiProperty({ type: Number, example: 0.05 })
  cost!: number;

  @ApiProperty({ type: Number })
  accepted!: number;

  @ApiProperty({ type: Number, example: 1 })
  sent!: number;

  @ApiProperty({ type: Number, example: 1 })
  delivered!: number;

  @ApiProperty({ type: Number, example: 1 })
  sent_failed!: number;

  @ApiProperty({ type: Number, example: 1 })
  undelivered!: number;

  @ApiProperty({ type: Number })
  no_routes!: number;

  @ApiProperty({ type: Number })
  rejected!: number;
}

export class StatisticsResponse {
  @ApiProperty({ type: String, nullable: true, example: '2026-11-24T16:40:36.871Z' })
  start!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:40:36.871Z' })
  end!: string;

  @ApiProperty({ type: () => StatisticsTotalsResponse })
  totals!: StatisticsTotalsResponse;

  @ApiProperty({ type: () => [StreamStatsResponse] })
  streams!: StreamStatsResponse[];
}
