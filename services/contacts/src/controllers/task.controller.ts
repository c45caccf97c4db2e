import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiListResponse, Authenticated, CurrentPrincipal, QueryToken, type ListResult, type Principal } from '@switchboard/platform';
import { CreateTaskDto, type TaskDto } from '../dtos/task.dto';
import { caller } from '../services/access';
import { TaskService } from '../services/task.service';
import { TaskResponse } from '../dtos/responses.dto';

/** Background tasks; each type needs its own permission (export: CONTACT_LIST_SEGMENT_EXPORT, delete: CONTACT_REMOVE, opt-out: CONTACT_ADD_EDIT). */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('tasks')
export class TaskController {
  constructor(private readonly tasks: TaskService) {}

  @ApiCreatedResponse({ type: TaskResponse })
  @Post() @Authenticated({ accountRequired: true })
  create(@CurrentPrincipal() p: Principal, @Body() dto: CreateTaskDto): Promise<TaskDto> { return this.tasks.create(caller().accountId, p, dto); }

  @ApiQuery({ name: 'type', type: String, required: false, description: 'the task type', example: 'export_contacts' })
  @ApiQuery({ name: 'status', type: String, required: false, description: 'pending, running, done or error', example: 'done' })
  @ApiListResponse(TaskResponse)
  @Get() @Authenticated({ accountRequired: true })
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<TaskDto>> { return this.tasks.list(caller().accountId, p, q); }

  @ApiOkResponse({ type: TaskResponse })
  @Get(':id') @Authenticated({ accountRequired: true })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<TaskDto> { return this.tasks.get(caller().accountId, p, id); }

  @Delete(':id') @Authenticated({ accountRequired: true }) @HttpCode(204)
  delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> { return this.tasks.delete(caller().accountId, p, id); }
}

/** Spec 7: GET /api/task/download?id= (singular "task"). */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('task')
export class TaskDownloadController {
  constructor(private readonly tasks: TaskService) {}

  @ApiQuery({ type: Number, name: 'id', description: 'the task id (an export task that has finished)', example: 42 })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'the exported CSV file (attachment)', schema: { type: 'string', format: 'binary', example: 'phone,firstName,lastName\n+447400123456,Jane,Doe\n' } })
  @Get('download') @Authenticated({ accountRequired: true }) @QueryToken()
  download(@CurrentPrincipal() p: Principal, @Query('id') id: unknown, @Res() res: Response): Promise<void> { return this.tasks.download(caller().accountId, p, id, res); }
}
