import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

export class CreateBlackListDto {
  @ApiProperty({ example: '+447911123456' })
  @IsString()
  @MaxLength(64)
  phone: string;

  @ApiPropertyOptional({ description: 'ISO 3166 alpha-2 region of a national number', example: 'GB' })
  @IsOptional()
  @Matches(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166 alpha-2 code' })
  country?: string;
}

export type { BlackListDto } from '@switchboard/contracts';
