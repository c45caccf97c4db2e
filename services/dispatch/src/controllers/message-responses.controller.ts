import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { MessageResponsesService, type ChatItemDto, type MessageResponseDto } from '../services/message-responses.service';
import { ChatItemResponse, MessageResponse } from '../dtos/responses.dto';

@ApiTags('message_responses')
@ApiBearerAuth()
@Controller('message_responses')
export class MessageResponsesController {
  constructor(private readonly responses: MessageResponsesService) {}

  @ApiListResponse(MessageResponse)
  @Get() @Permissions(Permission.MessageIncomingView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<MessageResponseDto>> { return this.responses.list(q); }

  @ApiListResponse(ChatItemResponse)
  @Get('chat') @Permissions(Permission.MessageIncomingView)
  chat(@Query() q: Record<string, unknown>): Promise<ListResult<ChatItemDto>> { return this.responses.chat(q); }
}
