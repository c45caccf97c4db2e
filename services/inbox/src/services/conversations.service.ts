import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';
import {
  CONVERSATION_FILTERS,
  CONVERSATION_STATUSES,
  ConversationFilter,
  INBOX_CLOSE_TRANSCRIPT,
  INBOX_CONVERSATION_PAGE_SIZE,
  INBOX_TIMELINE_PAGE_SIZE,
  InboxConversationClosedV1,
  InboxWsEvent,
  isContactKey,
  Permission,
  type BulkSetStatusAnswer,
  type ConversationFilterValue,
  type ConversationPage,
  type ConversationPreview,
  type ConversationStatusValue,
  type ConversationTotals,
  type InboxActor,
  type InboxContact,
  type InboxConversationClosed,
  type InboxConversation,
  type InboxTimelineEvent,
  type SimpleSearchResult,
  type TimelinePage,
} from '@switchboard/contracts';
import { AppError, timeOrderedUuid } from '@switchboard/platform';
import { Clock } from '../clock';
import { parse, refId, rowsOf } from '../http/input';
import { INBOX_CONNECTION, INBOX_OPTIONS, type ResolvedInboxOptions } from '../inbox.options';
import { actorOf, can, InboxAccess, requirePerm, type Actor, type SpaceScope } from './access';
import { InboxUnitOfWork } from './outbox';
import { RoomEvents } from './rooms.service';
import { CONVERSATION_COLUMNS, conversationRooms, conversationView, EVENT_COLUMNS, eventView, filterSql } from './views';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field
type Q = Record<string, unknown>;

const uuid = z.string().uuid();
const ids = z.array(z.union([z.number().int().positive(), z.string().regex(/^(\/api\/[a-z_]+\/)?\d{1,18}$/)])).max(100).transform((l) => [...new Set(l.map((v) => refId(v) as string))]);
const MetadataInput = z.object({ metadata: z.object({ team: ids.optional(), agent: ids.optional(), tags: ids.optional() }).strict() }).strict();
const BulkInput = z.object({ conversation_uuids: z.array(uuid).min(1).max(500), status: z.enum(['active', 'unanswered', 'closed']) }).strict();
const NoteInput = z.object({ conversation_uuid: uuid, note: z.string().trim().min(1, 'required').max(10_000) }).strict();
const ContactGet = z.object({ contact_phone_number: z.string().max(64).optional(), contactKey: z.string().max(128).optional(), internalId: z.union([z.string(), z.number()]).optional(), space: z.union([z.string(), z.number()]).optional() }).strict();
const ContactWrite = z
  .object({
    contactKey: z.string().max(128).optional(),
    phone: z.string().trim().min(3).max(64).optional(),
    firstName: z.string().max(255).optional(),
    lastName: z.string().max(255).optional(),
    email: z.string().max(255).optional(),
    extra: z.record(z.unknown()).optional(),
  })
  .strict();

interface Cursor {
  t: string;
  id: string;
}
const encodeCursor = (c: Cursor): string => Buffer.from(`${c.t}|${c.id}`).toString('base64url');
function decodeCursor(v: unknown): Cursor | null {
  if (v === undefined || v === '') return null;
  const m = typeof v === 'string' ? /^(\d{4}-\d\d-\d\dT[\d:.]+Z)\|(\d{1,18})$/.exec(Buffer.from(v, 'base64url').toString()) : null;
  if (!m) throw AppError.validation([{ propertyPath: 'cursor', message: 'not a cursor of this list' }]);
  return { t: m[1], id: m[2] };
}

/** The count of conversations (alias c) matching `where`, stopping one past the cap (INBOX_TOTALS_CAP by default). */
const boundedBy = (cap: number) => (where: string) => `(SELECT count(*) FROM (SELECT 1 FROM inbox.conversation c WHERE ${where} LIMIT ${cap + 1}) b)::int`;

export interface VisibleConversation {
  row: Row;
  scope: SpaceScope;
}

/**
 * Conversations and their timelines (spec 3, 4): the filtered keyset list with totals, the timeline, search, metadata,
 * status, internal notes and the inbox's contacts. What a caller sees: every conversation of the space for admins and
 * team viewers (INBOX_TEAM_VIEW), otherwise those of their teams and those assigned to them.
 */
/**
 * The totals `space_statistics` carries, as a SQL `json` expression over the per-status counter rows of one space
 * (`inbox.space_status_count` under alias `n`, grouped by space): the personal filters are nobody's in a space-wide
 * answer (0). The one definition, used by the totals read and by the incoming batch's statement (docs/decisions/0120).
 */
export const SPACE_TOTALS_JSON = `json_build_object(
    'all', COALESCE(sum(n.n) FILTER (WHERE n.status IN ('active', 'unanswered', 'closed')), 0)::bigint,
    'active', COALESCE(sum(n.n) FILTER (WHERE n.status = 'active'), 0)::bigint,
    'unanswered', COALESCE(sum(n.n) FILTER (WHERE n.status = 'unanswered'), 0)::bigint,
    'closed', COALESCE(sum(n.n) FILTER (WHERE n.status = 'closed'), 0)::bigint,
    'my_closed', 0, 'assigned_to_me', 0)`;

@Injectable()
export class ConversationsService {
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    private readonly access: InboxAccess,
    private readonly rooms: RoomEvents,
    private readonly clock: Clock,
    private readonly uow: InboxUnitOfWork,
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
  ) {}

  /** The visibility condition (alias c) with its parameters appended to `params`. */
  private visible(scope: SpaceScope, params: unknown[]): string {
    if (scope.seesAll) return 'true';
    params.push(scope.teamIds, scope.actor.userId ?? '0');
    return `(c.team_ids && $${params.length - 1}::bigint[] OR c.agent_ids @> ARRAY[$${params.length}::bigint])`;
  }

  private me(actor: Actor): string {
    return actor.userId ?? '0';
  }

  /** The caller's scope and the WHERE of a list or its totals: space, what the caller sees, `team` and `status`. */
  private async listBase(q: Q) {
    const actor = actorOf();
    const scope = await this.access.scope(refId(String(q.space ?? '')), actor);
    const filter = (q.filter ?? 'all') as ConversationFilterValue;
    if (!CONVERSATION_FILTERS.includes(filter)) throw AppError.validation([{ propertyPath: 'filter', message: `one of ${CONVERSATION_FILTERS.join(', ')}` }]);
    const status = q.status === undefined || q.status === '' ? null : String(q.status);
    if (status && !CONVERSATION_STATUSES.includes(status as ConversationStatusValue)) throw AppError.validation([{ propertyPath: 'status', message: 'active, unanswered or closed' }]);
    const team = q.team === undefined || q.team === '' ? null : refId(String(q.team));
    if (q.team !== undefined && q.team !== '' && !team) throw AppError.validation([{ propertyPath: 'team', message: 'an id or IRI' }]);
    const cursor = decodeCursor(q.cursor);
    const me = this.me(actor);

    const params: unknown[] = [actor.accountId, scope.spaceId];
    const base = [`c.account_id = $1`, `c.space_id = $2`, this.visible(scope, params)];
    if (team) {
      params.push(team);
      base.push(`c.team_ids @> ARRAY[$${params.length}::bigint]`);
    }
    if (status) {
      params.push(status);
      base.push(`c.status = $${params.length}`);
    }
    return { actor, scope, filter, status, team, cursor, me, base, params };
  }

  /** The totals of GET /inbox/conversations alone (the console refreshes its filter counts with them after live events). */
  async listTotals(q: Q): Promise<ConversationTotals> {
    const { actor, scope, status, team, me, base, params } = await this.listBase(q);
    return scope.seesAll && !team && !status ? this.spaceTotalsFor(actor.accountId, scope.spaceId, me) : this.totals(base, params, me);
  }

  async list(q: Q): Promise<ConversationPage> {
    const { actor, scope, filter, status, team, cursor, me, base, params } = await this.listBase(q);
    const pageParams = [...params];
    const where = [...base, filterSql(filter, me)];
    if (cursor) {
      pageParams.push(cursor.t, cursor.id);
      where.push(`(c.last_updated, c.id) < ($${pageParams.length - 1}::timestamptz, $${pageParams.length}::bigint)`);
    }
    pageParams.push(INBOX_CONVERSATION_PAGE_SIZE + 1);
    const [rows, totals] = await Promise.all([
      this.ds.query(`SELECT ${CONVERSATION_COLUMNS} FROM inbox.conversation c WHERE ${where.join(' AND ')} ORDER BY c.last_updated DESC, c.id DESC LIMIT $${pageParams.length}`, pageParams) as Promise<Row[]>,
      scope.seesAll && !team && !status ? this.spaceTotalsFor(actor.accountId, scope.spaceId, me) : this.totals(base, params, me),
    ]);
    const more = rows.length > INBOX_CONVERSATION_PAGE_SIZE;
    const page = rows.slice(0, INBOX_CONVERSATION_PAGE_SIZE);
    const last = page[page.length - 1];
    const showPhone = can(scope, Permission.InboxShowPhone);
    return {
      items: page.map((r) => conversationView(r, { showPhone })),
      totals,
      totals_cap: this.options.totalsCap,
      next_cursor: more && last ? encodeCursor({ t: new Date(last.last_updated).toISOString(), id: last.id }) : null,
    };
  }

  /**
   * Totals per filter over what the caller sees (and the team and status asked for), each counted up to one past
   * INBOX_TOTALS_CAP (docs/decisions/0058): a team of a million conversations is not counted on every page.
   */
  private async totals(base: string[], params: unknown[], me: string): Promise<ConversationTotals> {
    const bounded = boundedBy(this.options.totalsCap);
    // `all` spelled as the statuses the table allows (its CHECK): the same rows, but counted from the per-status index
    // like the others (an index-only scan, docs/decisions/0076) rather than by walking the table until the cap
    const where = (f: (typeof CONVERSATION_FILTERS)[number]) => (f === ConversationFilter.All ? `c.status IN ('active', 'unanswered', 'closed')` : filterSql(f, me));
    const cols = CONVERSATION_FILTERS.map((f) => `${bounded(`${base.join(' AND ')} AND ${where(f)}`)} AS "${f}"`).join(', ');
    const [r] = (await this.ds.query(`SELECT ${cols}`, params)) as Row[];
    return Object.fromEntries(CONVERSATION_FILTERS.map((f) => [f, Number(r[f])])) as ConversationTotals;
  }

  /**
   * The whole space's totals: the per-status counters the trigger keeps (no count over the space's rows), and the two
   * personal filters by their indexes.
   */
  private async spaceTotalsFor(accountId: string, spaceId: string, me: string): Promise<ConversationTotals> {
    // one statement (docs/decisions/0068): the counters as one row beside the two bounded personal counts
    const bounded = boundedBy(this.options.totalsCap);
    const [r] = (await this.ds.query(
      `SELECT k.active, k.unanswered, k.closed,
              ${bounded(`c.account_id = $1 AND c.space_id = $2 AND c.status = 'closed' AND c.closed_by = $3`)} AS my_closed,
              ${bounded(`c.account_id = $1 AND c.space_id = $2 AND c.agent_ids @> ARRAY[$3::bigint]`)} AS assigned_to_me
         FROM (SELECT COALESCE(sum(n) FILTER (WHERE status = 'active'), 0)::int AS active, COALESCE(sum(n) FILTER (WHERE status = 'unanswered'), 0)::int AS unanswered,
                      COALESCE(sum(n) FILTER (WHERE status = 'closed'), 0)::int AS closed
                 FROM inbox.space_status_count WHERE space_id = $2) k`,
      [accountId, spaceId, me],
    )) as Row[];
    const [active, unanswered, closed] = [Number(r.active), Number(r.unanswered), Number(r.closed)];
    return { all: active + unanswered + closed, active, unanswered, closed, my_closed: Number(r.my_closed), assigned_to_me: Number(r.assigned_to_me) };
  }

  async spaceTotals(accountId: string, spaceId: string): Promise<ConversationTotals> {
    return (await this.spacesTotals(this.ds, [spaceId])).get(spaceId) as ConversationTotals;
  }

  /**
   * The totals `space_statistics` carries, of several spaces in one statement (in the caller's transaction when given
   * its manager): the trigger's per-status counters; the personal filters are nobody's in a space-wide answer (0).
   */
  async spacesTotals(q: Pick<DataSource, 'query'>, spaceIds: readonly string[]): Promise<Map<string, ConversationTotals>> {
    const rows = (await q.query(
      `SELECT s.id::text AS space_id, ${SPACE_TOTALS_JSON} AS totals
         FROM unnest($1::bigint[]) AS s(id) LEFT JOIN inbox.space_status_count n ON n.space_id = s.id GROUP BY s.id`,
      [spaceIds],
    )) as Array<{ space_id: string; totals: ConversationTotals }>;
    return new Map(rows.map((r) => [r.space_id, r.totals]));
  }

  /** A conversation the caller may see (404 otherwise: another account's, another space's, another team's). */
  async visibleConversation(id: string, actor: Actor = actorOf(), m: EntityManager | DataSource = this.ds): Promise<VisibleConversation> {
    if (!uuid.safeParse(id).success) throw AppError.notFound('conversation');
    const [row] = (await m.query(`SELECT ${CONVERSATION_COLUMNS} FROM inbox.conversation c WHERE c.uuid = $1 AND c.account_id = $2`, [id, actor.accountId])) as Row[];
    if (!row || !row.space_id) throw AppError.notFound('conversation');
    let scope: SpaceScope;
    try {
      scope = await this.access.scope(row.space_id, actor, m);
    } catch {
      throw AppError.notFound('conversation');
    }
    const mine = (row.team_ids as string[]).some((t) => scope.teamIds.includes(t)) || (actor.userId !== null && (row.agent_ids as string[]).includes(actor.userId));
    if (!scope.seesAll && !mine) throw AppError.notFound('conversation');
    return { row, scope };
  }

  async timeline(id: string, q: Q): Promise<TimelinePage> {
    const actor = actorOf();
    const { row, scope } = await this.visibleConversation(id, actor);
    const page = q.page === undefined ? 1 : Number(q.page);
    const size = q.page_size === undefined ? INBOX_TIMELINE_PAGE_SIZE : Number(q.page_size);
    if (!Number.isInteger(page) || page < 1 || page > 100_000) throw AppError.validation([{ propertyPath: 'page', message: 'a page from 1' }]);
    if (!Number.isInteger(size) || size < 1 || size > 100) throw AppError.validation([{ propertyPath: 'page_size', message: 'from 1 to 100' }]);
    const events = (await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM inbox.event e WHERE e.conversation_id = $1 ORDER BY e.message_time DESC, e.id DESC LIMIT $2 OFFSET $3`, [row.id, size, (page - 1) * size])) as Row[];
    const showPhone = can(scope, Permission.InboxShowPhone);
    let conv = row;
    // an agent opening the conversation has read what came in (spec 4: incoming in the active conversation are read)
    if (page === 1 && Number(row.unread) > 0 && actor.userId) conv = await this.markRead(row);
    return { conversation: conversationView(conv, { showPhone }), items: events.map((e) => eventView(e, row.uuid, showPhone)) };
  }

  private async markRead(row: Row): Promise<Row> {
    const now = this.clock.now();
    const [updated] = rowsOf(await this.ds.query(
      `WITH r AS (UPDATE inbox.event SET read_at = $2 WHERE conversation_id = $1 AND event_type = 'incoming_message' AND read_at IS NULL)
       UPDATE inbox.conversation c SET unread = 0 WHERE c.id = $1 RETURNING ${CONVERSATION_COLUMNS}`,
      [row.id, now],
    )) as Row[];
    await this.rooms.emit(row.account_id, conversationRooms(row), InboxWsEvent.MessageRead, { conversation_uuid: row.uuid, message_uuid: null, read_at: now.toISOString(), unread: 0 });
    return updated ?? row;
  }

  async preview(id: string): Promise<ConversationPreview> {
    const { row, scope } = await this.visibleConversation(id);
    const events = (await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM inbox.event e WHERE e.conversation_id = $1 ORDER BY e.message_time DESC, e.id DESC LIMIT 5`, [row.id])) as Row[];
    const showPhone = can(scope, Permission.InboxShowPhone);
    return { conversation: conversationView(row, { showPhone }), items: events.map((e) => eventView(e, row.uuid, showPhone)) };
  }

  /**
   * simple_search: contact names and phones by substring (trigram indexes), message text by words (full text), newest
   * activity first, one page.
   */
  async search(q: Q): Promise<SimpleSearchResult> {
    const actor = actorOf();
    const scope = await this.access.scope(refId(String(q.space ?? '')), actor);
    const text = String(q.q ?? q.search ?? '').trim();
    if (text.length < 2 || text.length > 100) throw AppError.validation([{ propertyPath: 'q', message: 'from 2 to 100 characters' }]);
    const params: unknown[] = [actor.accountId, scope.spaceId];
    const vis = this.visible(scope, params);
    params.push(`%${text.replace(/[%_\\]/g, '\\$&')}%`);
    const like = params.length;
    const digits = text.replace(/[\s\-().]/g, '');
    params.push(/^\+?\d{3,}$/.test(digits) ? `%${digits}%` : params[like - 1]);
    const phone = params.length;
    const words = text
      .split(/\s+/)
      .map((w) => w.replace(/[^\p{L}\p{N}_]/gu, ''))
      .filter(Boolean);
    // each way of matching on its own index (names and phones: trigram; message words: full text), their ids collected
    // first and the conversations fetched by key: an OR of the three in one WHERE, or a join with the union (whose size
    // PostgreSQL overestimates 30x for a word prefix), scanned the space's million conversations (docs/decisions/0058)
    const parts = [
      `SELECT c.id FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND c.contact_name ILIKE $${like}`,
      `SELECT c.id FROM inbox.conversation c WHERE c.account_id = $1 AND c.space_id = $2 AND c.contact_phone LIKE $${phone}`,
    ];
    if (words.length) {
      params.push(words.map((w) => `${w}:*`).join(' & '));
      parts.push(`SELECT e.conversation_id FROM inbox.event e WHERE e.account_id = $1 AND e.body IS NOT NULL AND to_tsvector('simple', e.body) @@ to_tsquery('simple', $${params.length})`);
    }
    params.push(INBOX_CONVERSATION_PAGE_SIZE);
    const rows = (await this.ds.query(
      `SELECT ${CONVERSATION_COLUMNS} FROM inbox.conversation c
       WHERE c.id = ANY(ARRAY(${parts.join(' UNION ')})) AND c.account_id = $1 AND c.space_id = $2 AND ${vis}
       ORDER BY c.last_updated DESC, c.id DESC LIMIT $${params.length}`,
      params,
    )) as Row[];
    const showPhone = can(scope, Permission.InboxShowPhone);
    return { items: rows.map((r) => conversationView(r, { showPhone })) };
  }

  // ---- changes ----

  private async actorOfAgent(m: EntityManager, actor: Actor): Promise<InboxActor> {
    if (!actor.userId) return { type: 'system', id: null, name: null };
    const [a] = (await m.query(`SELECT first_name, last_name FROM inbox.agent WHERE account_id = $1 AND user_id = $2`, [actor.accountId, actor.userId])) as Row[];
    return { type: 'agent', id: Number(actor.userId), name: a ? `${a.first_name} ${a.last_name}`.trim() : null };
  }

  /** Inserts a timeline event and answers its row. */
  async addEvent(m: EntityManager, conv: Row, e: { type: string; actor: InboxActor | null; data?: unknown; content?: unknown; body?: string | null; messageUuid?: string | null; sendStatus?: string | null; source?: string | null; destination?: string | null; messageType?: string | null; batchId?: string | null; at?: Date }): Promise<Row> {
    const [row] = (await m.query(
      `INSERT INTO inbox.event (uuid, account_id, conversation_id, event_type, message_uuid, message_time, send_status, actor, content, event_data, body, source, destination, message_type, batch_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING ${EVENT_COLUMNS.replace(/e\./g, '')}`,
      [
        timeOrderedUuid(),
        conv.account_id,
        conv.id,
        e.type,
        e.messageUuid ?? null,
        e.at ?? this.clock.now(),
        e.sendStatus ?? null,
        e.actor ? JSON.stringify(e.actor) : null,
        e.content === undefined ? null : JSON.stringify(e.content),
        e.data === undefined ? null : JSON.stringify(e.data),
        e.body ?? null,
        e.source ?? null,
        e.destination ?? null,
        e.messageType ?? null,
        e.batchId ?? null,
      ],
    )) as Row[];
    return row;
  }

  /** POST /inbox/metadata/{uuid}: teams and agents (INBOX_ASSIGN), tags (INBOX_ASSIGN_TAGS); one timeline event per kind changed. */
  async setMetadata(id: string, body: unknown): Promise<InboxConversation> {
    const actor = actorOf();
    const d = parse(MetadataInput, body).metadata;
    const { row, scope } = await this.visibleConversation(id, actor);
    if (d.team !== undefined || d.agent !== undefined) requirePerm(scope, Permission.InboxAssign);
    if (d.tags !== undefined) requirePerm(scope, Permission.InboxAssignTags);
    // only this space's teams and tags, and agents of the account
    if (d.team?.length) await this.assertIn(`SELECT id::text AS v FROM inbox.team WHERE account_id = $1 AND space_id = $2 AND id = ANY($3::bigint[])`, [actor.accountId, row.space_id, d.team], d.team, 'team');
    if (d.tags?.length) await this.assertIn(`SELECT id::text AS v FROM inbox.conversation_tag WHERE account_id = $1 AND space_id = $2 AND id = ANY($3::bigint[])`, [actor.accountId, row.space_id, d.tags], d.tags, 'tags');
    if (d.agent?.length) await this.assertIn(`SELECT user_id::text AS v FROM inbox.agent WHERE account_id = $1 AND NOT removed AND $2::bigint IS NOT NULL AND user_id = ANY($3::bigint[])`, [actor.accountId, row.space_id, d.agent], d.agent, 'agent');

    const changes: Array<{ kind: 'team' | 'agent' | 'tags'; added: string[]; removed: string[] }> = [];
    const diff = (kind: 'team' | 'agent' | 'tags', next: string[] | undefined, cur: string[]) => {
      if (next === undefined) return;
      const added = next.filter((x) => !cur.includes(x));
      const removed = cur.filter((x) => !next.includes(x));
      if (added.length || removed.length) changes.push({ kind, added, removed });
    };
    diff('team', d.team, row.team_ids);
    diff('agent', d.agent, row.agent_ids);
    diff('tags', d.tags, row.tag_ids);
    const showPhone = can(scope, Permission.InboxShowPhone);
    if (!changes.length) return conversationView(row, { showPhone });

    const { updated, events } = await this.ds.transaction(async (m) => {
      const [u] = rowsOf(await m.query(
        `UPDATE inbox.conversation c SET team_ids = COALESCE($2::bigint[], team_ids), agent_ids = COALESCE($3::bigint[], agent_ids), tag_ids = COALESCE($4::bigint[], tag_ids), last_updated = $5
         WHERE c.id = $1 RETURNING ${CONVERSATION_COLUMNS}`,
        [row.id, d.team ?? null, d.agent ?? null, d.tags ?? null, this.clock.now()],
      )) as Row[];
      const who = await this.actorOfAgent(m, actor);
      const evs: Array<{ row: Row; added: boolean }> = [];
      for (const c of changes) {
        const data =
          c.kind === 'tags'
            ? { added_tags: c.added.map(Number), removed_tags: c.removed.map(Number) }
            : c.kind === 'team'
              ? { new_team: (d.team as string[]).map(Number) }
              : { new_agent: (d.agent as string[]).map(Number) };
        evs.push({ row: await this.addEvent(m, u, { type: c.kind === 'tags' ? 'set_tag' : c.kind === 'team' ? 'assign_team' : 'assign_agent', actor: who, data }), added: c.added.length > 0 });
      }
      return { updated: u, events: evs };
    });
    // the old rooms learn of a removal, the new ones of an addition
    const rooms = [...new Set([...conversationRooms(row), ...conversationRooms(updated)])];
    for (const e of events) {
      await this.rooms.emit(actor.accountId, rooms, e.added ? InboxWsEvent.MetadataChangeAdd : InboxWsEvent.MetadataChangeRemove, {
        conversation: conversationView(updated, { showPhone: true }),
        event: eventView(e.row, row.uuid),
      });
    }
    await this.rooms.emit(actor.accountId, rooms, InboxWsEvent.MetadataUpdate, { conversation: conversationView(updated, { showPhone: true }) });
    return conversationView(updated, { showPhone, updated: true });
  }

  private async assertIn(sql: string, params: unknown[], wanted: string[], field: string): Promise<void> {
    const found = new Set(((await this.ds.query(sql, params)) as Row[]).map((r) => r.v as string));
    if (wanted.some((w) => !found.has(w))) throw AppError.validation([{ propertyPath: `metadata.${field}`, message: 'invalid', code: 'invalid' }], 'invalid');
  }

  /** Sets a status by hand on conversations the caller sees; the answer has them keyed by uuid (spec 7). */
  async bulkSetStatus(body: unknown): Promise<BulkSetStatusAnswer> {
    const actor = actorOf();
    const d = parse(BulkInput, body);
    const seen: VisibleConversation[] = [];
    for (const id of [...new Set(d.conversation_uuids)]) seen.push(await this.visibleConversation(id, actor));
    const out: Record<string, InboxConversation> = {};
    for (const v of seen) {
      const res = await this.setStatus(v, d.status, actor);
      out[v.row.uuid] = conversationView(res, { showPhone: can(v.scope, Permission.InboxShowPhone), updated: true });
    }
    return { conversations: out };
  }

  private async setStatus(v: VisibleConversation, status: ConversationStatusValue, actor: Actor): Promise<Row> {
    const prev = v.row.status as ConversationStatusValue;
    if (prev === status) return v.row;
    const now = this.clock.now();
    const { updated, ev } = await this.uow.run(async (m, emit) => {
      const [u] = rowsOf(await m.query(
        `UPDATE inbox.conversation c SET status = $2, closed_by = CASE WHEN $2 = 'closed' THEN $3::bigint ELSE NULL END, closed_at = CASE WHEN $2 = 'closed' THEN $4::timestamptz ELSE NULL END,
           last_updated = $4 WHERE c.id = $1 RETURNING ${CONVERSATION_COLUMNS}`,
        [v.row.id, status, actor.userId, now],
      )) as Row[];
      const who = await this.actorOfAgent(m, actor);
      const e = await this.addEvent(m, u, { type: 'change_state', actor: who, data: { state: status } });
      // the CRM hears of a closed conversation (a note with its transcript, decision 0065): in this transaction, through the outbox
      if (status === 'closed') emit(InboxConversationClosedV1, await this.closedEvent(m, u, who, now), actor.accountId);
      return { updated: u, ev: e };
    });
    await this.rooms.emit(actor.accountId, conversationRooms(updated), InboxWsEvent.StatusChange, { conversation: conversationView(updated, { showPhone: true }), event: eventView(ev, updated.uuid), previous_status: prev });
    await this.spaceStatistics(actor.accountId, updated.space_id);
    return updated;
  }

  /** `inbox.conversation.closed`: who closed it, when, the channel and its last messages with text (bounded). */
  private async closedEvent(m: EntityManager, conv: Row, who: InboxActor, at: Date): Promise<InboxConversationClosed> {
    const { messages, messageChars } = INBOX_CLOSE_TRANSCRIPT;
    const events = (await m.query(
      `SELECT e.event_type, e.body, e.message_time FROM inbox.event e
       WHERE e.conversation_id = $1 AND e.event_type IN ('incoming_message', 'outgoing_message') AND e.body IS NOT NULL AND e.body <> ''
       ORDER BY e.message_time DESC, e.id DESC LIMIT $2`,
      [conv.id, messages],
    )) as Row[];
    return {
      accountId: String(conv.account_id),
      conversationUuid: String(conv.uuid),
      contactPhone: String(conv.contact_phone).slice(0, 64),
      contactName: conv.contact_name ? String(conv.contact_name).slice(0, 255) : null,
      channel: String(conv.channel),
      closedBy: { userId: who.type === 'agent' && who.id !== null ? String(who.id) : null, name: who.name ? who.name.slice(0, 255) : null },
      closedAt: at.toISOString(),
      lastMessages: events.reverse().map((e) => ({
        from: e.event_type === 'incoming_message' ? ('contact' as const) : ('agent' as const),
        text: String(e.body).slice(0, messageChars),
        at: new Date(e.message_time as string).toISOString(),
      })),
    };
  }

  /** space_statistics to the space's room after a change of its totals. */
  async spaceStatistics(accountId: string, spaceId: string | null): Promise<void> {
    if (!spaceId) return;
    await this.rooms.emit(accountId, [`space:${spaceId}`], InboxWsEvent.SpaceStatistics, { space_id: Number(spaceId), totals: await this.spaceTotals(accountId, spaceId) });
  }

  async addNote(body: unknown): Promise<InboxTimelineEvent> {
    const actor = actorOf();
    const d = parse(NoteInput, body);
    if (!actor.userId) throw new AppError(403, 'NOT_AUTHENTICATED', 'notes are written by agents');
    const { row, scope } = await this.visibleConversation(d.conversation_uuid, actor);
    requirePerm(scope, Permission.InboxInternalNotes);
    const ev = await this.ds.transaction(async (m) => {
      const e = await this.addEvent(m, row, { type: 'internal_note', actor: await this.actorOfAgent(m, actor), data: { note: d.note } });
      await m.query(`UPDATE inbox.conversation SET last_updated = $2 WHERE id = $1`, [row.id, this.clock.now()]);
      return e;
    });
    const view = eventView(ev, row.uuid);
    await this.rooms.emit(actor.accountId, conversationRooms(row), InboxWsEvent.InternalNote, { conversation_uuid: row.uuid, event: view });
    return view;
  }

  // ---- contacts ----

  private contactDto(r: Row): InboxContact {
    return { id: Number(r.id), contactKey: r.contact_key, phone: r.phone, firstName: r.first_name, lastName: r.last_name, email: r.email, extra: r.extra ?? {} };
  }

  private async findContact(accountId: string, by: { key?: string; phone?: string; id?: string }): Promise<Row | null> {
    const [r] = (await this.ds.query(
      `SELECT id::text, contact_key, phone, first_name, last_name, email, extra FROM inbox.contact
       WHERE account_id = $1 AND (contact_key = $2 OR phone = $3 OR id = $4::bigint) LIMIT 1`,
      [accountId, by.key ?? null, by.phone ?? null, by.id ?? null],
    )) as Row[];
    return r ?? null;
  }

  /** The contact's conversations the caller sees, newest first. */
  private async conversationsOf(actor: Actor, where: string, value: string): Promise<InboxConversation[]> {
    const rows = (await this.ds.query(`SELECT ${CONVERSATION_COLUMNS} FROM inbox.conversation c WHERE c.account_id = $1 AND ${where} ORDER BY c.last_updated DESC LIMIT 100`, [actor.accountId, value])) as Row[];
    const out: InboxConversation[] = [];
    for (const r of rows) {
      try {
        const v = await this.visibleConversation(r.uuid, actor);
        out.push(conversationView(v.row, { showPhone: can(v.scope, Permission.InboxShowPhone) }));
      } catch {
        /* not the caller's */
      }
    }
    return out;
  }

  /** GET /inbox/contact_conversations/{id}: an id longer than 30 characters is a contact key, otherwise a phone (spec 5). */
  async contactConversations(id: string, by: 'auto' | 'phone'): Promise<{ items: InboxConversation[] }> {
    const actor = actorOf();
    const key = by === 'auto' && isContactKey(id);
    return { items: await this.conversationsOf(actor, key ? 'c.contact_key = $2' : 'c.contact_phone = $2', key ? id : normalisePhone(id)) };
  }

  async getContact(body: unknown): Promise<{ contact: InboxContact | null; conversations: InboxConversation[] }> {
    const actor = actorOf();
    const d = parse(ContactGet, body);
    const phone = d.contact_phone_number ? normalisePhone(d.contact_phone_number) : undefined;
    const c = await this.findContact(actor.accountId, { key: d.contactKey, phone, id: d.internalId !== undefined ? (refId(d.internalId) ?? '0') : undefined });
    const conversations = c ? await this.conversationsOf(actor, 'c.contact_phone = $2', c.phone) : phone ? await this.conversationsOf(actor, 'c.contact_phone = $2', phone) : [];
    return { contact: c ? this.contactDto(c) : null, conversations };
  }

  async addContact(body: unknown): Promise<InboxContact> {
    const actor = actorOf();
    const d = parse(ContactWrite, body);
    if (!d.phone) throw AppError.validation([{ propertyPath: 'phone', message: 'required' }]);
    const phone = normalisePhone(d.phone);
    const now = this.clock.now();
    const key = randomBytes(20).toString('hex');
    const [r] = (await this.ds.query(
      `INSERT INTO inbox.contact (account_id, contact_key, phone, first_name, last_name, email, extra, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT (account_id, phone) DO NOTHING RETURNING id::text, contact_key, phone, first_name, last_name, email, extra`,
      [actor.accountId, key, phone, d.firstName ?? '', d.lastName ?? '', d.email ?? '', JSON.stringify(d.extra ?? {}), now],
    )) as Row[];
    if (!r) throw AppError.conflict('a contact with this phone exists');
    await this.syncNames(actor.accountId, r);
    return this.contactDto(r);
  }

  async editContact(body: unknown): Promise<InboxContact> {
    const actor = actorOf();
    const d = parse(ContactWrite, body);
    const c = await this.findContact(actor.accountId, { key: d.contactKey, phone: d.contactKey ? undefined : d.phone ? normalisePhone(d.phone) : undefined });
    if (!c) throw AppError.notFound('contact');
    const [r] = rowsOf(await this.ds.query(
      `UPDATE inbox.contact SET first_name = COALESCE($2, first_name), last_name = COALESCE($3, last_name), email = COALESCE($4, email), extra = COALESCE($5::jsonb, extra), updated_at = $6
       WHERE id = $1 RETURNING id::text, contact_key, phone, first_name, last_name, email, extra`,
      [c.id, d.firstName ?? null, d.lastName ?? null, d.email ?? null, d.extra ? JSON.stringify(d.extra) : null, this.clock.now()],
    )) as Row[];
    await this.syncNames(actor.accountId, r);
    return this.contactDto(r);
  }

  /** The contact's name and key on its conversations (what the list shows and searches). */
  private async syncNames(accountId: string, c: Row): Promise<void> {
    const name = `${c.first_name} ${c.last_name}`.trim() || null;
    await this.ds.query(`UPDATE inbox.conversation SET contact_name = COALESCE($3, contact_name), contact_key = $4 WHERE account_id = $1 AND contact_phone = $2`, [accountId, c.phone, name, c.contact_key]);
  }

  /** A conversation's view for the caller, after a change made elsewhere (sends). */
  view(v: VisibleConversation, row: Row = v.row): InboxConversation {
    return conversationView(row, { showPhone: can(v.scope, Permission.InboxShowPhone) });
  }

  static readonly filters = ConversationFilter;
}

/** Phones as conversations keep them: spaces, dashes and brackets removed, `00` as `+`. */
export function normalisePhone(p: string): string {
  let v = p.trim().replace(/[\s\-().]/g, '');
  if (/^00\d/.test(v)) v = `+${v.slice(2)}`;
  return v;
}
