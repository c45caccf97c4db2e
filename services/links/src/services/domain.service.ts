import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  DomainState,
  isDomainName,
  normalizeDomainName,
  type DomainBulkResultDto,
  type DomainDto,
  type DomainOptionDto,
  type DomainsDashboardDto,
  type DomainStateValue,
  type Violation,
} from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import { LINKS_CONNECTION, LINKS_OPTIONS, type ResolvedLinksOptions } from '../links.options';
import { announceDomain, ctrOf, DOMAIN_COLUMNS, limitAdjusted, lockDomains, toDomainDto, toDomainOption, type DomainRow, changed } from './domain-rows';
import { DomainVerifier } from './domain-verifier';
import { bool, parseIds, parseLimit } from './inputs';
import { LinksUnitOfWork } from './links-events.service';
import { announcePool } from './pool.service';

/** Domains added in one call, at most. */
export const MAX_DOMAINS_PER_CALL = 1000;
const ID = /^\d{1,18}$/;
/** Added domains checked in DNS before the add answers; more are left to the scheduler. */
const CHECK_AT_ONCE = 20;

export const BULK_ACTIONS = ['archive', 'restore', 'delete', 'check', 'set_limit'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

@Injectable()
export class DomainService {
  constructor(
    @InjectDataSource(LINKS_CONNECTION) private readonly ds: DataSource,
    @Inject(LINKS_OPTIONS) private readonly options: ResolvedLinksOptions,
    private readonly uow: LinksUnitOfWork,
    private readonly verifier: DomainVerifier,
    private readonly clock: Clock,
  ) {}

  private dto = (r: DomainRow): DomainDto => toDomainDto(r, this.options.dns);

  async list(query: Record<string, unknown>): Promise<ListResult<DomainDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'state', 'createdAt', 'lastUsedAt', 'totalUsages', 'ctr'] });
    const where = ['d.account_id = $1'];
    const values: unknown[] = [RequestContext.accountId()];
    // the archive view (archived=1) and the main table (archived=0, the default) are two lists
    const archived = query.archived === undefined || query.archived === '' ? false : bool(query.archived, 'archived');
    where.push(archived ? `d.state = ${DomainState.Archived}` : `d.state <> ${DomainState.Archived}`);
    if (query.state !== undefined && query.state !== '') {
      const states = String(query.state).split(',').map((s) => Number(s));
      if (!states.every((s) => Number.isInteger(s) && s >= 0 && s <= 7)) throw AppError.validation([{ propertyPath: 'state', message: 'states 0 to 7', code: 'choice' }]);
      values.push(states);
      where.push(`d.state = ANY($${values.length}::smallint[])`);
    }
    if (typeof query.name === 'string' && query.name !== '') {
      values.push(`%${query.name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`d.name LIKE $${values.length}`);
    }
    const cols: Record<string, string> = {
      id: 'd.id',
      name: 'd.name',
      state: 'd.state',
      createdAt: 'd.created_at',
      lastUsedAt: 'd.last_used_at',
      totalUsages: 'd.total_usages',
      ctr: 'CASE WHEN d.total_usages > 0 THEN links.domain_clicks(d.account_id, d.id, d.total_clicks)::float8 / d.total_usages ELSE 0 END',
    };
    const order = Object.entries(q.order).map(([f, d]) => `${cols[f]} ${d} NULLS LAST`).join(', ');
    const rows = await this.ds.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE ${where.join(' AND ')} ORDER BY ${order}, d.id DESC LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM links.domain d WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map(this.dto), total: n };
  }

  /** The account's domain, or 404 (another account's id is not found either). */
  async find(id: string, m: EntityManager | DataSource = this.ds, lock = false): Promise<DomainRow> {
    if (!ID.test(id)) throw AppError.notFound('domain');
    const [row] = await m.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE d.id = $1 AND d.account_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, RequestContext.accountId()]);
    if (!row) throw AppError.notFound('domain');
    return row;
  }

  async get(id: string): Promise<DomainDto> {
    return this.dto(await this.find(id));
  }

  /** Domains a campaign's link variable may choose (spec: domain option id, name, totalUsages): not archived or blocked. */
  async dropdown(query: Record<string, unknown>): Promise<ListResult<DomainOptionDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'totalUsages'], defaultItemsPerPage: 2000, defaultOrder: { name: 'ASC' } });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['d.account_id = $1', `d.state NOT IN (${DomainState.Archived}, ${DomainState.Blocked})`];
    if (query.usable !== undefined && query.usable !== '' && bool(query.usable, 'usable')) where.push(`d.state = ${DomainState.Configured}`);
    if (typeof query.name === 'string' && query.name !== '') {
      values.push(`%${query.name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`d.name LIKE $${values.length}`);
    }
    const cols: Record<string, string> = { id: 'd.id', name: 'd.name', totalUsages: 'd.total_usages' };
    const order = Object.entries(q.order).map(([f, d]) => `${cols[f]} ${d}`).join(', ');
    const rows = await this.ds.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE ${where.join(' AND ')} ORDER BY ${order}, d.id LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM links.domain d WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map(toDomainOption), total: n };
  }

  /** Validates chips (spec 5: required, format rule, no slash) and returns them normalised, without repeats. */
  private names(raw: unknown, path: string): string[] {
    const list = typeof raw === 'string' ? [raw] : raw;
    if (!Array.isArray(list) || list.length === 0) throw AppError.validation([{ propertyPath: path, message: 'at least one domain', code: 'required' }]);
    if (list.length > MAX_DOMAINS_PER_CALL) throw AppError.validation([{ propertyPath: path, message: `at most ${MAX_DOMAINS_PER_CALL} domains at once`, code: 'max' }]);
    const violations: Violation[] = [];
    const out: string[] = [];
    list.forEach((v, i) => {
      if (typeof v !== 'string' || !isDomainName(v)) {
        violations.push({ propertyPath: `${path}[${i}]`, message: 'errors.client.domain: a domain name such as links.example.com, without scheme, path or slash', code: 'domain' });
        return;
      }
      const n = normalizeDomainName(v);
      if (!out.includes(n)) out.push(n);
    });
    if (violations.length) throw AppError.validation(violations);
    return out;
  }

  /**
   * Adds one or many domains (spec 2: the add domain modal). Names the account already has are duplicates
   * (duplicateDomainsFound): without `skipDuplicates` nothing is added and they are answered for the confirm popup;
   * with it the others are added. New domains are pending (2) and checked in DNS at once.
   */
  async addMany(raw: unknown, skipDuplicates: boolean): Promise<DomainBulkResultDto> {
    const names = this.names(raw, 'domains');
    const acc = RequestContext.accountId();
    const result = await this.uow.run(async (m, emit, notify) => {
      // one add at a time per account, so two calls cannot both add the same name past the duplicate check
      await m.query(`SELECT pg_advisory_xact_lock(hashtext('links.domain.add'), hashtext($1))`, [acc]);
      const existing = await m.query<Array<{ name: string }>>(`SELECT name FROM links.domain WHERE account_id = $1 AND name = ANY($2::text[])`, [acc, names]);
      const duplicates = names.filter((n) => existing.some((e) => e.name === n));
      if (duplicates.length && !skipDuplicates) return { rows: [] as DomainRow[], duplicates };
      const fresh = names.filter((n) => !duplicates.includes(n));
      if (!fresh.length) return { rows: [] as DomainRow[], duplicates };
      const [settings] = await m.query<Array<{ messages_limit: string | null }>>(`SELECT messages_limit::text FROM links.account_settings WHERE account_id = $1`, [acc]);
      const limit = settings ? settings.messages_limit : this.options.defaultMessagesLimit;
      const now = this.clock.now();
      const rows = await m.query<DomainRow[]>(
        `INSERT INTO links.domain AS d (account_id, name, state, verification_token, messages_limit, created_at, updated_at, next_check_at)
         SELECT $1, n, ${DomainState.Pending}, t, $4::bigint, $5, $5, $5 FROM unnest($2::text[], $3::text[]) AS x(n, t)
         RETURNING ${DOMAIN_COLUMNS}`,
        [acc, fresh, fresh.map(() => randomBytes(16).toString('hex')), limit, now],
      );
      for (const r of rows) announceDomain(emit, notify, r, now);
      return { rows, duplicates };
    });
    // a few domains are checked in DNS right away; many (and any whose lookup fails) stay pending for the scheduler,
    // which finds them due at once and moves them (the console hears it live)
    const checked = result.rows.length <= CHECK_AT_ONCE ? await Promise.all(result.rows.map((r) => this.verifier.check(acc, r.id).catch(() => r))) : result.rows;
    return { data: checked.map((r, i) => this.dto(r ?? result.rows[i])), duplicates: result.duplicates };
  }

  /** `POST /domains`: one domain; a name the account already has is a 409 (duplicateDomainsFound). */
  async create(body: Record<string, unknown>): Promise<DomainDto> {
    const name = body.name ?? body.domain;
    const r = await this.addMany(typeof name === 'string' ? [name] : name, false);
    if (r.duplicates.length) throw AppError.conflict(`duplicateDomainsFound: ${r.duplicates.join(', ')}`, 'duplicateDomainsFound');
    const [d] = r.data;
    if (body.messagesLimit !== undefined) return this.update(String(d.id), { messagesLimit: body.messagesLimit });
    return d;
  }

  /** `PUT /domains/{id}`: the domain's own messages_limit (the name is fixed: add another domain instead). */
  async update(id: string, body: Record<string, unknown>): Promise<DomainDto> {
    if (body.name !== undefined) {
      const row = await this.find(id);
      if (typeof body.name !== 'string' || normalizeDomainName(body.name) !== row.name) throw AppError.validation([{ propertyPath: 'name', message: 'a domain name cannot change: add the new name and archive this one' }]);
    }
    if (body.messagesLimit === undefined) return this.get(id);
    const limit = parseLimit(body.messagesLimit, 'messagesLimit');
    return this.uow.run(async (m, emit, notify) => {
      const row = await this.find(id, m, true);
      const [after] = await changed<DomainRow>(m, `UPDATE links.domain d SET messages_limit = $2, updated_at = $3 WHERE d.id = $1 RETURNING ${DOMAIN_COLUMNS}`, [row.id, limit, this.clock.now()]);
      announceDomain(emit, notify, after, this.clock.now());
      return this.dto(after);
    });
  }

  /** Checks a domain's DNS now (the console's "check now"). */
  async checkNow(id: string): Promise<DomainDto> {
    const row = await this.find(id);
    if (row.blocked) throw AppError.conflict('the domain is blocked');
    return this.dto((await this.verifier.check(row.account_id, row.id)) ?? row);
  }

  /** Archives (archived true) or restores (false) a domain (spec 4). */
  async archive(id: string, archived: boolean): Promise<DomainDto> {
    const [r] = await this.apply([id], archived ? 'archive' : 'restore', undefined);
    if (!r) throw AppError.notFound('domain');
    return this.dto(r);
  }

  async remove(id: string): Promise<void> {
    await this.find(id);
    await this.apply([id], 'delete', undefined);
  }

  /** The bulk domain action (spec 2): archive, restore, delete, check or set the limit of the chosen domains. */
  async bulk(body: Record<string, unknown>): Promise<{ affected: number; items: DomainDto[] }> {
    if (typeof body.action !== 'string' || !(BULK_ACTIONS as readonly string[]).includes(body.action)) {
      throw AppError.validation([{ propertyPath: 'action', message: `one of ${BULK_ACTIONS.join(', ')}`, code: 'choice' }]);
    }
    const ids = parseIds(body.ids ?? body.domains, 'ids');
    const action = body.action as BulkAction;
    const limit = action === 'set_limit' ? parseLimit(body.messagesLimit, 'messagesLimit') : undefined;
    const rows = await this.apply(ids, action, limit);
    return { affected: rows.length, items: action === 'delete' ? [] : rows.map(this.dto) };
  }

  private async apply(ids: string[], action: BulkAction, limit: number | null | undefined): Promise<DomainRow[]> {
    const acc = RequestContext.accountId();
    if (action === 'check') {
      const rows = await lockless(this.ds, acc, ids);
      const out: DomainRow[] = [];
      for (const r of rows) if (!r.blocked) out.push((await this.verifier.check(acc, r.id)) ?? r);
      return out;
    }
    return this.uow.run(async (m, emit, notify) => {
      const rows = await lockDomains(m, acc, ids);
      const now = this.clock.now();
      const out: DomainRow[] = [];
      for (const r of rows) {
        if (action === 'delete') {
          // links already sent on the domain must keep working: a used domain is archived, never deleted
          if (Number(r.total_usages) > 0) throw AppError.conflict(`${r.name} has carried links: archive it instead`);
          const pools = await m.query<Array<{ pool_id: string }>>(`SELECT pool_id::text FROM links.domain_pool_member WHERE domain_id = $1 ORDER BY pool_id`, [r.id]);
          await m.query(`DELETE FROM links.domain WHERE id = $1`, [r.id]);
          announceDomain(emit, notify, r, now, true);
          // the pools it was in lose a member: their read models hear it too
          for (const p of pools) await announcePool(m, emit, notify, p.pool_id, false, now);
          out.push(r);
          continue;
        }
        let after: DomainRow | undefined;
        if (action === 'archive' && r.state !== DomainState.Archived) {
          [after] = await changed<DomainRow>(m, 
            `UPDATE links.domain d SET state = ${DomainState.Archived}, state_before_archive = state, updated_at = $2 WHERE d.id = $1 RETURNING ${DOMAIN_COLUMNS}`,
            [r.id, now],
          );
        } else if (action === 'restore' && r.state === DomainState.Archived) {
          // back to what it was, DNS checked again at once (the scheduler, or the caller's check)
          const back: DomainStateValue = r.blocked ? DomainState.Blocked : limitAdjusted(r.state_before_archive ?? DomainState.Pending, r.messages_limit, r.total_usages);
          [after] = await changed<DomainRow>(m, 
            `UPDATE links.domain d SET state = $2, state_before_archive = NULL, next_check_at = $3, updated_at = $3 WHERE d.id = $1 RETURNING ${DOMAIN_COLUMNS}`,
            [r.id, back, now],
          );
        } else if (action === 'set_limit') {
          [after] = await changed<DomainRow>(m, `UPDATE links.domain d SET messages_limit = $2, updated_at = $3 WHERE d.id = $1 RETURNING ${DOMAIN_COLUMNS}`, [r.id, limit, now]);
        }
        if (after) {
          if (after.state !== r.state || after.messages_limit !== r.messages_limit) announceDomain(emit, notify, after, now);
          out.push(after);
        } else {
          out.push(r);
        }
      }
      return out;
    });
  }

  /** Blocks or unblocks a domain (state 7; super administrators: abuse). A blocked domain keeps its claim. */
  async block(id: string, blocked: boolean): Promise<DomainDto> {
    if (!ID.test(id)) throw AppError.notFound('domain');
    return this.uow.run(async (m, emit, notify) => {
      const [r] = await m.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE d.id = $1 FOR UPDATE`, [id]);
      if (!r) throw AppError.notFound('domain');
      const now = this.clock.now();
      const state = blocked ? DomainState.Blocked : r.state === DomainState.Blocked ? DomainState.Pending : r.state;
      const [after] = await changed<DomainRow>(m, 
        `UPDATE links.domain d SET blocked = $2, state = $3, next_check_at = $4, updated_at = $4 WHERE d.id = $1 RETURNING ${DOMAIN_COLUMNS}`,
        [id, blocked, state, now],
      );
      announceDomain(emit, notify, after, now);
      return this.dto(after);
    });
  }

  async getLimit(): Promise<{ limit: number | null }> {
    const [s] = await this.ds.query<Array<{ messages_limit: string | null }>>(`SELECT messages_limit::text FROM links.account_settings WHERE account_id = $1`, [RequestContext.accountId()]);
    const v = s ? s.messages_limit : this.options.defaultMessagesLimit;
    return { limit: v === null || v === undefined ? null : Number(v) };
  }

  /** The global limit modal: every domain of the account gets this messages_limit, and new ones will. */
  async setLimit(body: Record<string, unknown>): Promise<{ limit: number | null; affected: number }> {
    if (!('limit' in body)) throw AppError.validation([{ propertyPath: 'limit', message: 'the limit (null for none)', code: 'required' }]);
    const limit = parseLimit(body.limit, 'limit');
    const acc = RequestContext.accountId();
    return this.uow.run(async (m, emit, notify) => {
      const now = this.clock.now();
      await m.query(
        `INSERT INTO links.account_settings (account_id, messages_limit, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET messages_limit = EXCLUDED.messages_limit, updated_at = EXCLUDED.updated_at`,
        [acc, limit, now],
      );
      const before = await m.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE d.account_id = $1 ORDER BY d.id FOR UPDATE`, [acc]);
      const after = await changed<DomainRow>(m, `UPDATE links.domain d SET messages_limit = $2, updated_at = $3 WHERE d.account_id = $1 RETURNING ${DOMAIN_COLUMNS}`, [acc, limit, now]);
      const was = new Map(before.map((r) => [r.id, r]));
      for (const r of after) {
        const b = was.get(r.id);
        if (!b || b.state !== r.state || b.messages_limit !== r.messages_limit) announceDomain(emit, notify, r, now);
      }
      return { limit, affected: after.length };
    });
  }

  async dashboard(): Promise<DomainsDashboardDto> {
    const acc = RequestContext.accountId();
    const rows = await this.ds.query<Array<{ state: number; n: number; usages: string; clicks: string }>>(
      `SELECT state, count(*)::int AS n, sum(total_usages)::text AS usages, sum(links.domain_clicks(account_id, id, total_clicks))::text AS clicks FROM links.domain WHERE account_id = $1 GROUP BY state`,
      [acc],
    );
    const byState: Record<string, number> = Object.fromEntries(Object.values(DomainState).map((s) => [String(s), 0]));
    let usages = 0;
    let clicks = 0;
    for (const r of rows) {
      byState[String(r.state)] = r.n;
      usages += Number(r.usages);
      clicks += Number(r.clicks);
    }
    return { total: rows.reduce((s, r) => s + r.n, 0), byState, totalUsages: usages, totalClicks: clicks, ctr: ctrOf(clicks, usages), messagesLimit: (await this.getLimit()).limit };
  }
}

async function lockless(ds: DataSource, acc: string, ids: string[]): Promise<DomainRow[]> {
  return ds.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE d.account_id = $1 AND d.id = ANY($2::bigint[]) ORDER BY d.id`, [acc, ids]);
}

