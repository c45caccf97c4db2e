import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiQuery, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Permission, type WebhookDto, type WebhookRequestLogDto, type WebhookTestResultDto } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { CodeSnippetsResponse, RotateSecretResponse, WebhookCreatedResponse, WebhookRequestLogResponse, WebhookResponse, WebhookTestResultResponse } from '../dtos/responses.dto';
import { WebhookInputDto } from '../dtos/webhook.dto';
import { DeliveryService, LOG_PAGE_WINDOW } from '../services/delivery.service';
import { codeSnippets } from '../services/snippets';
import { WebhookService } from '../services/webhook.service';

const P = Permission;

@ApiTags('webhooks')
@ApiBearerAuth()
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhookService,
    private readonly deliveries: DeliveryService,
  ) {}

  @ApiQuery({ name: 'trigger', type: String, required: false, description: 'incoming_message, short_url_clicks, message_status_change or edr_info', example: 'message_status_change' })
  @ApiQuery({ name: 'active', type: Number, required: false, description: '1 active, 0 inactive', example: 1 })
  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'orders' })
  @ApiListResponse(WebhookResponse)
  @Get() @Permissions(P.WebhookView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<WebhookDto>> { return this.webhooks.list(q); }

  @ApiOkResponse({ type: CodeSnippetsResponse })
  @Get('code_snippets') @Permissions(P.WebhookView)
  snippets() { return codeSnippets(); }

  @ApiOkResponse({ type: WebhookTestResultResponse, description: 'success, failed or timeout (E-CONNECTION_TIMEOUT), with the request and response' })
  @Post('test/:id') @Permissions(P.WebhookAddEdit) @HttpCode(200)
  test(@Param('id') id: string): Promise<WebhookTestResultDto> { return this.deliveries.test(id); }

  @ApiOkResponse({ type: WebhookResponse })
  @Get(':id') @Permissions(P.WebhookView)
  get(@Param('id') id: string): Promise<WebhookDto> { return this.webhooks.get(id); }

  @ApiCreatedResponse({ type: WebhookCreatedResponse })
  @Post() @Permissions(P.WebhookAddEdit)
  create(@Body() dto: WebhookInputDto): Promise<WebhookDto> { return this.webhooks.create(dto); }

  @ApiOkResponse({ type: WebhookResponse })
  @Put(':id') @Permissions(P.WebhookAddEdit)
  update(@Param('id') id: string, @Body() dto: WebhookInputDto): Promise<WebhookDto> { return this.webhooks.update(id, dto); }

  @ApiOkResponse({ type: RotateSecretResponse })
  @Post(':id/rotate_secret') @Permissions(P.WebhookAddEdit) @HttpCode(200)
  rotate(@Param('id') id: string) { return this.webhooks.rotateSecret(id); }

  @Delete(':id') @Permissions(P.WebhookRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.webhooks.remove(id); }
}

@ApiTags('webhooks')
@ApiBearerAuth()
@Controller('webhook_requests')
export class WebhookRequestsController {
  constructor(private readonly deliveries: DeliveryService) {}

  @ApiQuery({ name: 'webhook', type: String, required: false, description: 'webhook id or IRI', example: '/api/webhooks/1' })
  @ApiQuery({ name: 'status', type: String, required: false, description: 'success, failed or timeout', example: 'failed' })
  @ApiQuery({ name: 'eventId', type: String, required: false, description: 'the webhook-id header of a delivery', example: '0b6f5c1e-3c4d-4e8f-9a10-1b2c3d4e5f60' })
  @ApiQuery({ name: 'cursor', type: String, required: false, description: 'the nextCursor of the previous page: continues after it at any depth (page is then 1 or absent)', example: 'ZDo0Mg' })
  @ApiQuery({ name: 'page', type: Number, required: false, description: `pages reach the first ${LOG_PAGE_WINDOW} entries; continue with cursor beyond`, example: 1 })
  @ApiExtraModels(WebhookRequestLogResponse)
  @ApiOkResponse({
    description: 'one page of the request log (keyset paging: docs/decisions/0027-webhooks.md)',
    schema: {
      type: 'object',
      required: ['items', 'total', 'totalCapped', 'nextCursor'],
      properties: {
        items: { type: 'array', items: { $ref: getSchemaPath(WebhookRequestLogResponse) } },
        total: { type: 'integer', description: `entries matching the filter, counted up to ${LOG_PAGE_WINDOW}`, example: 1 },
        totalCapped: { type: 'boolean', description: `true when more than ${LOG_PAGE_WINDOW} entries match`, example: false },
        nextCursor: { type: 'string', nullable: true, description: 'pass as cursor for the next page; null on the last page', example: 'ZDo0Mg' },
      },
    },
  })
  @Get('log') @Permissions(P.WebhookRequestView)
  log(@Query() q: Record<string, unknown>): Promise<ListResult<WebhookRequestLogDto> & { nextCursor: string | null; totalCapped: boolean }> { return this.deliveries.requestLog(q); }
}
