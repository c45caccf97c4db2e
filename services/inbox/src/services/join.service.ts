import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { AppError } from '@switchboard/platform';
import { parse } from '../http/input';
import { INBOX_CONNECTION } from '../inbox.options';
import { actorOf, InboxAccess } from './access';
import { ConversationsService } from './conversations.service';
import { RoomEvents, type RoomMessage } from './rooms.service';

const JoinInput = z.object({ room: z.string().regex(/^(account|space|team|agent):\d{1,18}$|^conversation:[0-9a-f-]{36}$/, 'account:<id>, space:<id>, team:<id>, agent:<id> or conversation:<uuid>'), since: z.number().int().min(0).nullable().optional() }).strict();

/**
 * Who may join which websocket room (asked by the gateway for each join, with the caller's own token) and what they
 * missed since the last number they saw. Account rooms: inbox admins of that account. Space rooms: those who see every
 * conversation of the space (admins, INBOX_TEAM_VIEW). Team rooms: its members and those. Agent rooms: the agent. A
 * conversation: whoever sees it. Anything of another account is "not found".
 */
@Injectable()
export class JoinService {
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    private readonly access: InboxAccess,
    private readonly conversations: ConversationsService,
    private readonly rooms: RoomEvents,
  ) {}

  async join(body: unknown): Promise<{ room: string; seq: number; reset: boolean; events: RoomMessage[] }> {
    const actor = actorOf();
    const d = parse(JoinInput, body);
    const [kind, id] = [d.room.slice(0, d.room.indexOf(':')), d.room.slice(d.room.indexOf(':') + 1)];
    switch (kind) {
      case 'account':
        if (id !== actor.accountId) throw AppError.notFound('room');
        if (!actor.admin) throw AppError.forbidden('the account room is for inbox admins');
        break;
      case 'space': {
        const scope = await this.access.scope(id, actor);
        if (!scope.seesAll) throw AppError.forbidden('the space room is for those who see every conversation of the space; join your team and agent rooms');
        break;
      }
      case 'team': {
        const [t] = (await this.ds.query(`SELECT space_id::text FROM inbox.team WHERE id = $1 AND account_id = $2`, [id, actor.accountId])) as Array<{ space_id: string }>;
        if (!t) throw AppError.notFound('team');
        const scope = await this.access.scope(t.space_id, actor);
        if (!scope.seesAll && !scope.teamIds.includes(id)) throw AppError.forbidden('not a member of this team');
        break;
      }
      case 'agent':
        if (id !== actor.userId) {
          const [a] = (await this.ds.query(`SELECT 1 FROM inbox.agent WHERE account_id = $1 AND user_id = $2`, [actor.accountId, id])) as unknown[];
          if (!a) throw AppError.notFound('agent');
          if (!actor.admin) throw AppError.forbidden('another agent\'s room');
        }
        break;
      case 'conversation':
        await this.conversations.visibleConversation(id, actor);
        break;
    }
    const r = await this.rooms.replay(actor.accountId, d.room, d.since ?? null);
    return { room: d.room, ...r };
  }
}
