import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsIn, IsOptional } from 'class-validator';
import { TASK_TYPES } from '@switchboard/contracts';

export class CreateTaskDto {
  @ApiProperty({ enum: TASK_TYPES, example: 'export_contacts' })
  @IsIn(TASK_TYPES as unknown as string[])
  type: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { contactList: 12 }, description:
      'which contacts: { contactList?, importList?, ids?, filter?, country?, optedOut?, search?, state?, all? } (object or JSON text); ' +
      'delete and opt-out need a selector or all: true; state (invalid, not_mobile, blacklist, duplicate, failed) exports rejected import rows' })
  @Allow() // checked by the task params schema, which names each bad field
  params?: unknown;

  @ApiPropertyOptional({ enum: ['CSV', 'none'], default: 'CSV', example: 'CSV' })
  @IsOptional()
  @IsIn(['CSV', 'none'])
  fileType?: 'CSV' | 'none';
}

export type { TaskDto } from '@switchboard/contracts';
