import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  DomainDistribution,
  DomainPoolChangedV1,
  DomainState,
  type DomainDistributionValue,
  type DomainDto,
  type DomainPoolDto,
  type DomainPoolOptionDto,
  type DomainPoolsDashboardDto,
} from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult, type UnitOfWorkEmit, type UnitOfWorkNotify } from '@switchboard/platform';
import { Clock } from '../clock';
import { LINKS_CONNECTION, LINKS_OPTIONS, type ResolvedLinksOptions } from '../links.options';
import { ctrOf, DOMAIN_COLUMNS, toDomainDto, toDomainOption, type DomainRow, changed } from './domain-rows';
import { parseIds } from './inputs';
import { LinksUnitOfWork } from './links-events.service';

interface PoolRow {
  id: string;
  account_id: string;
  name: string;
  description: string;
  distribution: DomainDistributionValue;
  usages: string;
  created_at: Date;
}

const POOL_COLUMNS = `p.id::text, p.account_id::text, p.name, p.description, p.distribution, p.usages::text, p.created_at`;
const ID = /^\d{1,18}$/;

@Injectable()
export class PoolService {
  constructor(
    @InjectDataSource(LINKS_CONNECTION) private readonly ds: DataSource,
    @Inject(LINKS_OPTIONS) private readonly options: ResolvedLinksOptions,
    private readonly uow: LinksUnitOfWork,
    private readonly clock: Clock,
  ) {}

  private async members(m: EntityManager | DataSource, poolIds: string[]): Promise<Map<string, Array<DomainRow & { pool_id: string }>>> {
    const out = new Map<string, Array<DomainRow & { pool_id: string }>>();
    if (!poolIds.length) return out;
    const rows = await m.query<Array<DomainRow & { pool_id: string }>>(
      `SELECT pm.pool_id::text, ${DOMAIN_COLUMNS} FROM links.domain_pool_member pm JOIN links.domain d ON d.id = pm.domain_id
       WHERE pm.pool_id = ANY($1::bigint[]) ORDER BY pm.pool_id, pm.position, d.id`,
      [poolIds],
    );
    for (const r of rows) out.set(r.pool_id, [...(out.get(r.pool_id) ?? []), r]);
    return out;
  }

  private toDto(p: PoolRow, domains: DomainRow[]): DomainPoolDto {
    // the pool's CTR is its domains' clicks over their usages (a domain's counters, whichever pool used it)
    const usages = domains.reduce((s, d) => s + Number(d.total_usages), 0);
    const clicks = domains.reduce((s, d) => s + Number(d.total_clicks), 0);
    return {
      id: Number(p.id),
      name: p.name,
      description: p.description,
      distribution: p.distribution,
      totalDomains: domains.length,
      validDomains: domains.filter((d) => d.state === DomainState.Configured).length,
      ctr: ctrOf(clicks, usages),
      usages: Number(p.usages),
      clicks,
      domains: domains.map(toDomainOption),
      createdAt: new Date(p.created_at).toISOString(),
    };
  }

  async list(query: Record<string, unknown>): Promise<ListResult<DomainPoolDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'usages', 'createdAt'] });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['p.account_id = $1'];
    if (typeof query.name === 'string' && query.name !== '') {
      values.push(`%${query.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`p.name ILIKE $${values.length}`);
    }
    const cols: Record<string, string> = { id: 'p.id', name: 'p.name', usages: 'p.usages', createdAt: 'p.created_at' };
    const order = Object.entries(q.order).map(([f, d]) => `${cols[f]} ${d}`).join(', ');
    const rows = await this.ds.query<PoolRow[]>(`SELECT ${POOL_COLUMNS} FROM links.domain_pool p WHERE ${where.join(' AND ')} ORDER BY ${order}, p.id DESC LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM links.domain_pool p WHERE ${where.join(' AND ')}`, values);
    const members = await this.members(this.ds, rows.map((r) => r.id));
    return { items: rows.map((r) => this.toDto(r, members.get(r.id) ?? [])), total: n };
  }

  async dropdown(): Promise<ListResult<DomainPoolOptionDto>> {
    const rows = await this.ds.query<Array<PoolRow & { n: number }>>(
      `SELECT ${POOL_COLUMNS}, (SELECT count(*)::int FROM links.domain_pool_member pm WHERE pm.pool_id = p.id) AS n FROM links.domain_pool p WHERE p.account_id = $1 ORDER BY p.name, p.id LIMIT 2000`,
      [RequestContext.accountId()],
    );
    return { items: rows.map((r) => ({ id: Number(r.id), name: r.name, totalDomains: r.n, usages: Number(r.usages) })), total: rows.length };
  }

  private async find(id: string, m: EntityManager | DataSource = this.ds, lock = false): Promise<PoolRow> {
    if (!ID.test(id)) throw AppError.notFound('domain pool');
    const [row] = await m.query<PoolRow[]>(`SELECT ${POOL_COLUMNS} FROM links.domain_pool p WHERE p.id = $1 AND p.account_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, RequestContext.accountId()]);
    if (!row) throw AppError.notFound('domain pool');
    return row;
  }

  async get(id: string): Promise<DomainPoolDto> {
    const p = await this.find(id);
    return this.toDto(p, (await this.members(this.ds, [p.id])).get(p.id) ?? []);
  }

  /** The pool info modal's table: the pool's domains with their states, usages and CTR. */
  async domains(id: string): Promise<ListResult<DomainDto>> {
    const p = await this.find(id);
    const rows = (await this.members(this.ds, [p.id])).get(p.id) ?? [];
    return { items: rows.map((r) => toDomainDto(r, this.options.dns)), total: rows.length };
  }

  async maxDomainsPerPool(m: EntityManager | DataSource = this.ds): Promise<number> {
    const [s] = await m.query<Array<{ max_domains_per_pool: number | null }>>(`SELECT max_domains_per_pool FROM links.account_settings WHERE account_id = $1`, [RequestContext.accountId()]);
    return s?.max_domains_per_pool ?? this.options.maxDomainsPerPool;
  }

  async setMaxDomainsPerPool(body: Record<string, unknown>): Promise<{ maxDomainsPerPool: number }> {
    const v = body.maxDomainsPerPool ?? body.max_domains_per_pool;
    const n = typeof v === 'string' && /^\d{1,6}$/.test(v) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 100_000) throw AppError.validation([{ propertyPath: 'maxDomainsPerPool', message: 'a whole number from 1', code: 'minNumber' }]);
    await this.ds.query(
      `INSERT INTO links.account_settings (account_id, max_domains_per_pool, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET max_domains_per_pool = EXCLUDED.max_domains_per_pool, updated_at = EXCLUDED.updated_at`,
      [RequestContext.accountId(), n, this.clock.now()],
    );
    return { maxDomainsPerPool: n };
  }

  private fields(body: Record<string, unknown>, create: boolean): { name?: string; description?: string; distribution?: DomainDistributionValue } {
    const out: { name?: string; description?: string; distribution?: DomainDistributionValue } = {};
    if (body.name !== undefined || create) {
      if (typeof body.name !== 'string' || !body.name.trim() || body.name.length > 255) throw AppError.validation([{ propertyPath: 'name', message: 'the pool name, 1 to 255 characters', code: 'required' }]);
      out.name = body.name.trim();
    }
    if (body.description !== undefined) {
      if (typeof body.description !== 'string' || body.description.length > 2000) throw AppError.validation([{ propertyPath: 'description', message: 'text up to 2000 characters' }]);
      out.description = body.description;
    }
    if (body.distribution !== undefined) {
      const d = Number(body.distribution);
      if (d !== DomainDistribution.SpreadEvenly && d !== DomainDistribution.OneByOne) throw AppError.validation([{ propertyPath: 'distribution', message: '10 (spread evenly) or 1 (one by one)', code: 'choice' }]);
      out.distribution = d;
    }
    return out;
  }

  /** Creates a pool (spec 2: create pool, or "new pool" in the add domain to pool modal), with its first domains. */
  async create(body: Record<string, unknown>): Promise<DomainPoolDto> {
    const f = this.fields(body, true);
    const ids = body.domains === undefined || (Array.isArray(body.domains) && body.domains.length === 0) ? [] : parseIds(body.domains, 'domains');
    const acc = RequestContext.accountId();
    const id = await this.uow.run(async (m, emit, notify) => {
      const now = this.clock.now();
      const [p] = await m.query<PoolRow[]>(
        `INSERT INTO links.domain_pool AS p (account_id, name, description, distribution, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5) RETURNING ${POOL_COLUMNS}`,
        [acc, f.name, f.description ?? '', f.distribution ?? DomainDistribution.SpreadEvenly, now],
      );
      await this.addMembers(m, p, ids);
      await this.announce(m, emit, notify, p.id, false);
      return p.id;
    });
    return this.get(id);
  }

  async update(id: string, body: Record<string, unknown>): Promise<DomainPoolDto> {
    const f = this.fields(body, false);
    await this.uow.run(async (m, emit, notify) => {
      const p = await this.find(id, m, true);
      await m.query(
        `UPDATE links.domain_pool SET name = COALESCE($2, name), description = COALESCE($3, description), distribution = COALESCE($4, distribution), updated_at = $5 WHERE id = $1`,
        [p.id, f.name ?? null, f.description ?? null, f.distribution ?? null, this.clock.now()],
      );
      // `domains` on update replaces the members (the pool edit form)
      if (body.domains !== undefined) {
        const ids = Array.isArray(body.domains) && body.domains.length === 0 ? [] : parseIds(body.domains, 'domains');
        await m.query(`DELETE FROM links.domain_pool_member WHERE pool_id = $1 AND NOT (domain_id = ANY($2::bigint[]))`, [p.id, ids]);
        await this.addMembers(m, p, ids);
      }
      await this.announce(m, emit, notify, p.id, false);
    });
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    await this.uow.run(async (m, emit, notify) => {
      const p = await this.find(id, m, true);
      await this.announce(m, emit, notify, p.id, true);
      await m.query(`DELETE FROM links.domain_pool WHERE id = $1`, [p.id]);
    });
  }

  /** The add domain to pool modal: adds the chosen domains to an existing pool (at the end, in the order given). */
  async addDomains(id: string, body: Record<string, unknown>): Promise<DomainPoolDto> {
    const ids = parseIds(body.domains ?? body.ids, 'domains');
    await this.uow.run(async (m, emit, notify) => {
      const p = await this.find(id, m, true);
      await this.addMembers(m, p, ids);
      await this.announce(m, emit, notify, p.id, false);
    });
    return this.get(id);
  }

  async removeDomain(id: string, domainId: string): Promise<DomainPoolDto> {
    if (!ID.test(domainId)) throw AppError.notFound('domain');
    await this.uow.run(async (m, emit, notify) => {
      const p = await this.find(id, m, true);
      const r = await changed<unknown>(m, `DELETE FROM links.domain_pool_member WHERE pool_id = $1 AND domain_id = $2 RETURNING 1`, [p.id, domainId]);
      if (!r.length) throw AppError.notFound('domain in this pool');
      await this.announce(m, emit, notify, p.id, false);
    });
    return this.get(id);
  }

  /** Adds domains of the pool's account (another account's id is a 404) not yet members, within max_domains_per_pool. */
  private async addMembers(m: EntityManager, p: PoolRow, ids: string[]): Promise<void> {
    if (!ids.length) return;
    const found = await m.query<Array<{ id: string; state: number }>>(`SELECT id::text, state FROM links.domain WHERE account_id = $1 AND id = ANY($2::bigint[])`, [p.account_id, ids]);
    const missing = ids.filter((i) => !found.some((f) => f.id === i));
    if (missing.length) throw AppError.notFound(`domain ${missing.join(', ')}`);
    if (found.some((f) => f.state === DomainState.Archived)) throw AppError.validation([{ propertyPath: 'domains', message: 'archived domains cannot join a pool: restore them first' }]);
    const [{ n, pos }] = await m.query<Array<{ n: number; pos: number }>>(
      `SELECT count(*) FILTER (WHERE NOT (domain_id = ANY($2::bigint[])))::int AS n, coalesce(max(position), 0)::int AS pos FROM links.domain_pool_member WHERE pool_id = $1`,
      [p.id, ids],
    );
    const max = await this.maxDomainsPerPool(m);
    if (n + ids.length > max) throw AppError.validation([{ propertyPath: 'domains', message: `a pool holds at most ${max} domains (max_domains_per_pool)`, code: 'maxNumber' }]);
    await m.query(
      `INSERT INTO links.domain_pool_member (pool_id, domain_id, account_id, position, added_at)
       SELECT $1, d, $2, $3 + o, $5 FROM unnest($4::bigint[]) WITH ORDINALITY AS x(d, o) ON CONFLICT (pool_id, domain_id) DO NOTHING`,
      [p.id, p.account_id, pos, ids, this.clock.now()],
    );
  }

  private async announce(m: EntityManager, emit: UnitOfWorkEmit, notify: UnitOfWorkNotify, poolId: string, deleted: boolean): Promise<void> {
    await announcePool(m, emit, notify, poolId, deleted, this.clock.now());
  }

  async dashboard(): Promise<DomainPoolsDashboardDto> {
    const acc = RequestContext.accountId();
    const [r] = await this.ds.query<Array<{ total: number; usages: string }>>(`SELECT count(*)::int AS total, coalesce(sum(usages), 0)::text AS usages FROM links.domain_pool WHERE account_id = $1`, [acc]);
    const [d] = await this.ds.query<Array<{ domains: number; clicks: string; dusages: string; invalid: number }>>(
      `SELECT (SELECT count(*)::int FROM links.domain_pool_member pm WHERE pm.account_id = $1) AS domains,
              (SELECT coalesce(sum(links.domain_clicks(d.account_id, d.id, d.total_clicks)), 0)::text FROM links.domain d WHERE d.account_id = $1 AND EXISTS (SELECT 1 FROM links.domain_pool_member pm WHERE pm.domain_id = d.id)) AS clicks,
              (SELECT coalesce(sum(d.total_usages), 0)::text FROM links.domain d WHERE d.account_id = $1 AND EXISTS (SELECT 1 FROM links.domain_pool_member pm WHERE pm.domain_id = d.id)) AS dusages,
              (SELECT count(*)::int FROM links.domain_pool p WHERE p.account_id = $1 AND NOT EXISTS (
                 SELECT 1 FROM links.domain_pool_member pm JOIN links.domain d ON d.id = pm.domain_id WHERE pm.pool_id = p.id AND d.state = ${DomainState.Configured})) AS invalid`,
      [acc],
    );
    return {
      total: r.total,
      totalDomains: d.domains,
      usages: Number(r.usages),
      clicks: Number(d.clicks),
      ctr: ctrOf(Number(d.clicks), Number(d.dusages)),
      withoutValidDomains: d.invalid,
      maxDomainsPerPool: await this.maxDomainsPerPool(),
    };
  }
}

/** Publishes a pool's state (links.domain_pool.changed) in the unit of work, and tells the account's open consoles. */
export async function announcePool(m: Pick<EntityManager, 'query'>, emit: UnitOfWorkEmit, notify: UnitOfWorkNotify, poolId: string, deleted: boolean, now: Date): Promise<void> {
  const [p] = await m.query<PoolRow[]>(`SELECT ${POOL_COLUMNS} FROM links.domain_pool p WHERE p.id = $1`, [poolId]);
  if (!p) return;
  const members = await m.query<Array<{ domain_id: string }>>(`SELECT domain_id::text FROM links.domain_pool_member WHERE pool_id = $1 ORDER BY position, domain_id`, [poolId]);
  emit(
    DomainPoolChangedV1,
    { accountId: p.account_id, poolId: p.id, name: p.name, distribution: p.distribution, domainIds: deleted ? [] : members.map((x) => x.domain_id), deleted, changedAt: now.toISOString() },
    p.account_id,
  );
  notify({ accountId: p.account_id, type: deleted ? 'domain_pool.deleted' : 'domain_pool.changed', data: { id: Number(p.id) } });
}
