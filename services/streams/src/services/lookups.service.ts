import { Inject, Injectable } from '@nestjs/common';
import { IpAcl } from '../rules/ip-acl';
import { KeywordMatcher } from '../rules/keywords';
import { tokenHash } from '../rules/secret-box';
import { providerConfigured, type PublicParams } from '../rules/stream-params';
import { TtlCache } from '../rules/ttl-cache';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import { SendDatabase } from './send-database';

/** What the send path needs of a stream, resolved from its token. */
export interface ActiveStream {
  id: string;
  accountId: string;
  streamUid: string;
  name: string;
  streamType: number;
  status: number;
  enableSending: boolean;
  sender: string | null;
  params: PublicParams;
  acl: IpAcl;
  /** Whether the ACL is enforced (params.check_ip_acl, default on). */
  checkIpAcl: boolean;
  providerReady: boolean;
}

export interface CustomerView {
  accountId: string;
  status: string;
  active: number;
  currency: string;
  tps: number;
  dailyLimit: number | null;
  settings: Record<string, unknown>;
}

interface StreamRow {
  id: string;
  account_id: string;
  stream_uid: string;
  name: string;
  stream_type: number;
  status: number;
  enable_sending: boolean;
  sender: string | null;
  params: PublicParams;
  ip_acl: string[];
  secret_fields: string[];
}

/**
 * Cached lookups of the send path: stream by token, customer, approved senders, the keyword list. Entries live
 * `cacheTtlMs` (other processes' changes show within that time); this process's own writes invalidate at once.
 */
@Injectable()
export class LookupsService {
  private readonly streams: TtlCache<string, ActiveStream | null>;
  private readonly customers: TtlCache<string, CustomerView | null>;
  private readonly senders: TtlCache<string, Set<string>>;
  private readonly keywords: TtlCache<'global', KeywordMatcher>;

  constructor(
    private readonly db: SendDatabase,
    @Inject(STREAMS_OPTIONS) o: ResolvedStreamsOptions,
  ) {
    this.streams = new TtlCache(o.cacheTtlMs);
    this.customers = new TtlCache(o.cacheTtlMs);
    this.senders = new TtlCache(o.cacheTtlMs, 10_000);
    this.keywords = new TtlCache(o.cacheTtlMs, 1);
  }

  /**
   * The cached stream of a token (null: no such stream), undefined when not cached. Keyed by the token itself, not
   * its hash: a hash a request would cost more than the lookup, and the process holds each token while it serves it.
   */
  cachedStreamByToken(token: string): ActiveStream | null | undefined {
    return this.streams.get(token);
  }

  async streamByToken(token: string): Promise<ActiveStream | null> {
    const cached = this.streams.get(token);
    if (cached !== undefined) return cached;
    const key = tokenHash(token);
    const [row] = await this.db.query<StreamRow>(
      `SELECT id::text, account_id::text, stream_uid::text, name, stream_type, status, enable_sending, sender, params, ip_acl,
              provider_secret_fields AS secret_fields
         FROM streams.stream WHERE token_hash = $1 AND deleted_at IS NULL`,
      [key],
    );
    const stream = row ? this.toActive(row) : null;
    this.streams.set(token, stream);
    return stream;
  }

  /** A stream of the account by id (send batches name their stream); null when it is not the account's or deleted. */
  async streamById(id: string, accountId: string): Promise<ActiveStream | null> {
    const cacheKey = `#${accountId}:${id}`;
    const cached = this.streams.get(cacheKey);
    if (cached !== undefined) return cached;
    const [row] = await this.db.query<StreamRow>(
      `SELECT id::text, account_id::text, stream_uid::text, name, stream_type, status, enable_sending, sender, params, ip_acl,
              provider_secret_fields AS secret_fields
         FROM streams.stream WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
      [id, accountId],
    );
    const stream = row ? this.toActive(row) : null;
    this.streams.set(cacheKey, stream);
    return stream;
  }

  private toActive(r: StreamRow): ActiveStream {
    const params = r.params ?? {};
    // The send path only needs to know which secrets are set, not their values.
    const present = new Set(r.secret_fields ?? []);
    const secretFlags = { auth_token: present.has('auth_token') ? 'x' : undefined, otp_code: present.has('otp_code') ? 'x' : undefined };
    return {
      id: r.id,
      accountId: r.account_id,
      streamUid: r.stream_uid,
      name: r.name,
      streamType: r.stream_type,
      status: r.status,
      enableSending: r.enable_sending,
      sender: r.sender,
      params,
      acl: new IpAcl(r.ip_acl ?? []),
      checkIpAcl: params.check_ip_acl !== 0,
      providerReady: providerConfigured(r.stream_type, params, secretFlags),
    };
  }

  /** The cached customer (null: none), undefined when not cached. */
  cachedCustomer(accountId: string): CustomerView | null | undefined {
    return this.customers.get(accountId);
  }

  async customer(accountId: string): Promise<CustomerView | null> {
    const cached = this.customers.get(accountId);
    if (cached !== undefined) return cached;
    const [row] = await this.db.query<{ status: string; active: number; currency: string; tps: number; daily_limit: number | null; custom_settings: Record<string, unknown> }>(
      `SELECT status, active, currency, tps, daily_limit, custom_settings FROM streams.customer WHERE account_id = $1`,
      [accountId],
    );
    const view = row
      ? { accountId, status: row.status, active: row.active, currency: row.currency, tps: row.tps, dailyLimit: row.daily_limit, settings: row.custom_settings ?? {} }
      : null;
    this.customers.set(accountId, view);
    return view;
  }

  /** Values (lower case) of the account's approved senders. */
  async approvedSenders(accountId: string): Promise<Set<string>> {
    const cached = this.senders.get(accountId);
    if (cached) return cached;
    const rows = await this.db.query<{ v: string }>(`SELECT lower(value) AS v FROM streams.sender WHERE account_id = $1 AND approved = 1`, [accountId]);
    const set = new Set(rows.map((r) => r.v));
    this.senders.set(accountId, set);
    return set;
  }

  /** The cached keyword list, undefined when not cached. */
  cachedKeywordMatcher(): KeywordMatcher | undefined {
    return this.keywords.get('global');
  }

  async keywordMatcher(): Promise<KeywordMatcher> {
    const cached = this.keywords.get('global');
    if (cached) return cached;
    const rows = await this.db.query<{ word: string; type: number }>(`SELECT word, type FROM streams.malicious_keyword`, []);
    const m = new KeywordMatcher(rows);
    this.keywords.set('global', m);
    return m;
  }

  forgetStream(streamId: string): void {
    this.streams.deleteWhere((s) => s?.id === streamId);
  }

  forgetCustomer(accountId: string): void {
    this.customers.delete(accountId);
  }

  forgetSenders(accountId: string): void {
    this.senders.delete(accountId);
  }

  forgetKeywords(): void {
    this.keywords.clear();
  }
}
