import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsEmail, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { AsIdString, IsRef, NoForbiddenCharacters, Trim } from './common';

export class CreateInviteDto {
  @ApiProperty({ example: 'jane@example.com' })
  @Trim()
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(254)
  @IsEmail({}, { message: 'errors.client.email' })
  email: string;

  @ApiPropertyOptional({ example: 'Jane' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoForbiddenCharacters()
  firstname?: string;

  @ApiPropertyOptional({ example: 'Doe' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoForbiddenCharacters()
  lastname?: string;

  @ApiProperty({ description: 'one platform role and one inbox role (ids or IRIs)', example: [3, 4], type: [String] })
  @IsArray()
  @ArrayMaxSize(2)
  @IsRef({ each: true })
  user_roles_ids: unknown[];
}

export class UpdateInviteDto {
  @ApiPropertyOptional({ example: 'Jane' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoForbiddenCharacters()
  firstname?: string;

  @ApiPropertyOptional({ example: 'Doe' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoForbiddenCharacters()
  lastname?: string;

  @ApiPropertyOptional({ example: [3, 4], type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsRef({ each: true })
  user_roles_ids?: unknown[];
}

/** The three parts of the link /team-member-invite/:customerID/:inviteID/:inviteToken. */
export class InviteLinkDto {
  @ApiProperty({ example: 12 })
  @AsIdString()
  @IsString()
  @Matches(/^[1-9]\d{0,17}$/, { message: 'must be an id' })
  customerID: string;

  @ApiProperty({ example: 34 })
  @AsIdString()
  @IsString()
  @Matches(/^[1-9]\d{0,17}$/, { message: 'must be an id' })
  inviteID: string;

  @ApiProperty({ example: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  inviteToken: string;
}

export class RegisterDto extends InviteLinkDto {
  @ApiProperty({ description: 'at least 8 characters, at most 72 bytes', example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty({ message: 'errors.client.required' })
  @MaxLength(1024)
  password: string;

  @ApiPropertyOptional({ description: 'must equal password when sent', example: 'correct horse battery staple' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  confirmPassword?: string;

  @ApiPropertyOptional({ description: "default: the invite's", example: 'Jane' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoForbiddenCharacters()
  firstname?: string;

  @ApiPropertyOptional({ example: 'Doe' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @NoForbiddenCharacters()
  lastname?: string;
}
