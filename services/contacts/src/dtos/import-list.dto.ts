import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateIf, ValidateNested } from 'class-validator';

export class MappingEntryDto {
  @ApiPropertyOptional({ description: 'column index in the file, from 0', example: 0 })
  @IsInt()
  @Min(0)
  @Max(16383)
  column: number;

  @ApiPropertyOptional({ description: 'variable id, IRI /api/variables/{id}, or name (phone, firstName, a custom variable)', oneOf: [{ type: 'integer' }, { type: 'string' }], example: 'phone' })
  @Allow() // resolved against the account's variables
  variable: number | string;
}

/** PUT /api/import_lists/{id}: mapping, options, and the start (`start: true` or `status: "processing"`). */
export class UpdateImportListDto {
  @ApiPropertyOptional({ example: 'Acme' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name?: string;

  @ApiPropertyOptional({ type: [MappingEntryDto], description: 'one entry per mapped column; unmapped columns are ignored' })
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => MappingEntryDto)
  mapping?: MappingEntryDto[];

  @ApiPropertyOptional({ description: 'the first line is a header (default true)', example: true })
  @IsOptional()
  @IsBoolean()
  ignoreFirstLine?: boolean;

  @ApiPropertyOptional({ nullable: true, description: 'ISO 3166 alpha-2 region of national numbers (without +country code)', type: 'string', example: 'GB' })
  @ValidateIf((_, v) => v !== null && v !== undefined)
  @Matches(/^[A-Za-z]{2}$/, { message: 'must be an ISO 3166 alpha-2 code' })
  defaultCountry?: string | null;

  @ApiPropertyOptional({ description: 'start parsing now (the mapping must be complete)', example: true })
  @IsOptional()
  @IsBoolean()
  start?: boolean;

  @ApiPropertyOptional({ enum: ['mapped', 'processing'], description: 'alternative to start: processing starts', example: 'mapped' })
  @IsOptional()
  @IsIn(['mapped', 'processing'])
  status?: 'mapped' | 'processing';
}

export type { ImportListDto, ImportPreviewDto } from '@switchboard/contracts';
