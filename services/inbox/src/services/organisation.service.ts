import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';
import {
  CONVERSATION_TAG_NAME_MAX,
  inboxRoom,
  InboxSpaceAccessChangedV1,
  Permission,
  type InboxAgent,
  type InboxCannedTemplate,
  type InboxConversationGoal,
  type InboxConversationTag,
  type InboxIncomingRouting,
  type InboxSenderProfile,
  type InboxSpace,
  type InboxTeam,
  type SwitchSpaceAnswer,
} from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import { iri, KEY_RULE, keyFrom, parse, refId, rowsOf } from '../http/input';
import { INBOX_CONNECTION } from '../inbox.options';
import { actorOf, InboxAccess, normaliseOverrides, spaceAccessOf, type Actor } from './access';
import { InboxUnitOfWork } from './send.service';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field
type Q = Record<string, unknown>;

const text = (max: number) => z.string().trim().max(max);
const name = z.string().trim().min(1, 'required').max(255);
const ref = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const id = refId(v);
  if (!id) ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'an id or IRI' });
  return id ?? '';
});
const refs = z.array(ref).max(2000);
const key = z.string().trim().regex(KEY_RULE, 'invalidKey');
const senders = z.array(z.string().trim().min(1).max(64)).max(500);

const SpaceInput = z.object({
  name,
  key: key.optional(),
  description: text(2000).optional(),
  settings: z.object({ configured: z.boolean().optional(), configuredRequired: z.boolean().optional() }).strict().optional(),
  teams: refs.optional(),
}).strict();
const TeamInput = z.object({ name, key: key.optional(), description: text(2000).optional(), space: ref, agents: refs.optional(), managers: refs.optional() }).strict();
const TagInput = z.object({ name: z.string().trim().min(1, 'required').max(CONVERSATION_TAG_NAME_MAX, `at most ${CONVERSATION_TAG_NAME_MAX} characters`), space: ref, key: key.optional() }).strict();
const ProfileInput = z.object({ name, stream: z.union([z.string(), z.number()]), senders: senders.optional(), space: ref }).strict();
const CannedInput = z.object({ name, templateKey: key, text: z.string().min(1, 'required').max(4096), space: ref }).strict();
const GoalInput = z.object({ name, goalKey: key.optional(), text: z.string().min(1, 'required').max(4096), teams: refs.optional(), space: ref.optional() }).strict();
const RoutingInput = z.object({ name, stream: z.union([z.string(), z.number()]), team: ref.nullable().optional(), senders: senders.optional(), space: ref }).strict();
const SpaceSettingsInput = z
  .object({
    settings: z.object({ configured: z.boolean().optional(), configuredRequired: z.boolean().optional() }).strict().optional(),
    /** user id -> { PERMISSION: boolean }; `[]` or `{}` clears a user's overrides. */
    update_permissions: z.record(z.string().regex(/^\d+$/), z.union([z.record(z.boolean()), z.array(z.never()).max(0)])).optional(),
  })
  .strict();

/** A partial update: every field optional (the console sends what changed). */
const partial = <T extends z.ZodRawShape>(s: z.ZodObject<T>) => s.partial().strict();

function spaceFilter(q: Q): string | null {
  if (q.space === undefined || q.space === '') return null;
  const id = refId(String(q.space));
  if (!id) throw AppError.validation([{ propertyPath: 'space', message: 'an id or IRI' }]);
  return id;
}

function uniqueViolation(e: unknown, what: string, field: string): never {
  if ((e as { code?: string }).code === '23505') throw AppError.validation([{ propertyPath: field, message: 'sameKey', code: 'sameKey' }], `${what}: ${field} already used`);
  throw e;
}

/** `base`, or `base-2`, `base-3`, ... : the first key no row of the scope (an account's spaces, a space's teams) has yet. */
export async function freeKey(m: Pick<EntityManager, 'query'>, table: string, column: string, scopeColumn: string, scopeId: string, base: string): Promise<string> {
  const taken = new Set(
    ((await m.query(`SELECT ${column} AS k FROM inbox.${table} WHERE ${scopeColumn} = $1 AND ${column} LIKE $2`, [scopeId, `${base.replace(/[%_\\]/g, '\\$&')}%`])) as Row[]).map((r) => r.k),
  );
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/**
 * The organisation (spec 3): spaces, teams, agents, conversation tags, sender profiles, canned templates, goals and
 * incoming routing. Every query carries the caller's account; agents see only the spaces they are a team member of
 * (admins: all); writes inside a space need the caller to be in it.
 */
@Injectable()
export class OrganisationService {
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    private readonly access: InboxAccess,
    private readonly clock: Clock,
    private readonly uow: InboxUnitOfWork,
  ) {}

  private now(): Date {
    return this.clock.now();
  }

  /**
   * A change of spaces, team members or space permissions, with the account's new space access snapshot in the same
   * transaction (InboxSpaceAccessChangedV1: the AI routes of the integrations service check it; decision 0050).
   */
  private changeAccess<T>(accountId: string, work: (m: EntityManager) => Promise<T>): Promise<T> {
    return this.uow.run(async (m, emit) => {
      const value = await work(m);
      emit(InboxSpaceAccessChangedV1, await spaceAccessOf(m, accountId), accountId);
      return value;
    });
  }

  /** The space ids a list may show: the visible ones, narrowed to `space` when given (not visible: empty). */
  private async listSpaces(actor: Actor, q: Q): Promise<string[]> {
    const visible = await this.access.visibleSpaceIds(actor);
    const only = spaceFilter(q);
    return only ? visible.filter((s) => s === only) : visible;
  }

  /** A write inside a space: the space must be the caller's (404 another account's, 403 not a member). */
  private async writable(spaceId: string, actor: Actor): Promise<void> {
    await this.access.scope(spaceId, actor);
  }

  // ---- spaces ----

  private async spaceDtos(rows: Row[]): Promise<InboxSpace[]> {
    if (!rows.length) return [];
    const teams = (await this.ds.query(`SELECT id::text, space_id::text FROM inbox.team WHERE space_id = ANY($1::bigint[]) ORDER BY id`, [rows.map((r) => r.id)])) as Row[];
    return rows.map((r) => ({
      id: Number(r.id),
      key: r.key,
      name: r.name,
      description: r.description,
      settings: { configured: r.settings?.configured === true, configuredRequired: r.settings?.configuredRequired !== false },
      teams: teams.filter((t) => t.space_id === r.id).map((t) => iri('teams', t.id)),
    }));
  }

  async listSpaceItems(q: Q): Promise<ListResult<InboxSpace>> {
    const actor = actorOf();
    const lq = parseListQuery(q, { sortable: ['id', 'name'], defaultOrder: { id: 'DESC' }, defaultItemsPerPage: 2000 });
    const ids = await this.listSpaces(actor, {});
    const [field, dir] = Object.entries(lq.order)[0];
    const rows = (await this.ds.query(
      `SELECT id::text, key, name, description, settings FROM inbox.space WHERE account_id = $1 AND id = ANY($2::bigint[]) ORDER BY ${field === 'name' ? 'name' : 'id'} ${dir}, id LIMIT $3 OFFSET $4`,
      [actor.accountId, ids, lq.take, lq.skip],
    )) as Row[];
    return { items: await this.spaceDtos(rows), total: ids.length };
  }

  async getSpace(id: string): Promise<InboxSpace> {
    const actor = actorOf();
    const sid = refId(id);
    if (!sid) throw AppError.notFound('space');
    await this.access.scope(sid, actor);
    const rows = (await this.ds.query(`SELECT id::text, key, name, description, settings FROM inbox.space WHERE id = $1 AND account_id = $2`, [sid, actor.accountId])) as Row[];
    return (await this.spaceDtos(rows))[0];
  }

  async createSpace(body: unknown): Promise<InboxSpace> {
    const actor = actorOf();
    const d = parse(SpaceInput, body);
    const now = this.now();
    let id: string;
    try {
      id = await this.changeAccess(actor.accountId, async (m) => {
        const [row] = (await m.query(
          `INSERT INTO inbox.space (account_id, key, name, description, settings, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id::text`,
          [actor.accountId, d.key ?? (await freeKey(m, 'space', 'key', 'account_id', actor.accountId, keyFrom(d.name))), d.name, d.description ?? '', JSON.stringify({ configured: d.settings?.configured ?? false, configuredRequired: d.settings?.configuredRequired ?? true }), now],
        )) as Row[];
        // conversations that arrived before the account had any space land in its first one
        await m.query(`UPDATE inbox.conversation SET space_id = $1 WHERE account_id = $2 AND space_id IS NULL`, [row.id, actor.accountId]);
        if (d.teams?.length) await m.query(`UPDATE inbox.team SET space_id = $1 WHERE account_id = $2 AND id = ANY($3::bigint[])`, [row.id, actor.accountId, d.teams]);
        return row.id as string;
      });
    } catch (e) {
      uniqueViolation(e, 'space', 'key');
    }
    return this.getSpace(id);
  }

  async updateSpace(id: string, body: unknown): Promise<InboxSpace> {
    const actor = actorOf();
    const d = parse(partial(SpaceInput), body);
    const sid = refId(id) ?? '0';
    await this.access.scope(sid, actor);
    try {
      await this.ds.query(
        `UPDATE inbox.space SET name = COALESCE($3, name), key = COALESCE($4, key), description = COALESCE($5, description),
           settings = settings || COALESCE($6::jsonb, '{}'::jsonb), updated_at = $7 WHERE id = $1 AND account_id = $2`,
        [sid, actor.accountId, d.name ?? null, d.key ?? null, d.description ?? null, d.settings ? JSON.stringify(d.settings) : null, this.now()],
      );
    } catch (e) {
      uniqueViolation(e, 'space', 'key');
    }
    return this.getSpace(sid);
  }

  async removeSpace(id: string): Promise<void> {
    const actor = actorOf();
    const sid = refId(id) ?? '0';
    await this.access.scope(sid, actor);
    await this.changeAccess(actor.accountId, (m) => m.query(`DELETE FROM inbox.space WHERE id = $1 AND account_id = $2`, [sid, actor.accountId]));
  }

  /** PUT /inbox/space/{id}: settings and per-agent update_permissions (INBOX_ADMIN). */
  async configureSpace(id: string, body: unknown): Promise<SwitchSpaceAnswer> {
    const actor = actorOf();
    const d = parse(SpaceSettingsInput, body);
    const sid = refId(id) ?? '0';
    await this.access.scope(sid, actor);
    await this.changeAccess(actor.accountId, async (m) => {
      if (d.settings) await m.query(`UPDATE inbox.space SET settings = settings || $3::jsonb, updated_at = $4 WHERE id = $1 AND account_id = $2`, [sid, actor.accountId, JSON.stringify(d.settings), this.now()]);
      for (const [userId, perms] of Object.entries(d.update_permissions ?? {})) {
        await m.query(
          `INSERT INTO inbox.space_permission (space_id, account_id, user_id, permissions) VALUES ($1, $2, $3, $4)
           ON CONFLICT (space_id, user_id) DO UPDATE SET permissions = EXCLUDED.permissions`,
          [sid, actor.accountId, userId, JSON.stringify(normaliseOverrides(perms))],
        );
      }
    });
    return this.switchSpace({ space: sid });
  }

  /** POST /inbox/space: the current space's working set (spec 3, switching space). */
  async switchSpace(body: unknown): Promise<SwitchSpaceAnswer> {
    const actor = actorOf();
    const d = parse(z.object({ space: ref }).passthrough(), body);
    const scope = await this.access.scope(d.space, actor);
    const sid = scope.spaceId;
    const [space, teams, tags, profiles, canned, goals] = await Promise.all([
      this.getSpace(sid),
      this.teamRows(`t.space_id = $2`, [actor.accountId, sid]),
      this.ds.query(`SELECT id::text, key, name, space_id::text FROM inbox.conversation_tag WHERE account_id = $1 AND space_id = $2 ORDER BY name`, [actor.accountId, sid]),
      this.profileRows(`p.space_id = $2`, [actor.accountId, sid]),
      this.ds.query(`SELECT id::text, template_key, name, text, space_id::text FROM inbox.canned_template WHERE account_id = $1 AND space_id = $2 ORDER BY name`, [actor.accountId, sid]),
      this.goalRows(`g.space_id = $2`, [actor.accountId, sid]),
    ]);
    // agents see their own teams (spec 6); admins and team viewers every team of the space
    const shownTeams = scope.seesAll ? teams : teams.filter((t) => scope.teamIds.includes(String(t.id)));
    const agents = await this.agentsOf(actor.accountId, teams.map((t) => String(t.id)));
    return {
      space,
      teams: shownTeams,
      agents,
      sender_profiles: profiles,
      conversation_tags: (tags as Row[]).map(tagDto),
      canned_templates: (canned as Row[]).map(cannedDto),
      conversation_goals: goals,
      room: inboxRoom('space', sid),
      update_permissions: scope.overrides,
    };
  }

  // ---- teams ----

  private async teamRows(where: string, params: unknown[]): Promise<InboxTeam[]> {
    const rows = (await this.ds.query(
      `SELECT t.id::text, t.key, t.name, t.description, t.space_id::text,
              COALESCE(array_agg(ta.user_id::text ORDER BY ta.user_id) FILTER (WHERE ta.user_id IS NOT NULL), '{}') AS agents,
              COALESCE(array_agg(ta.user_id::text ORDER BY ta.user_id) FILTER (WHERE ta.manager), '{}') AS managers
       FROM inbox.team t LEFT JOIN inbox.team_agent ta ON ta.team_id = t.id
       WHERE t.account_id = $1 AND ${where} GROUP BY t.id ORDER BY t.id DESC`,
      params,
    )) as Row[];
    return rows.map((r) => ({
      id: Number(r.id),
      key: r.key,
      name: r.name,
      description: r.description,
      agents: (r.agents as string[]).map((a) => iri('agents', a)),
      space: iri('spaces', r.space_id),
      managers: (r.managers as string[]).map(Number),
    }));
  }

  async listTeams(q: Q, only: 'all' | 'agent' | 'manager' = 'all'): Promise<ListResult<InboxTeam>> {
    const actor = actorOf();
    const spaces = await this.listSpaces(actor, q);
    let teams = await this.teamRows(`t.space_id = ANY($2::bigint[])`, [actor.accountId, spaces]);
    const mine = await this.access.teamIds(actor);
    const uid = actor.userId ? Number(actor.userId) : -1;
    if (only === 'agent') teams = teams.filter((t) => mine.includes(String(t.id)));
    else if (only === 'manager') teams = teams.filter((t) => actor.admin || t.managers.includes(uid));
    else if (!actor.admin && !actor.permissions.has(Permission.InboxTeamView)) teams = teams.filter((t) => mine.includes(String(t.id)));
    const lq = parseListQuery(q, { sortable: ['id'], defaultItemsPerPage: 2000 });
    if (lq.order.id === 'ASC') teams.reverse();
    return { items: teams.slice(lq.skip, lq.skip + lq.take), total: teams.length };
  }

  async getTeam(id: string): Promise<InboxTeam> {
    const actor = actorOf();
    const [t] = await this.teamRows(`t.id = $2`, [actor.accountId, refId(id) ?? '0']);
    if (!t) throw AppError.notFound('team');
    const scope = await this.access.scope(refId(t.space) as string, actor);
    if (!scope.seesAll && !scope.teamIds.includes(String(t.id))) throw AppError.notFound('team');
    return t;
  }

  private async assertUsers(m: EntityManager, accountId: string, users: string[]): Promise<void> {
    if (!users.length) return;
    const found = ((await m.query(`SELECT user_id::text FROM inbox.agent WHERE account_id = $1 AND user_id = ANY($2::bigint[]) AND NOT removed`, [accountId, users])) as Row[]).map((r) => r.user_id);
    const missing = users.filter((u) => !found.includes(u));
    if (missing.length) throw AppError.validation([{ propertyPath: 'agents', message: 'invalid', code: 'invalid' }], `invalid: no such agent ${missing.join(', ')}`);
  }

  private async setTeamAgents(m: EntityManager, accountId: string, teamId: string, agents: string[] | undefined, managers: string[] | undefined): Promise<void> {
    if (agents === undefined && managers === undefined) return;
    const current = ((await m.query(`SELECT user_id::text, manager FROM inbox.team_agent WHERE team_id = $1`, [teamId])) as Row[]);
    const members = agents ?? current.map((r) => r.user_id as string);
    const mgrs = managers ?? current.filter((r) => r.manager).map((r) => r.user_id as string);
    const all = [...new Set([...members, ...mgrs])];
    await this.assertUsers(m, accountId, all);
    await m.query(`DELETE FROM inbox.team_agent WHERE team_id = $1`, [teamId]);
    // an agent the admin took out of the team is no longer an import's to take out (decision 0064)
    await m.query(`DELETE FROM inbox.imported_placement WHERE team_id = $1 AND NOT (user_id = ANY($2::bigint[]))`, [teamId, all]);
    if (all.length) {
      await m.query(
        `INSERT INTO inbox.team_agent (team_id, account_id, user_id, manager) SELECT $1, $2, u, u = ANY($4::bigint[]) FROM unnest($3::bigint[]) u`,
        [teamId, accountId, all, mgrs],
      );
    }
  }

  async createTeam(body: unknown): Promise<InboxTeam> {
    const actor = actorOf();
    const d = parse(TeamInput, body);
    await this.writable(d.space, actor);
    let id = '';
    try {
      await this.changeAccess(actor.accountId, async (m) => {
        const k = d.key ?? (await freeKey(m, 'team', 'key', 'space_id', d.space, keyFrom(d.name)));
        const [row] = (await m.query(
          `INSERT INTO inbox.team (account_id, space_id, key, name, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id::text`,
          [actor.accountId, d.space, k, d.name, d.description ?? '', this.now()],
        )) as Row[];
        id = row.id;
        await this.setTeamAgents(m, actor.accountId, id, d.agents ?? [], d.managers ?? []);
      });
    } catch (e) {
      uniqueViolation(e, 'team', 'key');
    }
    return this.getTeam(id);
  }

  async updateTeam(id: string, body: unknown): Promise<InboxTeam> {
    const actor = actorOf();
    const d = parse(partial(TeamInput), body);
    const team = await this.getTeam(id);
    if (d.space) await this.writable(d.space, actor);
    try {
      await this.changeAccess(actor.accountId, async (m) => {
        await m.query(
          `UPDATE inbox.team SET name = COALESCE($3, name), key = COALESCE($4, key), description = COALESCE($5, description), space_id = COALESCE($6, space_id), updated_at = $7
           WHERE id = $1 AND account_id = $2`,
          [team.id, actor.accountId, d.name ?? null, d.key ?? null, d.description ?? null, d.space ?? null, this.now()],
        );
        await this.setTeamAgents(m, actor.accountId, String(team.id), d.agents, d.managers);
      });
    } catch (e) {
      uniqueViolation(e, 'team', 'key');
    }
    return this.getTeam(String(team.id));
  }

  async removeTeam(id: string): Promise<void> {
    const actor = actorOf();
    const team = await this.getTeam(id);
    await this.changeAccess(actor.accountId, (m) => m.query(`DELETE FROM inbox.team WHERE id = $1 AND account_id = $2`, [team.id, actor.accountId]));
  }

  async teamAgents(id: string): Promise<ListResult<InboxAgent>> {
    const actor = actorOf();
    const team = await this.getTeam(id);
    const items = (await this.agentsOf(actor.accountId, [String(team.id)])).filter((a) => a.teams.includes(team.id));
    return { items, total: items.length };
  }

  // ---- agents (read model) ----

  private async agentsOf(accountId: string, teamIds: string[] | null): Promise<InboxAgent[]> {
    const rows = (await this.ds.query(
      `SELECT a.user_id::text, a.first_name, a.last_name, a.email, a.inbox_role_name, a.platform_role_name,
              COALESCE(array_agg(ta.team_id::text ORDER BY ta.team_id) FILTER (WHERE ta.team_id IS NOT NULL), '{}') AS teams
       FROM inbox.agent a LEFT JOIN inbox.team_agent ta ON ta.account_id = a.account_id AND ta.user_id = a.user_id
       WHERE a.account_id = $1 AND NOT a.removed
         AND ($2::bigint[] IS NULL AND a.inbox_role_id IS NOT NULL OR a.user_id IN (SELECT user_id FROM inbox.team_agent WHERE team_id = ANY($2::bigint[])))
       GROUP BY a.account_id, a.user_id ORDER BY a.first_name, a.last_name, a.user_id`,
      [accountId, teamIds],
    )) as Row[];
    return rows.map((r) => ({
      id: Number(r.user_id),
      firstname: r.first_name,
      lastname: r.last_name,
      email: r.email,
      userRoles: [r.inbox_role_name, r.platform_role_name].filter((x): x is string => !!x),
      teams: (r.teams as string[]).map(Number),
    }));
  }

  /** Every agent of the account with an inbox role (admins and managers), or the agents of the caller's managed teams. */
  async managerAgents(q: Q): Promise<ListResult<InboxAgent>> {
    const actor = actorOf();
    let items: InboxAgent[];
    if (actor.admin || actor.permissions.has(Permission.InboxTeamManagement)) items = await this.agentsOf(actor.accountId, null);
    else {
      const managed = (await this.listTeams(q, 'manager')).items.map((t) => String(t.id));
      items = managed.length ? await this.agentsOf(actor.accountId, managed) : [];
    }
    const lq = parseListQuery(q, { sortable: ['id'], defaultItemsPerPage: 2000 });
    return { items: items.slice(lq.skip, lq.skip + lq.take), total: items.length };
  }

  // ---- conversation tags ----

  async listTags(q: Q): Promise<ListResult<InboxConversationTag>> {
    const actor = actorOf();
    const spaces = await this.listSpaces(actor, q);
    const lq = parseListQuery(q, { sortable: ['id', 'name'], defaultItemsPerPage: 2000 });
    const [field, dir] = Object.entries(lq.order)[0];
    const rows = (await this.ds.query(
      `SELECT id::text, key, name, space_id::text, count(*) OVER () AS total FROM inbox.conversation_tag WHERE account_id = $1 AND space_id = ANY($2::bigint[])
       ORDER BY ${field === 'name' ? 'name' : 'id'} ${dir}, id LIMIT $3 OFFSET $4`,
      [actor.accountId, spaces, lq.take, lq.skip],
    )) as Row[];
    return { items: rows.map(tagDto), total: rows.length ? Number(rows[0].total) : 0 };
  }

  private async tagRow(id: string): Promise<Row> {
    const actor = actorOf();
    const [row] = (await this.ds.query(`SELECT id::text, key, name, space_id::text FROM inbox.conversation_tag WHERE id = $1 AND account_id = $2`, [refId(id) ?? '0', actor.accountId])) as Row[];
    if (!row) throw AppError.notFound('conversation tag');
    await this.access.scope(row.space_id, actor);
    return row;
  }

  async getTag(id: string): Promise<InboxConversationTag> {
    return tagDto(await this.tagRow(id));
  }

  async createTag(body: unknown): Promise<InboxConversationTag> {
    const actor = actorOf();
    const d = parse(TagInput, body);
    await this.writable(d.space, actor);
    try {
      const [row] = (await this.ds.query(
        `INSERT INTO inbox.conversation_tag (account_id, space_id, key, name, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id::text, key, name, space_id::text`,
        [actor.accountId, d.space, d.key ?? (await freeKey(this.ds.manager, 'conversation_tag', 'key', 'space_id', d.space, keyFrom(d.name))), d.name, this.now()],
      )) as Row[];
      return tagDto(row);
    } catch (e) {
      uniqueViolation(e, 'conversation tag', 'name');
    }
  }

  async updateTag(id: string, body: unknown): Promise<InboxConversationTag> {
    const d = parse(partial(TagInput).omit({ space: true }), body);
    const row = await this.tagRow(id);
    try {
      const [out] = rowsOf(await this.ds.query(`UPDATE inbox.conversation_tag SET name = COALESCE($2, name), key = COALESCE($3, key) WHERE id = $1 RETURNING id::text, key, name, space_id::text`, [row.id, d.name ?? null, d.key ?? null])) as Row[];
      return tagDto(out);
    } catch (e) {
      uniqueViolation(e, 'conversation tag', 'name');
    }
  }

  async removeTag(id: string): Promise<void> {
    const row = await this.tagRow(id);
    await this.ds.transaction(async (m) => {
      await m.query(`UPDATE inbox.conversation SET tag_ids = array_remove(tag_ids, $1::bigint) WHERE account_id = $2 AND space_id = $3 AND $1::bigint = ANY(tag_ids)`, [row.id, actorOf().accountId, row.space_id]);
      await m.query(`DELETE FROM inbox.conversation_tag WHERE id = $1`, [row.id]);
    });
  }

  // ---- sender profiles ----

  private async profileRows(where: string, params: unknown[]): Promise<InboxSenderProfile[]> {
    const rows = (await this.ds.query(
      `SELECT p.id::text, p.name, p.senders, p.space_id::text, s.stream_uid::text FROM inbox.sender_profile p LEFT JOIN inbox.stream s ON s.stream_id = p.stream_id
       WHERE p.account_id = $1 AND ${where} ORDER BY p.id DESC`,
      params,
    )) as Row[];
    return rows.map((r) => ({ id: Number(r.id), name: r.name, stream: r.stream_uid ?? '', senders: r.senders, space: iri('spaces', r.space_id) }));
  }

  /** A stream of the caller's account, by uuid, id or IRI. */
  private async streamOf(accountId: string, v: string | number, field = 'stream'): Promise<Row> {
    const s = String(v).trim();
    const byUid = /^[0-9a-f-]{36}$/i.test(s);
    const id = byUid ? null : refId(s);
    const [row] = (await this.ds.query(
      `SELECT stream_id::text, stream_uid::text, stream_type FROM inbox.stream WHERE account_id = $1 AND NOT deleted AND ((${byUid ? 'stream_uid = $2::uuid' : 'stream_id = $2::bigint'}))`,
      [accountId, byUid ? s : (id ?? '0')],
    )) as Row[];
    if (!row) throw AppError.validation([{ propertyPath: field, message: 'no such stream' }]);
    return row;
  }

  async listProfiles(q: Q): Promise<ListResult<InboxSenderProfile>> {
    const actor = actorOf();
    const spaces = await this.listSpaces(actor, q);
    const items = await this.profileRows(`p.space_id = ANY($2::bigint[])`, [actor.accountId, spaces]);
    const lq = parseListQuery(q, { sortable: ['id'], defaultItemsPerPage: 2000 });
    if (lq.order.id === 'ASC') items.reverse();
    return { items: items.slice(lq.skip, lq.skip + lq.take), total: items.length };
  }

  async getProfile(id: string): Promise<InboxSenderProfile> {
    const actor = actorOf();
    const [p] = await this.profileRows(`p.id = $2`, [actor.accountId, refId(id) ?? '0']);
    if (!p) throw AppError.notFound('sender profile');
    await this.access.scope(refId(p.space) as string, actor);
    return p;
  }

  async createProfile(body: unknown): Promise<InboxSenderProfile> {
    const actor = actorOf();
    const d = parse(ProfileInput, body);
    await this.writable(d.space, actor);
    const stream = await this.streamOf(actor.accountId, d.stream);
    const [row] = (await this.ds.query(
      `INSERT INTO inbox.sender_profile (account_id, space_id, name, stream_id, senders, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id::text`,
      [actor.accountId, d.space, d.name, stream.stream_id, d.senders ?? [], this.now()],
    )) as Row[];
    return this.getProfile(row.id);
  }

  async updateProfile(id: string, body: unknown): Promise<InboxSenderProfile> {
    const actor = actorOf();
    const d = parse(partial(ProfileInput), body);
    const p = await this.getProfile(id);
    if (d.space) await this.writable(d.space, actor);
    const stream = d.stream !== undefined ? await this.streamOf(actor.accountId, d.stream) : null;
    await this.ds.query(
      `UPDATE inbox.sender_profile SET name = COALESCE($3, name), stream_id = COALESCE($4, stream_id), senders = COALESCE($5, senders), space_id = COALESCE($6, space_id), updated_at = $7
       WHERE id = $1 AND account_id = $2`,
      [p.id, actor.accountId, d.name ?? null, stream?.stream_id ?? null, d.senders ?? null, d.space ?? null, this.now()],
    );
    return this.getProfile(String(p.id));
  }

  async removeProfile(id: string): Promise<void> {
    const p = await this.getProfile(id);
    await this.ds.query(`DELETE FROM inbox.sender_profile WHERE id = $1 AND account_id = $2`, [p.id, actorOf().accountId]);
  }

  // ---- canned templates ----

  async listCanned(q: Q): Promise<ListResult<InboxCannedTemplate>> {
    const actor = actorOf();
    const spaces = await this.listSpaces(actor, q);
    const lq = parseListQuery(q, { sortable: ['id', 'name'], defaultItemsPerPage: 2000 });
    const [field, dir] = Object.entries(lq.order)[0];
    const rows = (await this.ds.query(
      `SELECT id::text, template_key, name, text, space_id::text, count(*) OVER () AS total FROM inbox.canned_template WHERE account_id = $1 AND space_id = ANY($2::bigint[])
       ORDER BY ${field === 'name' ? 'name' : 'id'} ${dir}, id LIMIT $3 OFFSET $4`,
      [actor.accountId, spaces, lq.take, lq.skip],
    )) as Row[];
    return { items: rows.map(cannedDto), total: rows.length ? Number(rows[0].total) : 0 };
  }

  private async cannedRow(id: string): Promise<Row> {
    const actor = actorOf();
    const [row] = (await this.ds.query(`SELECT id::text, template_key, name, text, space_id::text FROM inbox.canned_template WHERE id = $1 AND account_id = $2`, [refId(id) ?? '0', actor.accountId])) as Row[];
    if (!row) throw AppError.notFound('canned template');
    await this.access.scope(row.space_id, actor);
    return row;
  }

  async getCanned(id: string): Promise<InboxCannedTemplate> {
    return cannedDto(await this.cannedRow(id));
  }

  async createCanned(body: unknown): Promise<InboxCannedTemplate> {
    const actor = actorOf();
    const d = parse(CannedInput, body);
    await this.writable(d.space, actor);
    try {
      const [row] = (await this.ds.query(
        `INSERT INTO inbox.canned_template (account_id, space_id, template_key, name, text, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
         RETURNING id::text, template_key, name, text, space_id::text`,
        [actor.accountId, d.space, d.templateKey, d.name, d.text, this.now()],
      )) as Row[];
      return cannedDto(row);
    } catch (e) {
      uniqueViolation(e, 'canned template', 'templateKey');
    }
  }

  async updateCanned(id: string, body: unknown): Promise<InboxCannedTemplate> {
    const d = parse(partial(CannedInput).omit({ space: true }), body);
    const row = await this.cannedRow(id);
    try {
      const [out] = rowsOf(await this.ds.query(
        `UPDATE inbox.canned_template SET template_key = COALESCE($2, template_key), name = COALESCE($3, name), text = COALESCE($4, text), updated_at = $5 WHERE id = $1
         RETURNING id::text, template_key, name, text, space_id::text`,
        [row.id, d.templateKey ?? null, d.name ?? null, d.text ?? null, this.now()],
      )) as Row[];
      return cannedDto(out);
    } catch (e) {
      uniqueViolation(e, 'canned template', 'templateKey');
    }
  }

  async removeCanned(id: string): Promise<void> {
    const row = await this.cannedRow(id);
    await this.ds.query(`DELETE FROM inbox.canned_template WHERE id = $1`, [row.id]);
  }

  // ---- conversation goals ----

  private async goalRows(where: string, params: unknown[]): Promise<InboxConversationGoal[]> {
    const rows = (await this.ds.query(
      `SELECT g.id::text, g.goal_key, g.name, g.text, g.space_id::text,
              COALESCE(array_agg(gt.team_id::text ORDER BY gt.team_id) FILTER (WHERE gt.team_id IS NOT NULL), '{}') AS teams
       FROM inbox.conversation_goal g LEFT JOIN inbox.conversation_goal_team gt ON gt.goal_id = g.id
       WHERE g.account_id = $1 AND ${where} GROUP BY g.id ORDER BY g.id DESC`,
      params,
    )) as Row[];
    return rows.map((r) => ({ id: Number(r.id), goalKey: r.goal_key, name: r.name, text: r.text, teams: (r.teams as string[]).map((t) => iri('teams', t)), space: iri('spaces', r.space_id) }));
  }

  async listGoals(q: Q): Promise<ListResult<InboxConversationGoal>> {
    const actor = actorOf();
    const spaces = await this.listSpaces(actor, q);
    let items = await this.goalRows(`g.space_id = ANY($2::bigint[])`, [actor.accountId, spaces]);
    if (q.team !== undefined) {
      const team = refId(String(q.team));
      items = items.filter((g) => g.teams.includes(iri('teams', team ?? '0')));
    }
    const lq = parseListQuery({ ...q, team: undefined }, { sortable: ['id'], defaultItemsPerPage: 2000 });
    if (lq.order.id === 'ASC') items.reverse();
    return { items: items.slice(lq.skip, lq.skip + lq.take), total: items.length };
  }

  async getGoal(id: string): Promise<InboxConversationGoal> {
    const actor = actorOf();
    const [g] = await this.goalRows(`g.id = $2`, [actor.accountId, refId(id) ?? '0']);
    if (!g) throw AppError.notFound('conversation goal');
    await this.access.scope(refId(g.space) as string, actor);
    return g;
  }

  private async goalTeams(m: EntityManager, accountId: string, spaceId: string, goalId: string, teams: string[] | undefined): Promise<void> {
    if (teams === undefined) return;
    const found = ((await m.query(`SELECT id::text FROM inbox.team WHERE account_id = $1 AND space_id = $2 AND id = ANY($3::bigint[])`, [accountId, spaceId, teams])) as Row[]).map((r) => r.id);
    if (found.length !== new Set(teams).size) throw AppError.validation([{ propertyPath: 'teams', message: 'invalid', code: 'invalid' }], 'invalid: a team of another space');
    await m.query(`DELETE FROM inbox.conversation_goal_team WHERE goal_id = $1`, [goalId]);
    if (found.length) await m.query(`INSERT INTO inbox.conversation_goal_team (goal_id, team_id, account_id) SELECT $1, t, $2 FROM unnest($3::bigint[]) t`, [goalId, accountId, found]);
  }

  async createGoal(body: unknown): Promise<InboxConversationGoal> {
    const actor = actorOf();
    const d = parse(GoalInput, body);
    let space = d.space;
    if (!space && d.teams?.length) {
      const [t] = (await this.ds.query(`SELECT space_id::text FROM inbox.team WHERE id = $1 AND account_id = $2`, [d.teams[0], actor.accountId])) as Row[];
      space = t?.space_id;
    }
    if (!space) throw AppError.validation([{ propertyPath: 'space', message: 'missing space' }], 'missing space');
    await this.writable(space, actor);
    let id = '';
    try {
      await this.ds.transaction(async (m) => {
        const [row] = (await m.query(
          `INSERT INTO inbox.conversation_goal (account_id, space_id, goal_key, name, text, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id::text`,
          [actor.accountId, space, d.goalKey ?? (await freeKey(m, 'conversation_goal', 'goal_key', 'space_id', space as string, keyFrom(d.name))), d.name, d.text, this.now()],
        )) as Row[];
        id = row.id;
        await this.goalTeams(m, actor.accountId, space as string, id, d.teams ?? []);
      });
    } catch (e) {
      uniqueViolation(e, 'conversation goal', 'goalKey');
    }
    return this.getGoal(id);
  }

  async updateGoal(id: string, body: unknown): Promise<InboxConversationGoal> {
    const actor = actorOf();
    const d = parse(partial(GoalInput).omit({ space: true }), body);
    const g = await this.getGoal(id);
    try {
      await this.ds.transaction(async (m) => {
        await m.query(`UPDATE inbox.conversation_goal SET goal_key = COALESCE($2, goal_key), name = COALESCE($3, name), text = COALESCE($4, text), updated_at = $5 WHERE id = $1`, [
          g.id,
          d.goalKey ?? null,
          d.name ?? null,
          d.text ?? null,
          this.now(),
        ]);
        await this.goalTeams(m, actor.accountId, refId(g.space) as string, String(g.id), d.teams);
      });
    } catch (e) {
      uniqueViolation(e, 'conversation goal', 'goalKey');
    }
    return this.getGoal(String(g.id));
  }

  async removeGoal(id: string): Promise<void> {
    const g = await this.getGoal(id);
    await this.ds.query(`DELETE FROM inbox.conversation_goal WHERE id = $1`, [g.id]);
  }

  // ---- incoming routing ----

  private async routingRows(where: string, params: unknown[]): Promise<InboxIncomingRouting[]> {
    const rows = (await this.ds.query(
      `SELECT r.id::text, r.name, r.team_id::text, r.senders, r.space_id::text, s.stream_uid::text FROM inbox.incoming_routing r LEFT JOIN inbox.stream s ON s.stream_id = r.stream_id
       WHERE r.account_id = $1 AND ${where} ORDER BY r.id DESC`,
      params,
    )) as Row[];
    return rows.map((r) => ({ id: Number(r.id), name: r.name, stream: r.stream_uid ?? '', team: r.team_id ? iri('teams', r.team_id) : null, senders: r.senders, space: iri('spaces', r.space_id) }));
  }

  async listRoutings(q: Q): Promise<ListResult<InboxIncomingRouting>> {
    const actor = actorOf();
    const spaces = await this.listSpaces(actor, q);
    const items = await this.routingRows(`r.space_id = ANY($2::bigint[])`, [actor.accountId, spaces]);
    const lq = parseListQuery(q, { sortable: ['id'], defaultItemsPerPage: 2000 });
    if (lq.order.id === 'ASC') items.reverse();
    return { items: items.slice(lq.skip, lq.skip + lq.take), total: items.length };
  }

  async getRouting(id: string): Promise<InboxIncomingRouting> {
    const actor = actorOf();
    const [r] = await this.routingRows(`r.id = $2`, [actor.accountId, refId(id) ?? '0']);
    if (!r) throw AppError.notFound('incoming routing');
    await this.access.scope(refId(r.space) as string, actor);
    return r;
  }

  private async routingTeam(accountId: string, spaceId: string, team: string | null | undefined): Promise<string | null> {
    if (!team) return null;
    const [t] = (await this.ds.query(`SELECT id::text FROM inbox.team WHERE id = $1 AND account_id = $2 AND space_id = $3`, [team, accountId, spaceId])) as Row[];
    if (!t) throw AppError.validation([{ propertyPath: 'team', message: 'invalid', code: 'invalid' }], 'invalid: the team is not in this space');
    return t.id;
  }

  async createRouting(body: unknown): Promise<InboxIncomingRouting> {
    const actor = actorOf();
    const d = parse(RoutingInput, body);
    await this.writable(d.space, actor);
    const stream = await this.streamOf(actor.accountId, d.stream);
    const team = await this.routingTeam(actor.accountId, d.space, d.team);
    const [row] = (await this.ds.query(
      `INSERT INTO inbox.incoming_routing (account_id, space_id, team_id, name, stream_id, senders, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id::text`,
      [actor.accountId, d.space, team, d.name, stream.stream_id, d.senders ?? [], this.now()],
    )) as Row[];
    return this.getRouting(row.id);
  }

  async updateRouting(id: string, body: unknown): Promise<InboxIncomingRouting> {
    const actor = actorOf();
    const d = parse(partial(RoutingInput), body);
    const r = await this.getRouting(id);
    const space = d.space ?? (refId(r.space) as string);
    if (d.space) await this.writable(d.space, actor);
    const stream = d.stream !== undefined ? await this.streamOf(actor.accountId, d.stream) : null;
    const team = d.team !== undefined ? await this.routingTeam(actor.accountId, space, d.team) : r.team ? await this.routingTeam(actor.accountId, space, refId(r.team)) : null;
    await this.ds.query(
      `UPDATE inbox.incoming_routing SET name = COALESCE($3, name), stream_id = COALESCE($4, stream_id), senders = COALESCE($5, senders), space_id = $6, team_id = $7, updated_at = $8
       WHERE id = $1 AND account_id = $2`,
      [r.id, actor.accountId, d.name ?? null, stream?.stream_id ?? null, d.senders ?? null, space, team, this.now()],
    );
    return this.getRouting(String(r.id));
  }

  async removeRouting(id: string): Promise<void> {
    const r = await this.getRouting(id);
    await this.ds.query(`DELETE FROM inbox.incoming_routing WHERE id = $1`, [r.id]);
  }

  /** Dropdowns: `{ items: [{ id, name }], total }` of a list the caller may read. */
  static dropdown<T extends { id: number; name: string }>(l: ListResult<T>): ListResult<{ id: number; name: string }> {
    return { items: l.items.map((x) => ({ id: x.id, name: x.name })), total: l.total };
  }
}

function tagDto(r: Row): InboxConversationTag {
  return { id: Number(r.id), name: r.name, key: r.key, space: iri('spaces', r.space_id) };
}

function cannedDto(r: Row): InboxCannedTemplate {
  return { id: Number(r.id), templateKey: r.template_key, name: r.name, space: iri('spaces', r.space_id), text: r.text };
}
