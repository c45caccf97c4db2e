import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { Trim } from './common';

export class SendResetEmailDto {
  @ApiProperty({ example: 'jane@example.com' })
  @Trim()
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(254)
  @IsEmail({}, { message: 'errors.client.email' })
  email: string;
}

export class CheckResetTokenDto extends SendResetEmailDto {
  @ApiProperty({ description: 'the token of /reset-password/:email/:token', example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  token: string;
}

export class ResetPasswordDto extends CheckResetTokenDto {
  @ApiProperty({ description: 'at least 8 characters, at most 72 bytes', example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(1024)
  password: string;
}

export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(1024)
  oldPassword: string;

  @ApiProperty({ description: 'at least 8 characters, at most 72 bytes', example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(1024)
  password: string;
}
