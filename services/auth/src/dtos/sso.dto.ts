import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { SSO_TYPES } from '@switchboard/contracts';

export class CrossdomainAuthDto {
  @ApiProperty({ enum: SSO_TYPES, example: 'zohoinbox' })
  @IsIn(SSO_TYPES, { message: `type must be one of: ${SSO_TYPES.join(', ')}` })
  type!: string;
}

export class SsoAwaitDto {
  @ApiProperty({ type: String })
  @IsString()
  @MaxLength(100)
  cross_key!: string;

  @ApiProperty({ type: String, description: 'The socket that claims the flow (chosen by the gateway).' })
  @IsString()
  @MaxLength(100)
  connection!: string;
}

export class CrossdomainAuthResponse {
  @ApiProperty({ type: Boolean, example: true })
  success!: true;

  @ApiProperty({ type: String, description: 'The provider consent page the popup opens.' })
  url!: string;

  @ApiProperty({ type: String, description: 'Single use, short-lived; the socket at /ws/sso?cross_key= awaits complete-sso with it.' })
  cross_key!: string;

  @ApiProperty({ type: Number, example: 600 })
  expires_in!: number;
}

class SsoMemberResponse {
  @ApiProperty({ type: Number }) id!: number;
  @ApiProperty({ type: String }) email!: string;
}

export class SsoAccessRequestResponse {
  @ApiProperty({ type: Number }) id!: number;
  @ApiProperty({ enum: SSO_TYPES }) type!: string;
  @ApiProperty({ type: String }) email!: string;
  @ApiProperty({ type: String }) name!: string;
  @ApiProperty({ type: SsoMemberResponse }) user!: SsoMemberResponse;
  @ApiProperty({ enum: ['pending', 'approved', 'rejected'] }) status!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}
