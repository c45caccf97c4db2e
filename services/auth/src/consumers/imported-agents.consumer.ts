import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AgentsImported, ImportedAgentsAdmittedV1, Topics, type AgentsImportedData, type EventEnvelope } from '@switchboard/contracts';
import { claimEvent, EventBus, Mailer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { AUTH_CONNECTION, AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import { MembershipStatus, type MembershipStatusValue } from '../entities';
import { InviteRepository } from '../repositories';
import { normalizeEmail } from '../rules/email';
import { newSecret, sha256Hex } from '../rules/secrets';
import { INBOX_AGENT_ROLE } from '../rules/system-roles';
import { AUTH_SCHEMA, AuthUnitOfWork } from '../services/auth-events.service';
import { MemberEvents } from '../services/member-events.service';

/** Frozen: renaming it would make Kafka replay the integrations topic into a new group (and invite everyone again). */
export const IMPORTED_AGENTS_GROUP = 'auth.imported-agents';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface Row {
  [k: string]: unknown;
}

/**
 * CRM users an integration's config chose (`integrations.agents.imported`) become inbox agents of the event's
 * account, and of no other: each address gets a user (new addresses: no password yet) and a membership in that
 * account with the read-only Inbox Agent role, status pending (it cannot enter the account until the user accepts
 * the invite mailed with it: a CRM admin does not decide for the person). The member snapshot it emits puts them in
 * the inbox's agent list at once, and `auth.imported_agents.admitted` names them by user id so the inbox puts them in
 * the event's space and teams (decision 0063), and names by user id the members the integration no longer imports
 * (`removed`: they leave its teams, decision 0064; their membership stays). A member already in the account keeps their roles (one without an
 * inbox role gets Inbox Agent); a disabled one stays disabled. Once per event (processed_events in the same transaction); a database
 * that cannot serve makes the bus retry the same event (never a dead letter). docs/decisions/0049.
 */
@Injectable()
export class ImportedAgentsConsumer implements OnModuleInit {
  private readonly logger = new Logger('auth');

  constructor(
    @InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(Mailer) private readonly mailer: Mailer,
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    private readonly uow: AuthUnitOfWork,
    private readonly invites: InviteRepository,
    private readonly memberEvents: MemberEvents,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: IMPORTED_AGENTS_GROUP, topics: [Topics.Integrations], types: [AgentsImported.type], handler: async (e) => void (await this.handle(e)) });
  }

  /** Applies one event; returns the user ids it made (or kept) inbox agents, [] for a redelivery or a refused event. */
  async handle(event: EventEnvelope): Promise<string[]> {
    if (event.type !== AgentsImported.type || event.version !== AgentsImported.version) return [];
    const parsed = AgentsImported.schema.safeParse(event.data);
    if (!parsed.success) {
      this.logger.error(`ignored malformed ${event.type} ${event.id}: ${parsed.error.message}`);
      return [];
    }
    const d = parsed.data;
    // the tenant: the envelope's account and the data's must be the same, and it must be an account auth knows
    if (!/^\d+$/.test(d.accountId) || (event.accountId !== null && event.accountId !== undefined && String(event.accountId) !== d.accountId)) {
      this.logger.error(`ignored ${event.type} ${event.id}: its account does not match its envelope`);
      return [];
    }
    return this.uow.run(async (m, emit) => {
      if (!(await claimEvent(m, AUTH_SCHEMA, IMPORTED_AGENTS_GROUP, event.id))) return [];
      const [account] = (await m.query(`SELECT id::text, name, status FROM auth.account WHERE id = $1`, [d.accountId])) as Row[];
      if (!account || account.status === 'delete') {
        this.logger.warn(`ignored ${event.type} ${event.id}: account ${d.accountId} is unknown or deleted`);
        return [];
      }
      const [role] = (await m.query(`SELECT id::text FROM auth.role WHERE account_id IS NULL AND name = $1 AND role_type = 'inbox' AND NOT is_deleted`, [INBOX_AGENT_ROLE])) as Row[];
      if (!role) throw new Error('the Inbox Agent system role is missing');
      const touched: string[] = [];
      const placed: Array<{ userId: string; profiles: Array<{ id: string; name: string }> }> = [];
      const mails: Array<{ to: string; link: string }> = [];
      for (const a of dedupe(d.agents)) {
        const userId = await this.user(m, a);
        const outcome = await this.membership(m, userId, d.accountId, String(role.id));
        if (outcome === 'skipped') continue;
        touched.push(userId);
        placed.push({ userId, profiles: a.profiles });
        if (outcome === 'added') mails.push({ to: a.email, link: await this.invite(m, d, a, String(role.id)) });
      }
      await this.memberEvents.changed(m, emit, d.accountId, touched);
      // CRM users the integration no longer imports: members of this account only, found by address, nothing created;
      // their membership stays (the admin's decision, 0049), the inbox takes them out of the integration's teams (0064)
      const gone = [...new Set((d.removed ?? []).map((r) => normalizeEmail(r.email)).filter((e) => EMAIL.test(e)))];
      const removed = gone.length
        ? ((await m.query(`SELECT u.id::text FROM auth.app_user u JOIN auth.membership ms ON ms.user_id = u.id AND ms.account_id = $1 WHERE u.email = ANY($2) ORDER BY u.id`, [d.accountId, gone])) as Row[])
            .map((r) => String(r.id))
            .filter((u) => !touched.includes(u))
        : [];
      // the inbox puts them in the event's space and teams, by user id (decision 0063)
      if (placed.length || removed.length) {
        emit(
          ImportedAgentsAdmittedV1,
          { accountId: d.accountId, integrationKey: d.integrationKey, type: d.type, sourceEventId: event.id, spaceName: d.spaceName, importTeams: d.importTeams, agents: placed, ...(removed.length ? { removed } : {}) },
          d.accountId,
        );
      }
      // mailed in the transaction: a mail that cannot be sent rolls the import back, to be tried again as a whole
      for (const mail of mails) await this.mailer.send(inviteMail(mail.to, mail.link, String(account.name), d.type, this.options.inviteTtlSeconds));
      return touched;
    });
  }

  /** The user with this address; a new one has no password (it is set through the invite). */
  private async user(m: EntityManager, a: Agent): Promise<string> {
    const now = this.clock.now();
    await m.query(
      `INSERT INTO auth.app_user (email, password_hash, first_name, last_name, preferences, super_admin, active, created_at, updated_at)
       VALUES ($1, '', $2, $3, '{}', false, true, $4, $4) ON CONFLICT (email) DO NOTHING`,
      [a.email, (a.firstName ?? '').slice(0, 255), (a.lastName ?? '').slice(0, 255), now],
    );
    const [u] = (await m.query(`SELECT id::text FROM auth.app_user WHERE email = $1`, [a.email])) as Row[];
    return String(u.id);
  }

  private async membership(m: EntityManager, userId: string, accountId: string, roleId: string): Promise<'added' | 'kept' | 'skipped'> {
    const [ms] = (await m.query(`SELECT status, inbox_role_id::text FROM auth.membership WHERE user_id = $1 AND account_id = $2 FOR UPDATE`, [userId, accountId])) as Row[];
    if (!ms) {
      await m.query(
        `INSERT INTO auth.membership (user_id, account_id, platform_role_id, inbox_role_id, status, created_at) VALUES ($1, $2, NULL, $3, $4, $5)`,
        [userId, accountId, roleId, MembershipStatus.Pending, this.clock.now()],
      );
      return 'added';
    }
    const status = Number(ms.status) as MembershipStatusValue;
    if (status === MembershipStatus.Disabled) return 'skipped';
    if (!ms.inbox_role_id) {
      const next = status === MembershipStatus.NoRole ? MembershipStatus.Active : status;
      await m.query(`UPDATE auth.membership SET inbox_role_id = $3, status = $4 WHERE user_id = $1 AND account_id = $2`, [userId, accountId, roleId, next]);
    }
    return 'kept';
  }

  /** A pending invite with the Inbox Agent role (replacing an older pending one to the address); answers its link. */
  private async invite(m: EntityManager, d: AgentsImportedData, a: Agent, roleId: string): Promise<string> {
    const token = newSecret();
    const now = this.clock.now();
    const invite = await this.invites.insertReplacingPending(
      {
        accountId: d.accountId,
        email: a.email,
        firstName: (a.firstName ?? '').slice(0, 255),
        lastName: (a.lastName ?? '').slice(0, 255),
        platformRoleId: null,
        inboxRoleId: roleId,
        tokenHash: sha256Hex(token),
        invitedBy: null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.options.inviteTtlSeconds * 1000),
      },
      m,
    );
    return `${this.options.appUrl}/team-member-invite/${d.accountId}/${invite.id}/${token}`;
  }
}

interface Agent {
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** Every CRM profile the address is listed with (a team each, when the import makes teams). */
  profiles: Array<{ id: string; name: string }>;
}

/** Valid addresses only, lower-cased, once each (a CRM may list a user twice across profiles: their profiles join). */
function dedupe(agents: AgentsImportedData['agents']): Agent[] {
  const seen = new Map<string, Agent>();
  for (const a of agents) {
    const email = normalizeEmail(a.email);
    if (!EMAIL.test(email) || email.length > 254) continue;
    const agent = seen.get(email) ?? { email, firstName: a.firstName, lastName: a.lastName, profiles: [] };
    seen.set(email, agent);
    const name = (a.profileName ?? '').trim() || a.profile;
    if (a.profile !== null && name && !agent.profiles.some((p) => p.id === a.profile)) agent.profiles.push({ id: a.profile, name: name.slice(0, 255) });
  }
  return [...seen.values()];
}

function inviteMail(to: string, link: string, accountName: string, vendor: string, ttlSeconds: number) {
  const days = Math.round(ttlSeconds / 86400);
  return {
    to,
    subject: `You are invited to answer conversations for ${accountName} on Switchboard`,
    text: [
      `${accountName} connected its ${vendor} account to Switchboard and chose you as an inbox agent.`,
      '',
      `Open this link to accept: ${link}`,
      '',
      `The link works once and expires in ${days} day${days === 1 ? '' : 's'}. Until you accept, you cannot sign in to ${accountName}.`,
    ].join('\n'),
  };
}
