import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ImportedAgentsAdmittedV1, InboxSpaceAccessChangedV1, Topics, type EventData, type EventEnvelope } from '@switchboard/contracts';
import { claimEvent, EventBus, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { keyFrom } from '../http/input';
import { INBOX_SCHEMA } from '../inbox.options';
import { spaceAccessOf } from './access';
import { freeKey } from './organisation.service';
import { InboxUnitOfWork } from './send.service';

/** Frozen: renaming it would make Kafka replay the auth topic into a new group. */
export const IMPORTED_AGENTS_GROUP = 'inbox.imported-agents';

type Admitted = EventData<typeof ImportedAgentsAdmittedV1>;

/** Where one event put its agents. */
export interface Placement {
  /** '' when the event only took agents out. */
  spaceId: string;
  /** team id -> the user ids placed in it */
  teams: Record<string, string[]>;
}

/**
 * CRM users an integration imported (auth's `auth.imported_agents.admitted`, by user id) join the account's space
 * named by the integration config, created when the account has none of that name, and its teams: one per CRM profile
 * with import_teams `profiles` (a user without a profile, or an import without teams, joins the team named after the
 * space). Spaces and teams are found by name (case-insensitive), so a second import or a redelivery adds nobody twice
 * and creates nothing twice; imports of one account are applied one at a time (an advisory lock per account). Once per
 * event (processed_events in the same transaction, with the space access snapshot of decision 0050); a database that
 * cannot serve makes the bus retry the same event. docs/decisions/0063. Each listed agent is in exactly the teams of
 * its current profiles, and `removed` members leave the teams the integration put them in (`imported_placement`
 * remembers which; an admin's own memberships are never taken away): decision 0064.
 */
@Injectable()
export class ImportedAgentsConsumer implements OnModuleInit {
  private readonly logger = new Logger('inbox');

  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: InboxUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: IMPORTED_AGENTS_GROUP, topics: [Topics.Auth], types: [ImportedAgentsAdmittedV1.type], handler: async (e) => void (await this.handle(e)) });
  }

  /** Applies one event; null for a redelivery, a refused event or one without a space. */
  async handle(event: EventEnvelope): Promise<Placement | null> {
    if (event.type !== ImportedAgentsAdmittedV1.type || event.version !== ImportedAgentsAdmittedV1.version) return null;
    const parsed = ImportedAgentsAdmittedV1.schema.safeParse(event.data);
    if (!parsed.success) {
      this.logger.error(`ignored malformed ${event.type} ${event.id}: ${parsed.error.message}`);
      return null;
    }
    const d = parsed.data;
    if (event.accountId === null || event.accountId === undefined || String(event.accountId) !== d.accountId) {
      this.logger.error(`ignored ${event.type} ${event.id}: its account does not match its envelope`);
      return null;
    }
    const spaceName = (d.spaceName ?? '').trim().slice(0, 255);
    const removed = d.removed ?? [];
    if ((!spaceName || !d.agents.length) && !removed.length) return null;
    return this.uow.run(async (m, emit) => {
      if (!(await claimEvent(m, INBOX_SCHEMA, IMPORTED_AGENTS_GROUP, event.id))) return null;
      // one import of the account at a time: two imports naming the same new space or team create it once
      await m.query(`SELECT pg_advisory_xact_lock(hashtextextended('inbox.imported-agents:' || $1, 0))`, [d.accountId]);
      let spaceId: string | null = null;
      const teams: Record<string, string[]> = {};
      if (spaceName && d.agents.length) {
        spaceId = await this.space(m, d.accountId, spaceName);
        for (const [teamName, users] of groups(d, spaceName)) {
          const teamId = await this.team(m, d.accountId, spaceId, teamName);
          const added = ((await m.query(
            `INSERT INTO inbox.team_agent (team_id, account_id, user_id, manager) SELECT $1, $2, u, false FROM unnest($3::bigint[]) u ON CONFLICT (team_id, user_id) DO NOTHING RETURNING user_id::text`,
            [teamId, d.accountId, users],
          )) as Array<{ user_id: string }>).map((r) => r.user_id);
          // the import holds the memberships it made, and those another import holds too; one an admin made stays the admin's
          await m.query(
            `INSERT INTO inbox.imported_placement (integration_key, team_id, user_id, account_id)
             SELECT $1, $2, u, $3 FROM unnest($4::bigint[]) u
              WHERE u = ANY($5::bigint[]) OR EXISTS (SELECT 1 FROM inbox.imported_placement p WHERE p.team_id = $2 AND p.user_id = u)
             ON CONFLICT DO NOTHING`,
            [d.integrationKey, teamId, d.accountId, users, added],
          );
          teams[teamId] = [...(teams[teamId] ?? []), ...users];
        }
      }
      // each agent listed is in exactly the teams of its profiles now: the import's other teams let it go (a move)
      const kept = Object.entries(teams).flatMap(([teamId, users]) => users.map((u) => `${teamId}:${u}`));
      const listed = spaceId ? d.agents.map((a) => a.userId) : [];
      await this.release(m, d.accountId, d.integrationKey, listed, kept);
      // members the integration no longer imports leave every team it put them in
      await this.release(m, d.accountId, d.integrationKey, removed.filter((u) => !listed.includes(u)), []);
      emit(InboxSpaceAccessChangedV1, await spaceAccessOf(m, d.accountId), d.accountId);
      return { spaceId: spaceId ?? '', teams };
    });
  }

  /**
   * The integration lets go of `users`' placements except `kept` (`team:user`); a team membership goes with the last
   * import holding it (an admin's own memberships have none, and stay).
   */
  private async release(m: EntityManager, accountId: string, integrationKey: string, users: string[], kept: string[]): Promise<void> {
    if (!users.length) return;
    const result = (await m.query(
      `DELETE FROM inbox.imported_placement WHERE account_id = $1 AND integration_key = $2 AND user_id = ANY($3::bigint[]) AND NOT ((team_id::text || ':' || user_id::text) = ANY($4::text[]))
       RETURNING team_id::text, user_id::text`,
      [accountId, integrationKey, users, kept],
    )) as unknown[];
    // TypeORM answers DELETE ... RETURNING as [rows, count]
    const released = (Array.isArray(result[0]) ? result[0] : result) as Array<{ team_id: string; user_id: string }>;
    if (!released.length) return;
    await m.query(
      `DELETE FROM inbox.team_agent ta USING json_to_recordset($2::json) AS x(team_id bigint, user_id bigint)
        WHERE ta.account_id = $1 AND ta.team_id = x.team_id AND ta.user_id = x.user_id
          AND NOT EXISTS (SELECT 1 FROM inbox.imported_placement p WHERE p.team_id = x.team_id AND p.user_id = x.user_id)`,
      [accountId, JSON.stringify(released)],
    );
  }

  private async space(m: EntityManager, accountId: string, name: string): Promise<string> {
    const [found] = (await m.query(`SELECT id::text FROM inbox.space WHERE account_id = $1 AND lower(name) = lower($2) ORDER BY id LIMIT 1`, [accountId, name])) as Array<{ id: string }>;
    if (found) return found.id;
    const now = this.clock.now();
    const [row] = (await m.query(
      `INSERT INTO inbox.space (account_id, key, name, description, settings, created_at, updated_at) VALUES ($1, $2, $3, '', $4, $5, $5) RETURNING id::text`,
      [accountId, await freeKey(m, 'space', 'key', 'account_id', accountId, keyFrom(name)), name, JSON.stringify({ configured: false, configuredRequired: true }), now],
    )) as Array<{ id: string }>;
    // as for a space made on the console: conversations that arrived before the account had any space land in its first one
    await m.query(`UPDATE inbox.conversation SET space_id = $1 WHERE account_id = $2 AND space_id IS NULL`, [row.id, accountId]);
    return row.id;
  }

  private async team(m: EntityManager, accountId: string, spaceId: string, name: string): Promise<string> {
    const [found] = (await m.query(`SELECT id::text FROM inbox.team WHERE space_id = $1 AND lower(name) = lower($2) ORDER BY id LIMIT 1`, [spaceId, name])) as Array<{ id: string }>;
    if (found) return found.id;
    const [row] = (await m.query(
      `INSERT INTO inbox.team (account_id, space_id, key, name, description, created_at, updated_at) VALUES ($1, $2, $3, $4, '', $5, $5) RETURNING id::text`,
      [accountId, spaceId, await freeKey(m, 'team', 'key', 'space_id', spaceId, keyFrom(name)), name, this.clock.now()],
    )) as Array<{ id: string }>;
    return row.id;
  }
}

/** team name -> user ids: a team per CRM profile (import_teams profiles), else (or without a profile) the space's. */
function groups(d: Admitted, spaceName: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (name: string, userId: string) => {
    const key = [...out.keys()].find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
    const users = out.get(key) ?? [];
    if (!users.includes(userId)) users.push(userId);
    out.set(key, users);
  };
  for (const a of d.agents) {
    const names = d.importTeams === 'profiles' ? a.profiles.map((p) => p.name.trim().slice(0, 255)).filter(Boolean) : [];
    if (!names.length) add(spaceName, a.userId);
    for (const n of names) add(n, a.userId);
  }
  return out;
}
