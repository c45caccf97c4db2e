import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { WEBHOOK_TRIGGERS, type Violation, type WebhookDto, type WebhookParams, type WebhookTriggerValue } from '@switchboard/contracts';
import { AppError, checkUrlShape, classifyAddressForUrl, DestinationRefused, parseListQuery, ProviderSecrets, RequestContext, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import { newSigningSecret } from '../delivery/signature';
import type { WebhookInputDto } from '../dtos/webhook.dto';
import { WEBHOOKS_CONNECTION, WEBHOOKS_OPTIONS, type ResolvedWebhooksOptions } from '../webhooks.options';
import { ActiveWebhooks } from './active-webhooks';

export interface WebhookRow {
  id: string;
  uid: string;
  account_id: string;
  name: string;
  url: string;
  http_method: 'GET' | 'POST';
  headers: Record<string, string>;
  active: boolean;
  trigger: WebhookTriggerValue;
  stream_ids: string[];
  params: Partial<WebhookParams>;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export const DEFAULT_PARAMS: WebhookParams = { send_bulk: false, include_message_text: true, include_contact_details: false, include_lead_id: false };
export const paramsOf = (row: Pick<WebhookRow, 'params'>): WebhookParams => ({ ...DEFAULT_PARAMS, ...row.params });

/** Headers a webhook may not set: the transport's own and the signature's. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-connection', 'expect', 'webhook-id', 'webhook-timestamp', 'webhook-signature']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,4096}$/;

export function toDto(r: WebhookRow): WebhookDto {
  return {
    id: Number(r.id),
    name: r.name,
    url: r.url,
    httpMethod: r.http_method,
    headers: r.headers,
    active: r.active,
    trigger: r.trigger,
    filter: { stream_id: r.stream_ids.map(Number) },
    params: paramsOf(r),
    disabledReason: r.disabled_reason,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

const SELECT = `SELECT id::text, uid::text, account_id::text, name, url, http_method, headers, active, trigger, stream_ids::text[] AS stream_ids, params,
  secret_sealed, previous_secret_sealed, previous_secret_until, failing_since, disabled_reason, created_at, updated_at FROM webhooks.webhook`;

@Injectable()
export class WebhookService {
  readonly secrets: ProviderSecrets;

  constructor(
    @InjectDataSource(WEBHOOKS_CONNECTION) private readonly ds: DataSource,
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly clock: Clock,
    private readonly active: ActiveWebhooks,
  ) {
    this.secrets = new ProviderSecrets(`webhooks:${options.secret}`);
  }

  /** The signing secrets a delivery of this webhook is signed with now (the previous one too, within its overlap). */
  signingSecrets(row: WebhookRow, now: Date): string[] {
    const out = [this.secrets.open(`webhook:${row.uid}`, row.secret_sealed).secret];
    if (row.previous_secret_sealed && row.previous_secret_until && new Date(row.previous_secret_until) > now) out.push(this.secrets.open(`webhook:${row.uid}`, row.previous_secret_sealed).secret);
    return out;
  }

  async list(query: Record<string, unknown>): Promise<ListResult<WebhookDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'trigger', 'active', 'createdAt'], defaultItemsPerPage: 2000, maxItemsPerPage: 2000 });
    const acc = RequestContext.accountId();
    const where = ['account_id = $1'];
    const values: unknown[] = [acc];
    if (query.trigger !== undefined && query.trigger !== '') {
      if (!WEBHOOK_TRIGGERS.includes(query.trigger as WebhookTriggerValue)) throw AppError.validation([{ propertyPath: 'trigger', message: `trigger is one of ${WEBHOOK_TRIGGERS.join(', ')}`, code: 'choice' }]);
      values.push(query.trigger);
      where.push(`trigger = $${values.length}`);
    }
    if (query.active !== undefined && query.active !== '') {
      values.push(bool(query.active, 'active'));
      where.push(`active = $${values.length}`);
    }
    if (typeof query.name === 'string' && query.name !== '') {
      values.push(`%${query.name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`name ILIKE $${values.length}`);
    }
    const cols: Record<string, string> = { id: 'webhook.id', name: 'webhook.name', trigger: 'webhook.trigger', active: 'webhook.active', createdAt: 'webhook.created_at' };
    const order = Object.entries(q.order).map(([f, d]) => `${cols[f]} ${d}`).join(', ');
    const rows = await this.ds.query<WebhookRow[]>(`${SELECT} WHERE ${where.join(' AND ')} ORDER BY ${order}, webhook.id DESC LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM webhooks.webhook WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map(toDto), total: n };
  }

  /** The account's webhook, or 404 (another account's id is not found either). */
  async find(id: string): Promise<WebhookRow> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('webhook');
    const [row] = await this.ds.query<WebhookRow[]>(`${SELECT} WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId()]);
    if (!row) throw AppError.notFound('webhook');
    return row;
  }

  async get(id: string): Promise<WebhookDto> {
    return toDto(await this.find(id));
  }

  async create(dto: WebhookInputDto): Promise<WebhookDto> {
    const acc = RequestContext.accountId();
    const v = this.validate(dto, true);
    const uid = randomUUID();
    const secret = newSigningSecret();
    const now = this.clock.now();
    const [row] = await this.ds.query<WebhookRow[]>(
      `INSERT INTO webhooks.webhook (uid, account_id, name, url, http_method, headers, active, trigger, stream_ids, params, secret_sealed, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::bigint[], $10, $11, $12, $12)
       RETURNING id::text, uid::text, account_id::text, name, url, http_method, headers, active, trigger, stream_ids::text[] AS stream_ids, params, secret_sealed,
                 previous_secret_sealed, previous_secret_until, failing_since, disabled_reason, created_at, updated_at`,
      [uid, acc, v.name, v.url, v.httpMethod ?? 'POST', JSON.stringify(v.headers ?? {}), v.active ?? true, v.trigger, v.streamIds ?? [], JSON.stringify({ ...DEFAULT_PARAMS, ...v.params }), this.secrets.seal(`webhook:${uid}`, { secret }), now],
    );
    this.active.forget(String(acc));
    return { ...toDto(row), secret };
  }

  async update(id: string, dto: WebhookInputDto): Promise<WebhookDto> {
    const row = await this.find(id);
    const v = this.validate(dto, false);
    const params = v.params ? { ...paramsOf(row), ...v.params } : undefined;
    const reenabled = v.active === true && !row.active;
    const [updated] = returned<WebhookRow>(await this.ds.query(
      `UPDATE webhooks.webhook SET name = coalesce($3, name), url = coalesce($4, url), http_method = coalesce($5, http_method), headers = coalesce($6::jsonb, headers),
              active = coalesce($7, active), trigger = coalesce($8, trigger), stream_ids = coalesce($9::bigint[], stream_ids), params = coalesce($10::jsonb, params),
              disabled_reason = CASE WHEN $11 THEN NULL ELSE disabled_reason END, failing_since = CASE WHEN $11 THEN NULL ELSE failing_since END, updated_at = $12
        WHERE id = $1 AND account_id = $2
        RETURNING id::text, uid::text, account_id::text, name, url, http_method, headers, active, trigger, stream_ids::text[] AS stream_ids, params, secret_sealed,
                  previous_secret_sealed, previous_secret_until, failing_since, disabled_reason, created_at, updated_at`,
      [row.id, row.account_id, v.name ?? null, v.url ?? null, v.httpMethod ?? null, v.headers ? JSON.stringify(v.headers) : null, v.active ?? null, v.trigger ?? null, v.streamIds ?? null, params ? JSON.stringify(params) : null, reenabled, this.clock.now()],
    ));
    this.active.forget(row.account_id);
    return toDto(updated);
  }

  async remove(id: string): Promise<void> {
    const row = await this.find(id);
    await this.ds.transaction(async (m) => {
      // the log has no foreign key (migration 1797200000000): its rows go with the webhook, as the cascade did
      await m.query(`DELETE FROM webhooks.webhook WHERE id = $1 AND account_id = $2`, [row.id, row.account_id]);
      await m.query(`DELETE FROM webhooks.request_log WHERE webhook_id = $1`, [row.id]);
    });
    this.active.forget(row.account_id);
  }

  /** A new signing secret, answered once; the old one keeps signing beside it for the overlap window. */
  async rotateSecret(id: string): Promise<{ id: number; secret: string; previousSecretValidUntil: string }> {
    const row = await this.find(id);
    const secret = newSigningSecret();
    const until = new Date(this.clock.now().getTime() + this.options.secretOverlapMs);
    await this.ds.query(
      `UPDATE webhooks.webhook SET previous_secret_sealed = secret_sealed, previous_secret_until = $3, secret_sealed = $4, updated_at = $5 WHERE id = $1 AND account_id = $2`,
      [row.id, row.account_id, until, this.secrets.seal(`webhook:${row.uid}`, { secret }), this.clock.now()],
    );
    return { id: Number(row.id), secret, previousSecretValidUntil: until.toISOString() };
  }

  private validate(dto: WebhookInputDto, creating: boolean) {
    const violations: Violation[] = [];
    const bad = (propertyPath: string, message: string, code: string) => violations.push({ propertyPath, message, code });
    const out: { name?: string; url?: string; httpMethod?: 'GET' | 'POST'; headers?: Record<string, string>; active?: boolean; trigger?: WebhookTriggerValue; streamIds?: string[]; params?: Partial<WebhookParams> } = {};
    if (dto.name !== undefined) {
      if (!dto.name.trim()) bad('name', 'name must not be blank', 'required');
      else out.name = dto.name.trim();
    } else if (creating) bad('name', 'name is required', 'required');
    if (dto.url !== undefined) {
      const url = dto.url.trim();
      try {
        checkUrlShape(url, this.options);
        const refusal = classifyAddressForUrl(url, this.options);
        if (refusal) bad('url', refusal, 'url');
        else out.url = url;
      } catch (e) {
        if (e instanceof DestinationRefused) bad('url', e.message, 'url');
        else throw e;
      }
    } else if (creating) bad('url', 'url is required', 'required');
    if (dto.httpMethod !== undefined) out.httpMethod = dto.httpMethod.toUpperCase() as 'GET' | 'POST';
    if (dto.trigger !== undefined) out.trigger = dto.trigger as WebhookTriggerValue;
    else if (creating) bad('trigger', 'trigger is required', 'required');
    if (dto.active !== undefined) {
      try {
        out.active = bool(dto.active, 'active');
      } catch {
        bad('active', 'active is true or false (1 or 0)', 'boolean');
      }
    }
    if (dto.headers !== undefined && dto.headers !== null) {
      const h = dto.headers;
      if (typeof h !== 'object' || Array.isArray(h)) bad('headers', 'headers is an object of header names to values', 'type');
      else {
        const headers: Record<string, string> = {};
        const entries = Object.entries(h as Record<string, unknown>);
        if (entries.length > 50) bad('headers', 'at most 50 headers', 'max');
        for (const [k, val] of entries) {
          if (!HEADER_NAME.test(k)) bad(`headers.${k}`, 'not a valid header name', 'invalidKey');
          else if (RESERVED_HEADERS.has(k.toLowerCase())) bad(`headers.${k}`, `${k} is set by the delivery and cannot be overridden`, 'reserved');
          else if (typeof val !== 'string' || !HEADER_VALUE.test(val)) bad(`headers.${k}`, 'a header value is text of at most 4096 characters, without line breaks', 'invalidValue');
          else headers[k.toLowerCase()] = val;
        }
        out.headers = headers;
      }
    }
    if (dto.filter !== undefined && dto.filter !== null) {
      const f = dto.filter as { stream_id?: unknown };
      const ids = typeof f === 'object' && !Array.isArray(f) ? f.stream_id : undefined;
      if (ids === undefined || ids === null) out.streamIds = [];
      else if (!Array.isArray(ids) || !ids.every((x) => (typeof x === 'number' && Number.isInteger(x) && x > 0) || (typeof x === 'string' && /^\d{1,18}$/.test(x)))) bad('filter.stream_id', 'stream_id is a list of stream ids', 'type');
      else if (ids.length > 1000) bad('filter.stream_id', 'at most 1000 streams', 'max');
      else out.streamIds = [...new Set(ids.map(String))];
    }
    if (dto.params !== undefined && dto.params !== null) {
      const p = dto.params as Record<string, unknown>;
      if (typeof p !== 'object' || Array.isArray(p)) bad('params', 'params is an object', 'type');
      else {
        const params: Partial<WebhookParams> = {};
        for (const [k, val] of Object.entries(p)) {
          if (!(k in DEFAULT_PARAMS)) bad(`params.${k}`, `unknown param (${Object.keys(DEFAULT_PARAMS).join(', ')})`, 'unknown');
          else {
            try {
              params[k as keyof WebhookParams] = bool(val, `params.${k}`);
            } catch {
              bad(`params.${k}`, `${k} is true or false`, 'boolean');
            }
          }
        }
        out.params = params;
      }
    }
    if (violations.length) throw AppError.validation(violations);
    return out;
  }
}

export function bool(v: unknown, field: string): boolean {
  if (v === true || v === 1 || v === '1' || v === 'true') return true;
  if (v === false || v === 0 || v === '0' || v === 'false') return false;
  throw AppError.validation([{ propertyPath: field, message: `${field} is true or false (1 or 0)`, code: 'boolean' }]);
}

/** TypeORM answers an UPDATE ... RETURNING on PostgreSQL as `[rows, affected]`. */
export function returned<R>(result: unknown): R[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as R[];
  return result as R[];
}
