import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  MemberChangedV1,
  RoleChangedV1,
  StreamCreatedV1,
  StreamDeletedV1,
  StreamUpdatedV1,
  Topics,
  type EventData,
  type EventEnvelope,
} from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { INBOX_CONNECTION, INBOX_SCHEMA } from '../inbox.options';
import { addSpaceAccessEvent } from './access';

export const READ_MODEL_GROUP = 'inbox.read-models';

type Member = EventData<typeof MemberChangedV1>;
type Role = EventData<typeof RoleChangedV1>;
type Stream = EventData<typeof StreamCreatedV1>;

/**
 * The inbox's read models of other services' data: agents (auth's members with their roles and permissions), roles
 * (so a role's new permissions reach its agents), and streams (type, name, whether it may send: the noStream reply
 * block). Each event once (processed_events in the same transaction); snapshots, so a later one simply wins.
 */
@Injectable()
export class ReadModelConsumer implements OnModuleInit {
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: READ_MODEL_GROUP,
      topics: [Topics.Auth, Topics.Streams],
      types: [MemberChangedV1.type, RoleChangedV1.type, StreamCreatedV1.type, StreamUpdatedV1.type, StreamDeletedV1.type],
      handler: (e) => this.handle(e),
    });
  }

  async handle(e: EventEnvelope): Promise<void> {
    await IdempotentConsumer.handleOnce(this.ds, INBOX_SCHEMA, READ_MODEL_GROUP, e, async (m) => {
      switch (e.type) {
        case MemberChangedV1.type:
          return this.member(m, MemberChangedV1.schema.parse(e.data), e.occurredAt);
        case RoleChangedV1.type:
          return this.role(m, RoleChangedV1.schema.parse(e.data));
        case StreamCreatedV1.type:
        case StreamUpdatedV1.type:
          return this.stream(m, StreamCreatedV1.schema.parse(e.data));
        case StreamDeletedV1.type: {
          const d = StreamDeletedV1.schema.parse(e.data);
          await m.query(`UPDATE inbox.stream SET deleted = true, enable_sending = false WHERE stream_id = $1 AND account_id = $2`, [d.streamId, d.accountId]);
          return;
        }
      }
    });
  }

  private async member(m: EntityManager, d: Member, at: string): Promise<void> {
    await m.query(
      `INSERT INTO inbox.agent (account_id, user_id, email, first_name, last_name, status, platform_role_id, platform_role_name, inbox_role_id, inbox_role_name, permissions, removed, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (account_id, user_id) DO UPDATE SET email = EXCLUDED.email, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
         status = EXCLUDED.status, platform_role_id = EXCLUDED.platform_role_id, platform_role_name = EXCLUDED.platform_role_name,
         inbox_role_id = EXCLUDED.inbox_role_id, inbox_role_name = EXCLUDED.inbox_role_name, permissions = EXCLUDED.permissions,
         removed = EXCLUDED.removed, updated_at = EXCLUDED.updated_at`,
      [d.accountId, d.userId, d.email, d.firstName, d.lastName, d.status, d.platformRole?.id ?? null, d.platformRole?.name ?? null, d.inboxRole?.id ?? null, d.inboxRole?.name ?? null, d.permissions, d.removed, at],
    );
    if (d.removed) {
      // a removed member leaves every team of the account (and so the spaces the AI routes check: decision 0050)
      await m.query(`DELETE FROM inbox.team_agent WHERE account_id = $1 AND user_id = $2`, [d.accountId, d.userId]);
      await m.query(`DELETE FROM inbox.imported_placement WHERE account_id = $1 AND user_id = $2`, [d.accountId, d.userId]);
      await addSpaceAccessEvent(m, d.accountId, new Date(at));
    }
  }

  private async role(m: EntityManager, d: Role): Promise<void> {
    await m.query(
      `INSERT INTO inbox.role (role_id, account_id, name, role_type, permissions, read_only, deleted) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (role_id) DO UPDATE SET name = EXCLUDED.name, role_type = EXCLUDED.role_type, permissions = EXCLUDED.permissions, read_only = EXCLUDED.read_only, deleted = EXCLUDED.deleted`,
      [d.roleId, d.accountId, d.name, d.roleType, d.permissions, d.readOnly, d.isDeleted],
    );
    // the members holding it: their permissions are those of their two roles together (as their next token carries)
    await m.query(
      `UPDATE inbox.agent a SET
         platform_role_name = CASE WHEN a.platform_role_id = $1 THEN $2 ELSE a.platform_role_name END,
         inbox_role_name = CASE WHEN a.inbox_role_id = $1 THEN $2 ELSE a.inbox_role_name END,
         inbox_role_id = CASE WHEN a.inbox_role_id = $1 AND $3 THEN NULL ELSE a.inbox_role_id END,
         platform_role_id = CASE WHEN a.platform_role_id = $1 AND $3 THEN NULL ELSE a.platform_role_id END,
         permissions = ARRAY(
           SELECT DISTINCT p FROM inbox.role r, unnest(r.permissions) p
           WHERE r.role_id IN (a.platform_role_id, a.inbox_role_id) AND NOT r.deleted
         )
       WHERE (a.platform_role_id = $1 OR a.inbox_role_id = $1) AND ($4::bigint IS NULL OR a.account_id = $4)`,
      [d.roleId, d.name, d.isDeleted, d.accountId],
    );
  }

  private async stream(m: EntityManager, d: Stream): Promise<void> {
    await m.query(
      `INSERT INTO inbox.stream (stream_id, account_id, stream_uid, name, stream_type, status, sender, enable_sending, deleted, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, false, $9)
       ON CONFLICT (stream_id) DO UPDATE SET name = EXCLUDED.name, stream_type = EXCLUDED.stream_type, status = EXCLUDED.status, sender = EXCLUDED.sender,
         enable_sending = EXCLUDED.enable_sending, updated_at = EXCLUDED.updated_at
       WHERE inbox.stream.updated_at <= EXCLUDED.updated_at`,
      [d.streamId, d.accountId, d.streamUid, d.name, d.streamType, d.status, d.sender, d.enableSending, d.updatedAt],
    );
  }
}
