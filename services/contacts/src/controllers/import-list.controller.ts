import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiCreatedResponse, ApiOkResponse, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiListResponse, Authenticated, CurrentPrincipal, QueryToken, type ListResult, type Principal } from '@switchboard/platform';
import type { ImportListDto, ImportPreviewDto } from '../dtos/import-list.dto';
import { UpdateImportListDto } from '../dtos/import-list.dto';
import { caller } from '../services/access';
import { ImportListService } from '../services/import-list.service';
import { ImportListGetResponse, ImportListResponse, ImportListUploadResponse } from '../dtos/responses.dto';

/** Import lists of contacts (CONTACT_LIST_SEGMENT_*) and of blocked numbers (BLOCK_DESTINATION_*): checked per type. */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('import_lists')
export class ImportListController {
  constructor(private readonly imports: ImportListService) {}

  @ApiQuery({ name: 'type', type: String, required: false, description: 'contacts or blacklist', example: 'contacts' })
  @ApiQuery({ name: 'status', type: String, required: false, description: 'the import status', example: 'parsed' })
  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'Customers' })
  @ApiListResponse(ImportListResponse)
  @Get() @Authenticated({ accountRequired: true })
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<ImportListDto>> { return this.imports.list(caller().accountId, p, q); }

  @ApiProduces('text/csv')
  @ApiOkResponse({ description: 'a CSV file to fill in (attachment contacts-example.csv)', schema: { type: 'string', format: 'binary', example: 'phone,firstName,lastName,email\n+447400123456,Jane,Doe,jane@example.com\n' } })
  @Get('example_file') @Authenticated({ accountRequired: true }) @QueryToken()
  example(@Res() res: Response): void { res.setHeader('Content-Type', 'text/csv; charset=utf-8'); res.setHeader('Content-Disposition', 'attachment; filename="contacts-example.csv"'); res.send(this.imports.exampleFile()); }

  @ApiOkResponse({ type: ImportListGetResponse })
  @Get(':id') @Authenticated({ accountRequired: true })
  get(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<ImportListDto & { preview: ImportPreviewDto }> { return this.imports.get(caller().accountId, p, id); }

  @ApiCreatedResponse({ type: ImportListUploadResponse })
  @ApiBody({
    description: 'the file and its list; the answer is the parsed preview, to be mapped with PUT /api/import_lists/{id}',
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', format: 'binary', description: 'one .csv or .xlsx file, at most CONTACTS_MAX_UPLOAD_MB megabytes (default 100)' },
        type: { type: 'string', enum: ['contacts', 'blacklist'], default: 'contacts', example: 'contacts', description: 'contacts for a contact list, blacklist for blocked numbers' },
        name: { type: 'string', maxLength: 255, example: 'Customers November', description: 'the list name; default the file name' },
      },
    },
  })
  @Post() @Authenticated({ accountRequired: true }) @ApiConsumes('multipart/form-data')
  upload(@CurrentPrincipal() p: Principal, @Req() req: Request): Promise<ImportListDto & { preview: ImportPreviewDto }> { return this.imports.upload(caller().accountId, p, req); }

  @ApiOkResponse({ type: ImportListResponse })
  @Put(':id') @Authenticated({ accountRequired: true })
  update(@CurrentPrincipal() p: Principal, @Param('id') id: string, @Body() dto: UpdateImportListDto): Promise<ImportListDto> { return this.imports.update(caller().accountId, p, id, dto); }

  @Delete(':id') @Authenticated({ accountRequired: true }) @HttpCode(204)
  delete(@CurrentPrincipal() p: Principal, @Param('id') id: string): Promise<void> { return this.imports.delete(caller().accountId, p, id); }
}
