import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  OFFER_EXPIRE_METHODS,
  OfferChangedV1,
  offerStateAt,
  type OfferDto,
  type OfferExpireMethod,
  type OfferOptionDto,
  type OfferStateValue,
  type Violation,
} from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult, type UnitOfWorkEmit, type UnitOfWorkNotify } from '@switchboard/platform';
import { Clock } from '../clock';
import { LINKS_CONNECTION } from '../links.options';
import { bool } from './inputs';
import { changed } from './domain-rows';
import { LinksUnitOfWork } from './links-events.service';
import { checkOfferUrl, normalizeOfferUrl, urlVariables } from './offer-url';

interface OfferRow {
  id: string;
  account_id: string;
  name: string;
  original_url: string;
  description: string;
  expire_in_days: number | null;
  expire_method: OfferExpireMethod;
  disabled: boolean;
  variables: string[];
  created_at: Date;
}

const COLUMNS = `o.id::text, o.account_id::text, o.name, o.original_url, o.description, o.expire_in_days, o.expire_method, o.disabled, o.variables, o.created_at`;
const ID = /^\d{1,18}$/;
const DAY_MS = 86_400_000;

const expiresAt = (r: OfferRow): Date | null => (r.expire_method === 'offer_creation' && r.expire_in_days ? new Date(new Date(r.created_at).getTime() + r.expire_in_days * DAY_MS) : null);

@Injectable()
export class OfferService {
  constructor(
    @InjectDataSource(LINKS_CONNECTION) private readonly ds: DataSource,
    private readonly uow: LinksUnitOfWork,
    private readonly clock: Clock,
  ) {}

  private state(r: OfferRow, now = this.clock.now()): OfferStateValue {
    return offerStateAt({ disabled: r.disabled, expireMethod: r.expire_method, expireInDays: r.expire_in_days, createdAt: r.created_at }, now);
  }

  private dto = (r: OfferRow): OfferDto => ({
    id: Number(r.id),
    name: r.name,
    originalUrl: r.original_url,
    expireInDays: r.expire_in_days,
    expireMethod: r.expire_method,
    state: this.state(r),
    disabled: r.disabled,
    variables: r.variables,
    description: r.description,
    createdAt: new Date(r.created_at).toISOString(),
    expiresAt: expiresAt(r)?.toISOString() ?? null,
  });

  async list(query: Record<string, unknown>): Promise<ListResult<OfferDto>> {
    // spec 9: offers are listed 500 a page
    const q = parseListQuery(query, { sortable: ['id', 'name', 'createdAt', 'expireInDays'], defaultItemsPerPage: 500 });
    const values: unknown[] = [RequestContext.accountId(), this.clock.now()];
    const where = ['o.account_id = $1'];
    if (typeof query.name === 'string' && query.name !== '') {
      values.push(`%${query.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`o.name ILIKE $${values.length}`);
    }
    if (query.state !== undefined && query.state !== '') {
      // the state as SQL, the same rule as offerStateAt (spec 4)
      const age = `($2::timestamptz - o.created_at)`;
      const timed = `(NOT o.disabled AND o.expire_method = 'offer_creation' AND o.expire_in_days IS NOT NULL)`;
      const sql: Record<string, string> = {
        disabled: 'o.disabled',
        expired: `${timed} AND ${age} >= o.expire_in_days * interval '1 day'`,
        about_to_expire: `${timed} AND ${age} < o.expire_in_days * interval '1 day' AND ${age} >= (o.expire_in_days - 3) * interval '1 day'`,
        active: `NOT o.disabled AND NOT (${timed} AND ${age} >= (o.expire_in_days - 3) * interval '1 day')`,
      };
      const s = sql[String(query.state)];
      if (!s) throw AppError.validation([{ propertyPath: 'state', message: 'disabled, active, expired or about_to_expire', code: 'choice' }]);
      where.push(`(${s})`);
    }
    const cols: Record<string, string> = { id: 'o.id', name: 'o.name', createdAt: 'o.created_at', expireInDays: 'o.expire_in_days' };
    const order = Object.entries(q.order).map(([f, d]) => `${cols[f]} ${d} NULLS LAST`).join(', ');
    const rows = await this.ds.query<OfferRow[]>(`SELECT ${COLUMNS} FROM links.offer o WHERE ${where.join(' AND ')} AND $2::timestamptz IS NOT NULL ORDER BY ${order}, o.id DESC LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM links.offer o WHERE ${where.join(' AND ')} AND $2::timestamptz IS NOT NULL`, values);
    return { items: rows.map(this.dto), total: n };
  }

  /** Offers a campaign link may use (spec: offer option id, name, originalUrl): neither disabled nor expired. */
  async dropdown(): Promise<ListResult<OfferOptionDto>> {
    const rows = await this.ds.query<OfferRow[]>(`SELECT ${COLUMNS} FROM links.offer o WHERE o.account_id = $1 AND NOT o.disabled ORDER BY o.name, o.id LIMIT 2000`, [RequestContext.accountId()]);
    const now = this.clock.now();
    const items = rows.filter((r) => this.state(r, now) !== 'expired').map((r) => ({ id: Number(r.id), name: r.name, originalUrl: r.original_url, state: this.state(r, now) }));
    return { items, total: items.length };
  }

  private async find(id: string, m: EntityManager | DataSource = this.ds, lock = false): Promise<OfferRow> {
    if (!ID.test(id)) throw AppError.notFound('offer');
    const [row] = await m.query<OfferRow[]>(`SELECT ${COLUMNS} FROM links.offer o WHERE o.id = $1 AND o.account_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, RequestContext.accountId()]);
    if (!row) throw AppError.notFound('offer');
    return row;
  }

  async get(id: string): Promise<OfferDto> {
    return this.dto(await this.find(id));
  }

  private fields(body: Record<string, unknown>, create: boolean) {
    const v: Violation[] = [];
    const out: { name?: string; url?: string; description?: string; days?: number | null; method?: OfferExpireMethod; disabled?: boolean } = {};
    if (body.name !== undefined || create) {
      if (typeof body.name !== 'string' || !body.name.trim() || body.name.length > 255) v.push({ propertyPath: 'name', message: 'the offer name, 1 to 255 characters', code: 'required' });
      else out.name = body.name.trim();
    }
    if (body.originalUrl !== undefined || create) {
      // `{{firstName}}` (the message texts' form) is taken as `{firstName}`
      const url = typeof body.originalUrl === 'string' ? normalizeOfferUrl(body.originalUrl.trim()) : body.originalUrl;
      const e = checkOfferUrl(url);
      if (e.length) v.push(...e);
      else out.url = String(url);
    }
    if (body.description !== undefined && body.description !== null) {
      if (typeof body.description !== 'string' || body.description.length > 2000) v.push({ propertyPath: 'description', message: 'text up to 2000 characters' });
      else out.description = body.description;
    }
    if (body.expireInDays !== undefined) {
      const d = body.expireInDays === null || body.expireInDays === '' ? null : typeof body.expireInDays === 'string' && /^\d{1,5}$/.test(body.expireInDays) ? Number(body.expireInDays) : body.expireInDays;
      if (d !== null && (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > 3650)) v.push({ propertyPath: 'expireInDays', message: 'whole days from 1 to 3650, or null', code: 'minNumber' });
      else out.days = d;
    }
    if (body.expireMethod !== undefined) {
      if (!(OFFER_EXPIRE_METHODS as readonly unknown[]).includes(body.expireMethod)) v.push({ propertyPath: 'expireMethod', message: `one of ${OFFER_EXPIRE_METHODS.join(', ')}`, code: 'choice' });
      else out.method = body.expireMethod as OfferExpireMethod;
    }
    if (body.disabled !== undefined) out.disabled = bool(body.disabled, 'disabled');
    if (body.state !== undefined) {
      if (body.state !== 'disabled' && body.state !== 'active') v.push({ propertyPath: 'state', message: 'disabled or active (expiry follows expireInDays)', code: 'choice' });
      else out.disabled = body.state === 'disabled';
    }
    if (v.length) throw AppError.validation(v);
    return out;
  }

  private check(method: OfferExpireMethod, days: number | null): void {
    if (method !== 'never' && days === null) throw AppError.validation([{ propertyPath: 'expireInDays', message: `expireMethod ${method} needs expireInDays`, code: 'required' }]);
  }

  async create(body: Record<string, unknown>): Promise<OfferDto> {
    const f = this.fields(body, true);
    const days = f.days ?? null;
    const method = f.method ?? (days === null ? 'never' : 'offer_creation');
    this.check(method, days);
    return this.uow.run(async (m, emit, notify) => {
      const now = this.clock.now();
      const [r] = await m.query<OfferRow[]>(
        `INSERT INTO links.offer AS o (account_id, name, original_url, description, expire_in_days, expire_method, disabled, variables, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text[], $9, $9) RETURNING ${COLUMNS}`,
        [RequestContext.accountId(), f.name, f.url, f.description ?? '', days, method, f.disabled ?? false, urlVariables(f.url as string), now],
      );
      this.announce(emit, notify, r, false);
      return this.dto(r);
    });
  }

  async update(id: string, body: Record<string, unknown>): Promise<OfferDto> {
    const f = this.fields(body, false);
    return this.uow.run(async (m, emit, notify) => {
      const r = await this.find(id, m, true);
      const days = f.days !== undefined ? f.days : r.expire_in_days;
      const method = f.method ?? (f.days === null && r.expire_method !== 'never' ? 'never' : r.expire_method);
      this.check(method, days);
      const url = f.url ?? r.original_url;
      const [after] = await changed<OfferRow>(m, 
        `UPDATE links.offer o SET name = $2, original_url = $3, description = $4, expire_in_days = $5, expire_method = $6, disabled = $7, variables = $8::text[], updated_at = $9
         WHERE o.id = $1 RETURNING ${COLUMNS}`,
        [r.id, f.name ?? r.name, url, f.description ?? r.description, days, method, f.disabled ?? r.disabled, urlVariables(url), this.clock.now()],
      );
      this.announce(emit, notify, after, false);
      return this.dto(after);
    });
  }

  async remove(id: string): Promise<void> {
    await this.uow.run(async (m, emit, notify) => {
      const r = await this.find(id, m, true);
      await m.query(`DELETE FROM links.offer WHERE id = $1`, [r.id]);
      this.announce(emit, notify, r, true);
    });
  }

  private announce(emit: UnitOfWorkEmit, notify: UnitOfWorkNotify, r: OfferRow, deleted: boolean): void {
    emit(
      OfferChangedV1,
      {
        accountId: r.account_id,
        offerId: r.id,
        name: r.name,
        originalUrl: r.original_url,
        expireInDays: r.expire_in_days,
        expireMethod: r.expire_method,
        disabled: r.disabled,
        expiresAt: expiresAt(r)?.toISOString() ?? null,
        deleted,
        changedAt: this.clock.now().toISOString(),
      },
      r.account_id,
    );
    notify({ accountId: r.account_id, type: deleted ? 'offer.deleted' : 'offer.changed', data: { id: Number(r.id) } });
  }
}
