import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { Trim } from './common';

export class LoginAsDto {
  @ApiProperty({ example: 'agent@example.com' })
  @Trim()
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(254)
  @IsEmail({}, { message: 'errors.client.email' })
  email: string;
}
