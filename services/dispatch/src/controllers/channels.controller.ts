import { Body, Controller, Get, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Authenticated, SuperAdmin, type ListResult } from '@switchboard/platform';
import { UpdateChannelDto } from '../dtos/routing.dto';
import { RoutingAdminService, type ChannelDto } from '../services/routing-admin.service';

@ApiTags('channels')
@ApiBearerAuth()
@Controller('channels')
export class ChannelsController {
  constructor(private readonly admin: RoutingAdminService) {}

  @Get() @Authenticated()
  list(): Promise<ListResult<ChannelDto>> { return this.admin.channels(); }

  @Put(':id') @SuperAdmin()
  update(@Param('id') id: string, @Body() dto: UpdateChannelDto): Promise<ChannelDto> { return this.admin.updateChannel(id, dto); }

  @Post('superadmin/sync') @SuperAdmin()
  sync(): Promise<{ created: number }> { return this.admin.syncChannels(); }
}
