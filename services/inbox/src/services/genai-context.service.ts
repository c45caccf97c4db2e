import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  ErrorCode,
  GENAI_LIMITS,
  genAiContextBinding,
  Permission,
  type GenAiContextAnswer,
  type GenAiConversationContext,
  type InboxConversationGoal,
} from '@switchboard/contracts';
import { AppError, ProviderSecrets, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import { parse, refId } from '../http/input';
import { INBOX_CONNECTION, INBOX_OPTIONS, type ResolvedInboxOptions } from '../inbox.options';
import { actorOf, InboxAccess, requirePerm } from './access';
import { ConversationsService } from './conversations.service';
import { OrganisationService } from './organisation.service';

type Row = Record<string, unknown>;
const ContextBody = z.object({ conversation_goal_id: z.union([z.number().int().positive(), z.string().regex(/^\d+$|^\/api\/conversation_goals\/\d+$/)]) }).strict();

/**
 * The inbox's side of generative AI (docs/decisions/0041-generative-ai.md). The AI answer toward a goal runs in the
 * integrations service, which has no copy of conversations: the inbox checks that the agent sees the conversation and
 * holds the AI assistant permission in its space, and hands over only what the prompt needs (the goal and the last
 * messages' text, no names, numbers or media), sealed and bound to the account and conversation, valid two minutes.
 * Also `genai/team_goals`: the goals an agent may aim the assistant at (the inbox owns goals).
 */
@Injectable()
export class GenAiContextService {
  private readonly sealer: ProviderSecrets | null;

  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    @Inject(INBOX_OPTIONS) options: ResolvedInboxOptions,
    private readonly clock: Clock,
    private readonly access: InboxAccess,
    private readonly conversations: ConversationsService,
    private readonly org: OrganisationService,
  ) {
    this.sealer = options.genAiContextKey ? new ProviderSecrets(options.genAiContextKey) : null;
  }

  async context(id: string, body: unknown): Promise<GenAiContextAnswer> {
    const actor = actorOf();
    const d = parse(ContextBody, body);
    const { row, scope } = await this.conversations.visibleConversation(id, actor);
    requirePerm(scope, Permission.InboxAiAssistant);
    if (!this.sealer) throw new AppError(503, ErrorCode.GenAiNotConfigured, 'generative AI is not set up on this installation (GENAI_CONTEXT_KEY)');
    const goalId = String(d.conversation_goal_id).replace(/^\/api\/conversation_goals\//, '');
    const [goal] = (await this.ds.query(
      `SELECT g.id::text, g.name, g.text, COALESCE(array_agg(gt.team_id::text) FILTER (WHERE gt.team_id IS NOT NULL), '{}') AS teams
       FROM inbox.conversation_goal g LEFT JOIN inbox.conversation_goal_team gt ON gt.goal_id = g.id
       WHERE g.id = $1 AND g.account_id = $2 AND g.space_id = $3 GROUP BY g.id`,
      [goalId, actor.accountId, row.space_id],
    )) as Row[];
    const teams = (goal?.teams as string[] | undefined) ?? [];
    // a goal of the conversation's space, and of one of the agent's teams unless it is for everyone or they see all
    if (!goal || !(scope.seesAll || teams.length === 0 || teams.some((t) => scope.teamIds.includes(t)))) {
      throw AppError.validation([{ propertyPath: 'conversation_goal_id', message: 'no such conversation goal for this conversation' }]);
    }
    const events = (await this.ds.query(
      `SELECT e.event_type, e.body FROM inbox.event e
       WHERE e.conversation_id = $1 AND e.event_type IN ('incoming_message', 'outgoing_message') AND e.body IS NOT NULL AND e.body <> ''
       ORDER BY e.message_time DESC, e.id DESC LIMIT $2`,
      [row.id, GENAI_LIMITS.contextMessages],
    )) as Row[];
    const expiresAt = this.clock.now().getTime() + GENAI_LIMITS.contextTtlMs;
    const ctx: GenAiConversationContext = {
      accountId: actor.accountId,
      conversationUuid: String(row.uuid),
      goalId: Number(goal.id),
      goalName: String(goal.name),
      goalText: String(goal.text),
      messages: events.reverse().map((e) => ({ from: e.event_type === 'incoming_message' ? 'contact' : 'agent', text: String(e.body).slice(0, GENAI_LIMITS.contextMessageChars) })),
      expiresAt,
      spaceId: String(row.space_id),
    };
    return { context: this.sealer.seal(genAiContextBinding(actor.accountId, ctx.conversationUuid), { ctx: JSON.stringify(ctx) }), expires_at: new Date(expiresAt).toISOString() };
  }

  /**
   * GET genai/team_goals/?space=: the space's goals the caller may aim the assistant at (all of them for an admin);
   * only for callers who hold the AI assistant in that space.
   */
  async teamGoals(q: Record<string, unknown>): Promise<ListResult<InboxConversationGoal>> {
    const actor = actorOf();
    const scope = await this.access.scope(refId(String(q.space ?? '')), actor);
    // goals to aim the assistant at: the assistant's permission in this space (spec 6 update_permissions; decision 0050)
    requirePerm(scope, Permission.InboxAiAssistant);
    const all = await this.org.listGoals({ space: scope.spaceId, itemsPerPage: 2000 });
    const items = scope.seesAll ? all.items : all.items.filter((g) => g.teams.length === 0 || g.teams.some((t) => scope.teamIds.includes(refId(t) ?? '')));
    return { items, total: items.length };
  }

  /** POST genai/team_goals/: a new goal for teams (the same as POST /conversation_goals). */
  createTeamGoal(body: unknown): Promise<InboxConversationGoal> {
    return this.org.createGoal(body);
  }
}
