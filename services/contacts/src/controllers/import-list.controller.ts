import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticated, CurrentPrincipal, type ListResult, type Principal } from '@switchboard/platform';
import type { ImportListDto, ImportPreviewDto } from '../dtos/import-list.dto';
import { UpdateImportListDto } from '../dtos/import-list.dto';
import { caller } from '../services/access';
import { ImportListService } from '../services/import-list.service';

/** Import lists of contacts (CONTACT_LIST_SEGMENT_*) and of blocked numbers (BLOCK_DESTINATION_*): checked per type. */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('import_lists')
export class ImportListController {
  constructor(private readonly imports: ImportListService) {}

  @Get() @Authenticated({ accountRequired: true })
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<ImportListDto>> { return this.imports.list(caller().accountId, p, q); }

  @Get('example_file') @Authenticated({ accountRequired: true })
  example(@Res() res: Response): void { res.setHeader('Content-Type', 'text/csv; charset=utf-8'); res.setHeader('Content-Disposition', 'attachment; filename="contacts-example.csv"'); res.send(this.imports.exampleFile()); }

  @Get(':id') @Authenticated({ accountRequired: true })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ImportListDto & { preview: ImportPreviewDto }> { return this.imports.get(caller().accountId, p, id); }

  @Post() @Authenticated({ accountRequired: true }) @ApiConsumes('multipart/form-data')
  upload(@CurrentPrincipal() p: Principal, @Req() req: Request): Promise<ImportListDto & { preview: ImportPreviewDto }> { return this.imports.upload(caller().accountId, p, req); }

  @Put(':id') @Authenticated({ accountRequired: true })
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: UpdateImportListDto): Promise<ImportListDto> { return this.imports.update(caller().accountId, p, id, dto); }

  @Delete(':id') @Authenticated({ accountRequired: true }) @HttpCode(204)
  delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> { return this.imports.delete(caller().accountId, p, id); }
}
