import { Body, Controller, Get, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiListResponse, Authenticated, SuperAdmin, type ListResult } from '@switchboard/platform';
import { UpdateChannelDto } from '../dtos/routing.dto';
import { RoutingAdminService, type ChannelDto } from '../services/routing-admin.service';
import { ChannelResponse, ChannelsSyncResponse } from '../dtos/responses.dto';

@ApiTags('channels')
@ApiBearerAuth()
@Controller('channels')
export class ChannelsController {
  constructor(private readonly admin: RoutingAdminService) {}

  @ApiListResponse(ChannelResponse)
  @Get() @Authenticated()
  list(): Promise<ListResult<ChannelDto>> { return this.admin.channels(); }

  @ApiOkResponse({ type: ChannelResponse })
  @Put(':id') @SuperAdmin()
  update(@Param('id') id: string, @Body() dto: UpdateChannelDto): Promise<ChannelDto> { return this.admin.updateChannel(id, dto); }

  @ApiCreatedResponse({ type: ChannelsSyncResponse })
  @Post('superadmin/sync') @SuperAdmin()
  sync(): Promise<{ created: number }> { return this.admin.syncChannels(); }
}
