import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { MessageResponsesService, type ChatItemDto, type MessageResponseDto } from '../services/message-responses.service';
import { ChatItemResponse, MessageResponse } from '../dtos/responses.dto';

@ApiTags('message_responses')
@ApiBearerAuth()
@Controller('message_responses')
export class MessageResponsesController {
  constructor(private readonly responses: MessageResponsesService) {}

  @ApiQuery({ name: 'source', type: String, required: false, description: 'only messages from this contact', example: '+447400123456' })
  @ApiQuery({ name: 'destination', type: String, required: false, description: 'only messages to this number of ours', example: '+447400000001' })
  @ApiListResponse(MessageResponse)
  @Get() @Permissions(Permission.MessageIncomingView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<MessageResponseDto>> { return this.responses.list(q); }

  @ApiQuery({ name: 'destination', type: String, required: true, description: 'our number of the conversation', example: '+447400000001' })
  @ApiQuery({ name: 'source', type: String, required: true, description: 'the contact of the conversation', example: '+447400123456' })
  @ApiListResponse(ChatItemResponse)
  @Get('chat') @Permissions(Permission.MessageIncomingView)
  chat(@Query() q: Record<string, unknown>): Promise<ListResult<ChatItemDto>> { return this.responses.chat(q); }
}
