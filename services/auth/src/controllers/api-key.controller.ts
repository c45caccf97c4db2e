import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { CurrentPrincipal, Permissions, Public, type ListResult, type Principal } from '@switchboard/platform';
import { CreateApiKeyDto, UpdateApiKeyDto } from '../dtos/api-key.dto';
import { ApiKeyHeader } from '../http/api-key-header.decorator';
import { IdPipe } from '../http/id.pipe';
import { ApiKeyService, type ApiKeyDto, type ApiKeyTokenDto } from '../services/api-key.service';

@ApiTags('api_keys')
@ApiBearerAuth()
@Controller('api_keys')
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  /** The key authenticates itself (and its IP ACL) here; the answer is an access token for every other route. */
  @Post('token') @HttpCode(200) @Public()
  token(@ApiKeyHeader() key: string | null): Promise<ApiKeyTokenDto> { return this.keys.exchange(key); }

  @Get() @Permissions(Permission.ApiKeyView)
  list(@CurrentPrincipal() p: Principal, @Query() q: Record<string, unknown>): Promise<ListResult<ApiKeyDto>> { return this.keys.list(p, q); }

  @Get(':id') @Permissions(Permission.ApiKeyView)
  get(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<ApiKeyDto> { return this.keys.get(p, id); }

  @Post() @Permissions(Permission.ApiKeyAdd)
  create(@CurrentPrincipal() p: Principal, @Body() dto: CreateApiKeyDto): Promise<ApiKeyDto> { return this.keys.create(p, dto); }

  @Post(':id/regenerate') @HttpCode(200) @Permissions(Permission.ApiKeyEdit)
  regenerate(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<ApiKeyDto> { return this.keys.regenerate(p, id); }

  @Put(':id') @Permissions(Permission.ApiKeyEdit)
  update(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string, @Body() dto: UpdateApiKeyDto): Promise<ApiKeyDto> { return this.keys.update(p, id, dto); }

  @Delete(':id') @HttpCode(204) @Permissions(Permission.ApiKeyDelete)
  delete(@CurrentPrincipal() p: Principal, @Param('id', IdPipe) id: string): Promise<void> { return this.keys.delete(p, id); }
}
