import * as fs from 'node:fs';
import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ErrorCode, Permission } from '@switchboard/contracts';
import { AppError, Permissions, QueryToken, RequestContext } from '@switchboard/platform';
import { ExportService } from '../exports/export.service';

/**
 * `GET /api/message_exports/download?id=`: the CSV of a finished message export (docs/decisions/0046). Contacts'
 * `/api/task/download` sends the caller here once the task is done; the same rule applies here too: "task is not
 * ready yet" before the end, the export's own error after a failure.
 */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('message_exports')
export class MessageExportsController {
  constructor(private readonly exports: ExportService) {}

  @ApiQuery({ name: 'id', type: String, required: true, description: 'the task id', example: '12' })
  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'the CSV file (UTF-8 with BOM, formula cells neutralised)', schema: { type: 'string', format: 'binary', example: 'messageUuid,acceptedAt,...' } })
  @Get('download') @Permissions(Permission.MessageExport) @QueryToken()
  async download(@Query('id') rawId: unknown, @Res() res: Response): Promise<void> {
    const id = typeof rawId === 'string' && /^\d{1,18}$/.test(rawId) ? rawId : null;
    if (!id) throw AppError.validation([{ propertyPath: 'id', message: 'a task id' }]);
    const f = await this.exports.file(RequestContext.accountId(), id);
    if (!f || f.status === 'deleted') throw AppError.notFound('task');
    if (f.status === 'error') throw new AppError(409, ErrorCode.Conflict, 'task failed');
    if (f.status !== 'done') throw new AppError(409, ErrorCode.Conflict, 'task is not ready yet');
    if (!f.path || !fs.existsSync(f.path)) throw AppError.notFound('task file');
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${(f.name ?? `task-${id}.csv`).replace(/[^\w.-]/g, '_')}"`);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    await new Promise<void>((resolve, reject) => {
      const s = fs.createReadStream(f.path as string);
      s.on('error', reject);
      res.on('finish', () => resolve());
      res.on('close', () => resolve());
      s.pipe(res);
    });
  }
}
