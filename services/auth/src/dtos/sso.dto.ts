import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { SSO_TYPES } from '@switchboard/contracts';

export class CrossdomainAuthDto {
  @ApiProperty({ enum: SSO_TYPES, example: 'zohoinbox' })
  @IsIn(SSO_TYPES, { message: `type must be one of: ${SSO_TYPES.join(', ')}` })
  type!: string;
}

export class SsoAwaitDto {
  @ApiProperty({ type: String, example: 'q2WJr8x1nKfH0b3tV7yLmA4cZp9sEuGdRiTkOwNhXjY' })
  @IsString()
  @MaxLength(100)
  cross_key!: string;

  @ApiProperty({ type: String, example: 'c0nnecti0n-4f2a9b', description: 'The socket that claims the flow (chosen by the gateway).' })
  @IsString()
  @MaxLength(100)
  connection!: string;
}

export class CrossdomainAuthResponse {
  @ApiProperty({ type: Boolean, example: true })
  success!: true;

  @ApiProperty({ type: String, example: 'https://accounts.zoho.com/oauth/v2/auth?response_type=code&client_id=1000.ABC&state=…&code_challenge=…&code_challenge_method=S256', description: 'The provider consent page the popup opens.' })
  url!: string;

  @ApiProperty({ type: String, example: 'q2WJr8x1nKfH0b3tV7yLmA4cZp9sEuGdRiTkOwNhXjY', description: 'Single use, short-lived; the socket at /ws/sso?cross_key= awaits complete-sso with it.' })
  cross_key!: string;

  @ApiProperty({ type: Number, example: 600 })
  expires_in!: number;
}

class SsoMemberResponse {
  @ApiProperty({ type: Number, example: 42 }) id!: number;
  @ApiProperty({ type: String, example: 'agent@example.com' }) email!: string;
}

export class SsoAccessRequestResponse {
  @ApiProperty({ type: Number, example: 7 }) id!: number;
  @ApiProperty({ enum: SSO_TYPES, example: 'zohoinbox' }) type!: string;
  @ApiProperty({ type: String, example: 'agent@example.com', description: "the address Zoho verified" }) email!: string;
  @ApiProperty({ type: String, example: 'Alex Agent' }) name!: string;
  @ApiProperty({ type: SsoMemberResponse, description: 'the member of the caller account with that address' }) user!: SsoMemberResponse;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected'], example: 'pending' }) status!: string;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-25T22:30:00.000Z' }) createdAt!: string;
}

class CompleteSsoDataResponse {
  @ApiProperty({ enum: ['success', 'pending', 'error'], example: 'success' }) status!: string;
  @ApiPropertyOptional({ type: String, example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln', description: 'success only' }) token?: string;
  @ApiPropertyOptional({ type: String, example: 'mQ3v0mDk2h2p3x9yQ1ZbP0c4n5s6t7u8v9w0x1y2z3A', description: 'success only' }) refresh_token?: string;
  @ApiPropertyOptional({ type: String, example: 'Pending for access approval: …', description: 'pending and error' }) message?: string;
}

export class SsoAwaitResponse {
  @ApiProperty({ enum: ['waiting', 'done'], example: 'done' }) state!: string;
  @ApiProperty({ type: String, format: 'uuid', example: '3f1c2b9e-8a41-4d6b-9a55-0f7c2e1d4b6a' }) flow!: string;
  @ApiPropertyOptional({ type: Number, example: 540, description: 'waiting: seconds left' }) expires_in?: number;
  @ApiPropertyOptional({ type: CompleteSsoDataResponse, description: 'done: the complete-sso data (tokens only once)' }) data?: CompleteSsoDataResponse;
}
