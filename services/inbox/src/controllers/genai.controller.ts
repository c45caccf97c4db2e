import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiErrors, Permissions } from '@switchboard/platform';
import { bodies, GenAiContextSchema, GoalSchema, list } from '../http/schemas';
import { GenAiContextService } from '../services/genai-context.service';
import { Created, In, Ok } from './organisation.controller';

const P = Permission;

/**
 * The inbox's generative-AI routes (docs/decisions/0041-generative-ai.md): the conversation context handed to the
 * integrations service's `inbox/respond/{id}`, and the goals an agent's assistant may aim at.
 */
@ApiTags('inbox generative AI')
@ApiBearerAuth()
@Controller()
export class InboxGenAiController {
  constructor(private readonly genai: GenAiContextService) {}

  @Post('inbox/ai_context/:id') @Permissions(P.InboxView, P.InboxAiAssistant) @HttpCode(200)
  @In(bodies.genAiContext) @Ok(GenAiContextSchema)
  @ApiErrors({ status: 503, code: 'E-GENAI_NOT_CONFIGURED', message: 'GENAI_CONTEXT_KEY is not set on this installation' })
  context(@Param('id') id: string, @Body() b: unknown) { return this.genai.context(id, b); }

  @Get('genai/team_goals') @Permissions(P.InboxView) @Ok(list(GoalSchema))
  @ApiQuery({ name: 'space', required: true, type: String, example: '1' })
  teamGoals(@Query() q: Record<string, unknown>) { return this.genai.teamGoals(q); }

  @Post('genai/team_goals') @Permissions(P.InboxConversationGoals) @In(bodies.goal) @Created(GoalSchema)
  createTeamGoal(@Body() b: unknown) { return this.genai.createTeamGoal(b); }
}
