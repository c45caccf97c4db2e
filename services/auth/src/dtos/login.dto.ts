import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export class LoginCheckDto {
  @ApiProperty({ example: 'jane@example.com', description: 'The email address' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  @IsEmail({}, { message: 'errors.client.email' })
  username: string;

  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({ description: 'reCAPTCHA token (action submit); any value when the captcha is off', example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  gCaptchaToken?: string;
}

export class LoginManualDto extends LoginCheckDto {
  @ApiProperty({ example: '012345' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(16)
  pin: string;
}

export class TokenRefreshDto {
  @ApiProperty({ example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(8192) // generous: a wrong kind of token (an access JWT) should be refused as invalid, not as too long
  refresh_token: string;
}

export class LoginChallengeDto {
  @ApiProperty({ example: 'j***@example.com' })
  maskedEmail: string;
  @ApiProperty({ example: 6 })
  pinLength: number;
  @ApiProperty({ example: 30, description: 'seconds before the PIN can be sent again' })
  resendAfter: number;
}

export class TokenPairDto {
  @ApiProperty({ description: 'ES256 access JWT', example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  token: string;
  @ApiProperty({ description: 'opaque, single-use refresh token', example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  refresh_token: string;
}
