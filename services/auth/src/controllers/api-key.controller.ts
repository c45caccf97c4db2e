import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiErrors, ApiListResponse, CurrentPrincipal, Permissions, Public, type ListResult, type Principal } from '@switchboard/platform';
import { CreateApiKeyDto, UpdateApiKeyDto } from '../dtos/api-key.dto';
import { ApiKeyHeader } from '../http/api-key-header.decorator';
import { IdPipe } from '../http/id.pipe';
import { ApiKeyService, type ApiKeyDto, type ApiKeyTokenDto } from '../services/api-key.service';
import { ApiKeyResponse, ApiKeyTokenResponse } from '../dtos/responses.dto';

@ApiTags('api_keys')
@ApiBearerAuth()
@Controller('api_keys')
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  /** The key authenticates itself (and its IP ACL) here; the answer is an access token for every other route. */
  @ApiHeader({ name: 'X-Api-Key', required: false, description: 'the API key (or send it as Authorization: Bearer sk_...)', example: 'sk_live_4f9a…' })
  @ApiErrors(
    { status: 401, code: '0x11', message: 'an API key is required: Authorization: Bearer sk_... or X-Api-Key' },
    { status: 401, code: '0x12', message: 'invalid API key' },
    { status: 403, code: '0x13', message: 'this address may not use this API key' },
    { status: 403, code: 'ACCESS_DENIED', message: 'API keys cannot be used in this account' },
  )
  @ApiOkResponse({ type: ApiKeyTokenResponse })
  @Post('token') @HttpCode(200) @Public()
  token(@ApiKeyHeader() key: string | null): Promise<ApiKeyTokenDto> { return this.keys.exchange(key); }

  @ApiListResponse(ApiKeyResponse)
  @Get() @Permissions(Permission.ApiKeyView)
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<ApiKeyDto>> { return this.keys.list(p, q); }

  @ApiOkResponse({ type: ApiKeyResponse })
  @Get(':id') @Permissions(Permission.ApiKeyView)
  get(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<ApiKeyDto> { return this.keys.get(p, id); }

  @ApiCreatedResponse({ type: ApiKeyResponse })
  @Post() @Permissions(Permission.ApiKeyAdd)
  create(@CurrentPrincipal() p: Principal, @Body() dto: CreateApiKeyDto): Promise<ApiKeyDto> { return this.keys.create(p, dto); }

  @ApiOkResponse({ type: ApiKeyResponse })
  @Post(':id/regenerate') @HttpCode(200) @Permissions(Permission.ApiKeyEdit)
  regenerate(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<ApiKeyDto> { return this.keys.regenerate(p, id); }

  @ApiOkResponse({ type: ApiKeyResponse })
  @Put(':id') @Permissions(Permission.ApiKeyEdit)
  update(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string, @Body() dto: UpdateApiKeyDto): Promise<ApiKeyDto> { return this.keys.update(p, id, dto); }

  @Delete(':id') @HttpCode(204) @Permissions(Permission.ApiKeyDelete)
  delete(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<void> { return this.keys.delete(p, id); }
}
