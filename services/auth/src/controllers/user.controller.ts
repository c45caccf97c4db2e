import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated, CurrentPrincipal, type Principal } from '@switchboard/platform';
import { UpdateProfileDto } from '../dtos/profile.dto';
import { CurrentSessionId } from '../http/current-session.decorator';
import { ProfileService, type LiveChannelDto, type ProfileDto } from '../services/profile.service';
import type { TokenPair } from '../services/token.service';
import { LiveChannelResponse, ProfileResponse, UserUpdateResponse } from '../dtos/responses.dto';

@ApiTags('users')
@ApiBearerAuth()
@Controller('users')
export class UserController {
  constructor(private readonly profiles: ProfileService) {}

  @ApiOkResponse({ type: ProfileResponse })
  @Get('connected') @Authenticated()
  connected(@CurrentPrincipal() p: Principal): Promise<ProfileDto> { return this.profiles.connected(p); }

  @ApiOkResponse({ type: LiveChannelResponse })
  @Get('async') @Authenticated({ accountRequired: true })
  liveChannel(@CurrentPrincipal() p: Principal): Promise<LiveChannelDto> { return this.profiles.liveChannel(p); }

  @ApiOkResponse({ type: UserUpdateResponse })
  @Put('connected_update') @Authenticated()
  update(@CurrentPrincipal() p: Principal, @CurrentSessionId() sid: string | null, @Body() dto: UpdateProfileDto): Promise<ProfileDto & Partial<TokenPair>> { return this.profiles.update(p, sid, dto); }
}
