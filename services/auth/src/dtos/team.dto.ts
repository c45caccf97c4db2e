import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt } from 'class-validator';

export class UpdateMemberDto {
  @ApiProperty({ enum: [2, 3], description: '2 active, 3 disabled (spec 4)', example: 2 })
  @IsInt()
  @IsIn([2, 3], { message: 'must be 2 (active) or 3 (disabled)' })
  status: number;
}
