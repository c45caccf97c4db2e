import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { InboxSpaceAccessChangedV1, Permission, type GenAiSpaceAccess } from '@switchboard/contracts';
import { AppError, createEnvelope, Outbox, RequestContext, type Principal } from '@switchboard/platform';
import { INBOX_CONNECTION, INBOX_SCHEMA } from '../inbox.options';

/** The caller as the inbox sees them. */
export interface Actor {
  accountId: string;
  /** The user id (an agent); null for callers that are no user (an API key). */
  userId: string | null;
  permissions: ReadonlySet<string>;
  /** INBOX_ADMIN or super administrator: every space and team of the account. */
  admin: boolean;
  superAdmin: boolean;
}

/** The caller in one space: what they may see and do there. */
export interface SpaceScope {
  actor: Actor;
  spaceId: string;
  /** The caller's teams in this space. */
  teamIds: string[];
  /** Sees every conversation of the space (admin, or INBOX_TEAM_VIEW), not only their teams', their own and unassigned ones. */
  seesAll: boolean;
  /** update_permissions: per-space overrides (false removes a permission in this space). */
  overrides: Record<string, boolean>;
}

export function actorOf(p: Principal | null = RequestContext.principal()): Actor {
  if (!p?.accountId) throw AppError.forbidden('no account selected', 'ACCESS_DENIED');
  const userId = p.kind === 'user' && p.userId && /^\d+$/.test(p.userId) ? p.userId : null;
  const permissions = new Set(p.permissions);
  return { accountId: p.accountId, userId, permissions, admin: p.superAdmin || permissions.has(Permission.InboxAdmin), superAdmin: p.superAdmin };
}

/** Whether the caller holds `perm` in the space: the role grants it and the space does not take it away. */
export function can(scope: SpaceScope, perm: string): boolean {
  return (scope.actor.superAdmin || scope.actor.permissions.has(perm)) && scope.overrides[perm] !== false;
}

export function requirePerm(scope: SpaceScope, perm: string): void {
  if (!can(scope, perm)) throw AppError.forbidden(`missing permission in this space: ${perm}`);
}

/**
 * Spaces, teams and per-space permissions of the caller (spec 6: agents see their own spaces and teams). A space of
 * another account is "not found"; a space of the account the caller is no member of is 403.
 */
@Injectable()
export class InboxAccess {
  constructor(@InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource) {}

  /** The ids of the spaces the caller sees. */
  async visibleSpaceIds(actor: Actor, m: EntityManager | DataSource = this.ds): Promise<string[]> {
    if (actor.admin) {
      return (await m.query(`SELECT id::text FROM inbox.space WHERE account_id = $1 ORDER BY id`, [actor.accountId])).map((r: { id: string }) => r.id);
    }
    if (!actor.userId) return [];
    return (
      await m.query(
        `SELECT DISTINCT t.space_id::text AS id FROM inbox.team_agent ta JOIN inbox.team t ON t.id = ta.team_id
         WHERE ta.account_id = $1 AND ta.user_id = $2 ORDER BY 1`,
        [actor.accountId, actor.userId],
      )
    ).map((r: { id: string }) => r.id);
  }

  /** The caller's teams (all spaces, or one). */
  async teamIds(actor: Actor, spaceId?: string, m: EntityManager | DataSource = this.ds): Promise<string[]> {
    if (!actor.userId) return [];
    const rows = (await m.query(
      `SELECT ta.team_id::text AS id FROM inbox.team_agent ta JOIN inbox.team t ON t.id = ta.team_id
       WHERE ta.account_id = $1 AND ta.user_id = $2 AND ($3::bigint IS NULL OR t.space_id = $3) ORDER BY 1`,
      [actor.accountId, actor.userId, spaceId ?? null],
    )) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  async scope(spaceRef: string | null, actor: Actor = actorOf(), m: EntityManager | DataSource = this.ds): Promise<SpaceScope> {
    if (!spaceRef) throw AppError.validation([{ propertyPath: 'space', message: 'missing space' }], 'missing space');
    // one statement (every request of the inbox starts here): the space, the caller's teams in it, their overrides
    const [space] = (await m.query(
      `SELECT s.id::text,
         ARRAY(SELECT ta.team_id::text FROM inbox.team_agent ta JOIN inbox.team t ON t.id = ta.team_id
               WHERE ta.account_id = $2 AND ta.user_id = $3 AND t.space_id = s.id ORDER BY 1) AS team_ids,
         (SELECT sp.permissions FROM inbox.space_permission sp WHERE sp.space_id = s.id AND sp.user_id = $3) AS permissions
       FROM inbox.space s WHERE s.id = $1 AND s.account_id = $2`,
      [spaceRef, actor.accountId, actor.userId],
    )) as Array<{ id: string; team_ids: string[]; permissions: unknown }>;
    if (!space) throw AppError.notFound('space');
    const teamIds = space.team_ids;
    if (!actor.admin && !teamIds.length) throw AppError.forbidden('you are not an agent of this space');
    const overrides = actor.userId ? normaliseOverrides(space.permissions) : {};
    const scope: SpaceScope = { actor, spaceId: space.id, teamIds, seesAll: actor.admin, overrides };
    scope.seesAll = actor.admin || can(scope, Permission.InboxTeamView);
    return scope;
  }
}

/** Spec 6: update_permissions that are missing or an empty array are an empty object. */
export function normaliseOverrides(v: unknown): Record<string, boolean> {
  if (!v || Array.isArray(v) || typeof v !== 'object') return {};
  const out: Record<string, boolean> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (typeof x === 'boolean' && /^INBOX_[A-Z_]+$/.test(k)) out[k] = x;
  return out;
}

/**
 * Every space of the account with its members and the members whose AI assistant it takes away: what the
 * integrations service checks the AI routes against (docs/decisions/0050). Published whole on every change of spaces,
 * team members or space permissions, so a later snapshot replaces an earlier one and a removed space disappears.
 */
export async function spaceAccessOf(m: Pick<EntityManager, 'query'>, accountId: string): Promise<GenAiSpaceAccess> {
  const rows = (await m.query(
    `SELECT s.id::text AS space_id,
       COALESCE((SELECT array_agg(DISTINCT ta.user_id::text ORDER BY ta.user_id::text) FROM inbox.team t JOIN inbox.team_agent ta ON ta.team_id = t.id WHERE t.space_id = s.id), '{}') AS members,
       COALESCE((SELECT array_agg(sp.user_id::text ORDER BY sp.user_id::text) FROM inbox.space_permission sp WHERE sp.space_id = s.id AND sp.permissions->>$2 = 'false'), '{}') AS refused
     FROM inbox.space s WHERE s.account_id = $1 ORDER BY s.id`,
    [accountId, Permission.InboxAiAssistant],
  )) as Array<{ space_id: string; members: string[]; refused: string[] }>;
  return { accountId, spaces: rows.map((r) => ({ spaceId: r.space_id, members: r.members, aiRefused: r.refused })) };
}

/** Writes the account's space access snapshot to the inbox outbox in the caller's transaction (outside a UnitOfWork). */
export async function addSpaceAccessEvent(m: EntityManager, accountId: string, occurredAt: Date): Promise<void> {
  await Outbox.add(m, INBOX_SCHEMA, [createEnvelope(InboxSpaceAccessChangedV1, await spaceAccessOf(m, accountId), { accountId, source: 'inbox', occurredAt })]);
}
