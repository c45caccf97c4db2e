import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';

const NAME = /^[a-z_][a-z0-9_.-]{0,120}$/;

/** `POST /api/dead_letters/replay`: which dead letters to replay (every one when empty). */
export class ReplayDeadLettersDto {
  @ApiPropertyOptional({ example: 'dispatch', description: 'only this service’s letters' })
  @IsOptional() @IsString() @Matches(NAME)
  service?: string;

  @ApiPropertyOptional({ example: 'dispatch.sender', description: 'only this consumer group’s letters' })
  @IsOptional() @IsString() @Matches(NAME)
  group?: string;
}

export class DeadLetterResponse {
  @ApiProperty({ example: 'dispatch-42', description: '`<service>-<n>`' })
  id!: string;

  @ApiProperty({ example: 'dispatch' })
  service!: string;

  @ApiProperty({ enum: ['consume', 'publish'], example: 'consume', description: 'a consumer group gave up on it, or the outbox relay could never publish it' })
  kind!: string;

  @ApiProperty({ example: 'dispatch.sender' })
  group!: string;

  @ApiProperty({ example: 'switchboard.streams.message' })
  topic!: string;

  @ApiProperty({ type: String, nullable: true, example: '8d4c2f0e-5b1a-4c57-9b7e-0f0e6c1d2a3b' })
  eventId!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'streams.message.accepted' })
  eventType!: string | null;

  @ApiProperty({ type: String, nullable: true, example: '17' })
  accountId!: string | null;

  @ApiProperty({ example: 'Error: validation failed: destination is missing' })
  error!: string;

  @ApiProperty({ example: 6 })
  attempts!: number;

  @ApiProperty({ enum: ['dead', 'replay_requested', 'replaying', 'replayed'], example: 'dead' })
  status!: string;

  @ApiProperty({ example: '2026-11-25T16:30:00.000Z' })
  failedAt!: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  replayRequestedAt!: string | null;

  @ApiProperty({ type: String, nullable: true, example: null })
  replayedAt!: string | null;

  @ApiProperty({ example: 0 })
  replays!: number;
}

export class DeadLetterDetailResponse extends DeadLetterResponse {
  @ApiProperty({ example: '{"id":"8d4c2f0e-5b1a-4c57-9b7e-0f0e6c1d2a3b","type":"streams.message.accepted","data":{}}', description: 'the event as it was (JSON text)' })
  payload!: string;
}

export class ReplayRequestedResponse {
  @ApiProperty({ example: 3, description: 'dead letters now waiting for their replay' })
  requested!: number;
}
