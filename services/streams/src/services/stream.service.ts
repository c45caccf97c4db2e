import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ErrorCode,
  inboundAddress,
  isReceivingNumber,
  StreamChannelConfiguredV1,
  StreamCreatedV1,
  StreamDeletedV1,
  StreamStatus,
  StreamType,
  StreamUpdatedV1,
  TelegramCodeSubmittedV1,
  type EventData,
  type StreamSnapshot,
  type Violation,
} from '@switchboard/contracts';
import { AppError, parseListQuery, ProviderSecrets, RequestContext, TenantRepository, type ListResult } from '@switchboard/platform';
import { Clock } from '../clock';
import type { CreateStreamDto, UpdateStreamDto } from '../dtos/stream.dto';
import { USER_STREAM_STATUSES } from '../dtos/stream.dto';
import { StreamEntity } from '../entities';
import { isIpAclEntry, splitIpAcl } from '../rules/ip-acl';
import { maskSecret, newStreamToken, SecretBox, tokenHash, webhookVerifyToken } from '../rules/secret-box';
import { senderIdViolations } from '../rules/sender-id';
import { channelOf, defaultParams, parseStreamParams, requiredSetting, statusAfterConfig, TELEGRAM_AUTHORISED, type PublicParams, type SecretParams } from '../rules/stream-params';
import { STREAMS_CONNECTION, STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import { TelegramClient, WhatsAppClient } from '../providers/provider-clients';
import { ActivityService } from './activity.service';
import { InboundClaimService, type InboundTarget } from './inbound-claims.service';
import { LookupsService } from './lookups.service';
import { StreamsUnitOfWork, type Emit } from './streams-events.service';
import { truthy } from './send.service';
import type { StreamDto, DropdownItem } from '@switchboard/contracts';

export type { StreamDto, DropdownItem };

/** A stream counts as sending (1) while it sent within this long; it is stored as ready (0). */
const SENDING_WINDOW_MS = 5 * 60_000;



const IRI = /^(?:\/api\/streams\/)?(\d{1,18})$/;

/** A stream id as a number, a numeric string or an IRI (`/api/streams/5`); anything else is a 400 on `field`. */
export function streamIdFrom(raw: unknown, field = 'streamId'): string {
  const m = typeof raw === 'number' && Number.isInteger(raw) && raw > 0 ? [String(raw), String(raw)] : typeof raw === 'string' ? IRI.exec(raw.trim()) : null;
  if (!m) throw AppError.validation([{ propertyPath: field, message: `${field} must be a stream id` }]);
  return m[1];
}

/** Streams in the console: CRUD per type with its params and defaults, statuses, tokens, default streams. */
@Injectable()
export class StreamService {
  readonly repo: TenantRepository<StreamEntity>;
  private readonly box: SecretBox;
  private readonly providerSecrets: ProviderSecrets;

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    private readonly uow: StreamsUnitOfWork,
    private readonly lookups: LookupsService,
    private readonly activity: ActivityService,
    private readonly clock: Clock,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
    private readonly claims: InboundClaimService,
    private readonly whatsapp: WhatsAppClient,
    private readonly telegram: TelegramClient,
  ) {
    this.repo = new TenantRepository(ds.getRepository(StreamEntity), 'stream');
    this.box = new SecretBox(o.secret);
    this.providerSecrets = new ProviderSecrets(o.providerSecretsKey);
  }

  async list(query: Record<string, unknown>): Promise<ListResult<StreamDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'status', 'streamType', 'createdAt', 'lastSentTime'], defaultItemsPerPage: 25 });
    const qb = this.repo.qb('s').andWhere('s.deletedAt IS NULL');
    if (typeof query.name === 'string' && query.name.trim()) qb.andWhere('s.name ILIKE :name', { name: `%${query.name.trim().replace(/[%_\\]/g, '\\$&')}%` });
    const type = intFilter(query.streamType, 'streamType');
    if (type !== null) qb.andWhere('s.streamType = :type', { type });
    const status = intFilter(query.status, 'status');
    if (status !== null) qb.andWhere('s.status = :status', { status });
    for (const [field, dir] of Object.entries(q.order)) qb.addOrderBy(`s.${field}`, dir);
    const [rows, total] = await qb.skip(q.skip).take(q.take).getManyAndCount();
    return { items: rows.map((r) => this.toDto(r)), total };
  }

  /** Ready and sending streams first (spec 2: the list shows them), then the rest; `types` narrows (inbox: two-way and WhatsApp). */
  async dropdown(types?: number[]): Promise<ListResult<DropdownItem>> {
    const qb = this.repo.qb('s').andWhere('s.deletedAt IS NULL');
    if (types) qb.andWhere('s.streamType IN (:...types)', { types }).andWhere('s.status IN (0, 1)');
    const rows = await qb.orderBy('s.name', 'ASC').addOrderBy('s.id', 'ASC').take(2000).getMany();
    const items = rows.map((r) => ({ id: Number(r.id), name: r.name, streamType: r.streamType, status: this.displayStatus(r), streamUid: r.streamUid }));
    return { items, total: items.length };
  }

  async get(id: string): Promise<StreamDto> {
    return this.toDto(await this.find(id));
  }

  async find(id: string): Promise<StreamEntity> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('stream');
    const row = await this.repo.findOne({ id });
    if (!row || row.deletedAt) throw AppError.notFound('stream');
    return row;
  }

  async create(dto: CreateStreamDto): Promise<StreamDto> {
    const accountId = RequestContext.accountId();
    await this.assertTypeAllowed(accountId, dto.streamType);
    const violations: Violation[] = [];
    const { pub, secret, violations: paramViolations } = parseStreamParams(dto.streamType, dto.params);
    violations.push(...paramViolations);
    const ipAcl = this.ipAcl(dto.ipAcl, violations);
    const sender = this.sender(dto.streamType, dto.sender, violations);
    if (dto.status !== undefined && !USER_STREAM_STATUSES.includes(dto.status) && !RequestContext.principal()?.superAdmin) {
      violations.push({ propertyPath: 'status', message: 'a new stream is ready, disabled or a draft' });
    }
    if (violations.length) throw AppError.validation(violations);
    const params: PublicParams = { ...defaultParams(dto.streamType), ...stripNulls(pub) };
    const secrets = stripNulls(secret) as SecretParams;
    const configured = statusAfterConfig(dto.streamType, params, secrets, null);
    const status = dto.status === undefined || configured === StreamStatus.Draft ? configured : dto.status;
    const inbound = await this.inboundTarget(accountId, dto.streamType, sender ?? null, params, secrets, true);
    const token = newStreamToken();
    const now = this.clock.now();
    const entity = this.repo.create({
      streamUid: randomUUID(),
      name: dto.name.trim(),
      description: dto.description ?? '',
      streamType: dto.streamType,
      status,
      staticServiceType: dto.staticServiceType ?? null,
      ipAcl: ipAcl ?? [],
      sender: sender ?? null,
      streamTags: dto.streamTags ?? [],
      enableSending: dto.enableSending ?? true,
      isDefault: dto.isDefault ?? false,
      params,
      ...this.sealSecrets(secrets),
      tokenHash: tokenHash(token),
      tokenCipher: this.box.seal(token),
      inboxRoleIds: [],
      createdAt: now,
      updatedAt: now,
    });
    const saved = await this.uow.run(async (m, emit) => {
      const row = await this.repo.save(entity, m);
      if (row.isDefault) await this.clearOtherDefaults(m, row);
      if (inbound !== 'keep') await this.claims.set(m, emit, row.accountId, { kind: 'stream', id: row.id }, inbound, claimRefusal(row.streamType));
      emit(StreamCreatedV1, this.snapshot(row), row.accountId);
      this.emitChannel(emit, null, row);
      return row;
    });
    await this.activity.streamChanged(saved.accountId, 'stream.created', { streamId: Number(saved.id), status: saved.status });
    return this.toDto(saved);
  }

  async update(id: string, dto: UpdateStreamDto): Promise<StreamDto> {
    const row = await this.find(id);
    const superAdmin = RequestContext.principal()?.superAdmin === true;
    const violations: Violation[] = [];
    const { pub, secret, violations: paramViolations } = parseStreamParams(row.streamType, dto.params);
    violations.push(...paramViolations);
    const ipAcl = this.ipAcl(dto.ipAcl, violations);
    const sender = dto.sender === undefined ? undefined : this.sender(row.streamType, dto.sender, violations);
    if (dto.status !== undefined && !superAdmin) {
      if (dto.status === StreamStatus.Restricted || row.status === StreamStatus.Restricted) violations.push({ propertyPath: 'status', message: 'only a super administrator restricts a stream or lifts a restriction' });
      else if (!USER_STREAM_STATUSES.includes(dto.status)) violations.push({ propertyPath: 'status', message: 'status is ready (0), disabled (-1) or draft (2)' });
    }
    if (violations.length) throw AppError.validation(violations);

    const channelBefore = this.channelConfig(row);
    const params: PublicParams = mergeParams(row.params, pub);
    const telegramLogin = row.streamType === StreamType.TelegramPrivate ? { code: secret.otp_code ?? null, password: secret.password ?? null } : null;
    if (telegramLogin && params.phone_number !== row.params.phone_number) {
      // Another account: the login starts again (dispatch drops the old session when the phone changes).
      delete params.auth_status;
      delete params.auth_error;
    }
    if (telegramLogin && (telegramLogin.code || telegramLogin.password)) delete params.auth_error;
    const oldSecrets = this.openSecrets(row);
    const secrets = mergeParams(oldSecrets, secret) as SecretParams;
    const providerChanged = JSON.stringify(secrets) !== JSON.stringify(oldSecrets) || params.business_id !== row.params.business_id || params.phone_number !== row.params.phone_number;
    let status = dto.status ?? row.status;
    // Spec 4: a WhatsApp or Telegram token update sets the stream ready; without its settings it stays a draft.
    if (providerChanged) status = statusAfterConfig(row.streamType, params, secrets, status === StreamStatus.Disabled && dto.status === undefined ? StreamStatus.Draft : status);
    else if (status === StreamStatus.Ready || status === StreamStatus.Sending) status = statusAfterConfig(row.streamType, params, secrets, status);

    // what decides the claim: the sender of a two-way stream, the provider settings of the others; unchanged, the claim
    // stays as it is (a stream left without its claim by the start-up backfill can still be edited or disabled)
    const claimChanged = row.streamType === StreamType.TwoWay ? sender !== undefined && (sender ?? null) !== row.sender : providerChanged;
    const inbound = await this.inboundTarget(row.accountId, row.streamType, sender !== undefined ? sender : row.sender, params, secrets, claimChanged);

    if (dto.name !== undefined) row.name = dto.name.trim();
    if (dto.description !== undefined) row.description = dto.description;
    if (dto.staticServiceType !== undefined) row.staticServiceType = dto.staticServiceType;
    if (ipAcl !== null) row.ipAcl = ipAcl;
    if (sender !== undefined) row.sender = sender;
    if (dto.streamTags !== undefined) row.streamTags = dto.streamTags;
    if (dto.enableSending !== undefined) row.enableSending = dto.enableSending;
    if (dto.isDefault !== undefined) row.isDefault = dto.isDefault;
    row.params = params;
    Object.assign(row, this.sealSecrets(secrets));
    row.status = status;
    row.updatedAt = this.clock.now();
    const saved = await this.uow.run(async (m, emit) => {
      const r = await this.repo.save(row, m);
      if (r.isDefault) await this.clearOtherDefaults(m, r);
      if (inbound !== 'keep') await this.claims.set(m, emit, r.accountId, { kind: 'stream', id: r.id }, inbound, claimRefusal(r.streamType));
      emit(StreamUpdatedV1, this.snapshot(r), r.accountId);
      this.emitChannel(emit, channelBefore, r);
      if (telegramLogin && (telegramLogin.code || telegramLogin.password)) {
        const s = this.openSecrets(r);
        // the code and the two-step password travel sealed, like every provider secret
        const sealed = this.providerSecrets.seal(r.streamUid, { code: s.otp_code ?? '', password: s.password ?? '' });
        emit(TelegramCodeSubmittedV1, { accountId: r.accountId, streamId: r.id, streamUid: r.streamUid, code: '', password: null, sealed }, r.accountId);
      }
      return r;
    });
    this.lookups.forgetStream(saved.id);
    await this.activity.streamChanged(saved.accountId, 'stream.updated', { streamId: Number(saved.id), status: saved.status });
    return this.toDto(saved);
  }

  async remove(id: string): Promise<void> {
    const row = await this.find(id);
    const channelBefore = this.channelConfig(row);
    row.deletedAt = this.clock.now();
    row.isDefault = false;
    await this.uow.run(async (m, emit) => {
      await this.repo.save(row, m);
      await this.claims.set(m, emit, row.accountId, { kind: 'stream', id: row.id }, null, claimRefusal(row.streamType));
      emit(StreamDeletedV1, { streamId: row.id, accountId: row.accountId, streamUid: row.streamUid }, row.accountId);
      this.emitChannel(emit, channelBefore, row);
    });
    this.lookups.forgetStream(row.id);
    await this.activity.streamChanged(row.accountId, 'stream.deleted', { streamId: Number(row.id) });
  }

  async token(id: string): Promise<{ id: number; streamUid: string; token: string }> {
    const row = await this.find(id);
    return { id: Number(row.id), streamUid: row.streamUid, token: this.box.open(row.tokenCipher) };
  }

  /** A new token; the old one stops working at once in this process and within the cache TTL in others. */
  async resetToken(id: string): Promise<{ id: number; streamUid: string; token: string }> {
    const row = await this.find(id);
    const token = newStreamToken();
    row.tokenHash = tokenHash(token);
    row.tokenCipher = this.box.seal(token);
    row.updatedAt = this.clock.now();
    await this.repo.save(row);
    this.lookups.forgetStream(row.id);
    await this.activity.streamChanged(row.accountId, 'stream.token_reset', { streamId: Number(row.id) });
    return { id: Number(row.id), streamUid: row.streamUid, token };
  }

  /** Spec 3: `inbox/assign_permissions_mapping`: which inbox roles may use each two-way or WhatsApp stream. */
  async inboxMapping(): Promise<{ items: Array<{ streamId: number; streamUid: string; name: string; roleIds: number[] }>; total: number }> {
    const rows = await this.repo.qb('s').andWhere('s.deletedAt IS NULL').andWhere('s.streamType IN (:...types)', { types: [StreamType.TwoWay, StreamType.WhatsApp] }).orderBy('s.id', 'ASC').getMany();
    const items = rows.map((r) => ({ streamId: Number(r.id), streamUid: r.streamUid, name: r.name, roleIds: r.inboxRoleIds.map(Number) }));
    return { items, total: items.length };
  }

  async setInboxMapping(streamIdRaw: unknown, roleIdsRaw: unknown): Promise<{ streamId: number; roleIds: number[] }> {
    const streamId = streamIdFrom(streamIdRaw);
    if (!Array.isArray(roleIdsRaw) || roleIdsRaw.length > 500 || roleIdsRaw.some((r) => !/^\d{1,18}$/.test(String(r)))) {
      throw AppError.validation([{ propertyPath: 'roleIds', message: 'roleIds is a list of role ids' }]);
    }
    const row = await this.find(streamId);
    row.inboxRoleIds = [...new Set(roleIdsRaw.map(String))];
    await this.repo.save(row);
    return { streamId: Number(row.id), roleIds: row.inboxRoleIds.map(Number) };
  }

  /** The provider secrets of a stream (the console's own routes need them to call WhatsApp or Telegram). */
  openSecrets(row: StreamEntity): SecretParams {
    if (!row.providerSecret) return {};
    return JSON.parse(this.box.open(row.providerSecret)) as SecretParams;
  }

  displayStatus(r: StreamEntity): number {
    if (r.status === StreamStatus.Ready && r.lastSentTime && this.clock.now().getTime() - r.lastSentTime.getTime() < SENDING_WINDOW_MS) return StreamStatus.Sending;
    return r.status;
  }

  toDto(r: StreamEntity): StreamDto {
    const secrets = this.openSecrets(r);
    const params: Record<string, unknown> = { ...r.params };
    if (secrets.auth_token) params.auth_token = maskSecret(secrets.auth_token);
    if (secrets.otp_code) params.otp_code = '****';
    if (secrets.password) params.password = '****';
    return {
      id: Number(r.id),
      name: r.name,
      description: r.description,
      staticServiceType: r.staticServiceType,
      status: this.displayStatus(r),
      streamType: r.streamType,
      ipAcl: r.ipAcl,
      lastSentTime: r.lastSentTime ? r.lastSentTime.toISOString() : null,
      sender: r.sender,
      streamTags: r.streamTags,
      enableSending: r.enableSending,
      isDefault: r.isDefault,
      streamUid: r.streamUid,
      params,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    };
  }

  snapshot(r: StreamEntity): StreamSnapshot {
    return {
      streamId: r.id,
      accountId: r.accountId,
      streamUid: r.streamUid,
      name: r.name,
      streamType: r.streamType,
      status: r.status,
      staticServiceType: r.staticServiceType,
      sender: r.sender,
      enableSending: r.enableSending,
      isDefault: r.isDefault,
      tps: r.params.tps ?? 0,
      updatedAt: r.updatedAt.toISOString(),
    };
  }

  /**
   * What dispatch needs of a two-way, WhatsApp or Telegram stream (`streams.stream.channel_configured`); null for the
   * other types, which dispatch routes without stream settings.
   */
  channelConfig(r: StreamEntity): Omit<EventData<typeof StreamChannelConfiguredV1>, 'occurredAt'> | null {
    const channel = channelOf(r.streamType);
    if (channel === 'sms' && r.streamType !== StreamType.TwoWay) return null;
    const s = this.openSecrets(r);
    const credentials: Record<string, string> = {};
    let sender = r.sender ?? r.streamUid;
    if (r.streamType === StreamType.WhatsApp) {
      // The send path sends as the phone number id (send.service.ts), so inbound messages are matched by it too.
      sender = r.params.phone_number ?? sender;
      if (s.auth_token) credentials.accessToken = s.auth_token;
      if (r.params.business_id) credentials.businessId = r.params.business_id;
      credentials.verifyToken = webhookVerifyToken(this.o.secret, r.streamUid);
    } else if (r.streamType === StreamType.TelegramBot) {
      if (s.auth_token) credentials.botToken = s.auth_token;
    } else if (r.streamType === StreamType.TelegramPrivate) {
      if (r.params.phone_number) credentials.phone = r.params.phone_number;
    } else sender = r.sender ?? '';
    const enabled = !r.deletedAt && r.status !== StreamStatus.Disabled && r.status !== StreamStatus.Restricted;
    return { accountId: r.accountId, streamId: r.id, streamUid: r.streamUid, streamType: r.streamType, channel, sender, credentials, enabled };
  }

  /**
   * Emits the channel event when what dispatch keeps changed (a Telegram private stream would otherwise be sent a new
   * login code). The secrets among the credentials leave sealed (`sealedCredentials`), never in the clear.
   */
  private emitChannel(emit: Emit, before: ReturnType<StreamService['channelConfig']>, row: StreamEntity, force = false): void {
    const after = this.channelConfig(row);
    if (!after || (!force && JSON.stringify(after) === JSON.stringify(before))) return;
    emit(StreamChannelConfiguredV1, this.channelEvent(after), row.accountId);
  }

  /** The event of a channel config: plain credentials split into what may travel and what travels sealed. */
  channelEvent(c: NonNullable<ReturnType<StreamService['channelConfig']>>): EventData<typeof StreamChannelConfiguredV1> {
    const open: Record<string, string> = {};
    const secret: Record<string, string> = {};
    for (const [k, v] of Object.entries(c.credentials)) (SEALED_CREDENTIALS.has(k) ? secret : open)[k] = v;
    const sealedCredentials = Object.keys(secret).length ? this.providerSecrets.seal(c.streamUid, secret) : null;
    return { ...c, credentials: open, sealedCredentials, occurredAt: this.clock.now().toISOString() };
  }

  /** For the start-up backfill (InboundBackfillService): the channel event of a stream as it is. */
  emitChannelOf(emit: Emit, row: StreamEntity): void {
    this.emitChannel(emit, null, row, true);
  }

  /**
   * The inbound address a stream should hold (null: none), checked with the provider where it can say: a WhatsApp
   * phone number id must be one of the business account's numbers as the stream's token sees them, a Telegram bot is
   * the one its token's getMe names. A two-way number is the stream's sender, in its E.164 spelling (a national form
   * is read in the country of the account's sender of that value). 'keep' when what decides it (`changed`: the
   * provider settings, or a two-way stream's sender) did not change.
   */
  async inboundTarget(accountId: string, streamType: number, sender: string | null, params: PublicParams, secrets: SecretParams, providerChanged: boolean): Promise<InboundTarget | null | 'keep'> {
    if (streamType === StreamType.TwoWay) {
      if (!providerChanged) return 'keep';
      if (!sender || !isReceivingNumber(sender)) return null;
      const region = await this.senderCountry(accountId, sender);
      const address = inboundAddress('sms', sender, region);
      return address ? { channel: 'sms', address } : null;
    }
    if (streamType === StreamType.WhatsApp) {
      if (!secrets.auth_token || !params.business_id || !params.phone_number) return null;
      if (!providerChanged) return 'keep';
      const numbers = await this.whatsapp.phoneNumbers(secrets.auth_token, params.business_id);
      if (!numbers.some((n) => n.id === params.phone_number)) {
        const message = 'this phone number id is not a number of the business account the token gives access to';
        throw new AppError(400, ErrorCode.InvalidBusinessId, message, [{ propertyPath: 'params.phone_number', message, code: 'phoneNumberNotInBusiness' }]);
      }
      return { channel: 'whatsapp', address: inboundAddress('whatsapp', params.phone_number)! };
    }
    if (streamType === StreamType.TelegramBot) {
      if (!secrets.auth_token) return null;
      if (!providerChanged) return 'keep';
      const me = await this.telegram.getMe(secrets.auth_token);
      if (!me.is_bot || !Number.isSafeInteger(me.id)) throw new AppError(400, ErrorCode.InvalidTelegramBotToken, 'the token is not a bot token');
      return { channel: 'telegram', address: String(me.id) };
    }
    return null;
  }

  private async senderCountry(accountId: string, value: string): Promise<string | null> {
    const rows = await this.ds.query<Array<{ country: string | null }>>(
      `SELECT country FROM streams.sender WHERE account_id = $1 AND value = $2 AND country IS NOT NULL ORDER BY id LIMIT 1`,
      [accountId, value.trim()],
    );
    return rows[0]?.country ?? null;
  }

  private sealSecrets(s: SecretParams): Pick<StreamEntity, 'providerSecret' | 'providerSecretFields'> {
    const fields = Object.entries(s).filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k]) => k);
    return { providerSecret: fields.length ? this.box.seal(JSON.stringify(s)) : null, providerSecretFields: fields };
  }

  private async assertTypeAllowed(accountId: string, streamType: number): Promise<void> {
    const setting = requiredSetting(streamType);
    if (!setting) return;
    const customer = await this.lookups.customer(accountId);
    if (!customer || !truthy(customer.settings[setting])) {
      throw AppError.validation([{ propertyPath: 'streamType', message: `the account may not create this stream type (${setting} is off)` }]);
    }
  }

  private ipAcl(raw: unknown, violations: Violation[]): string[] | null {
    if (raw === undefined) return null;
    const list = splitIpAcl(raw);
    if (!list) {
      violations.push({ propertyPath: 'ipAcl', message: 'ipAcl is a list of addresses', code: 'ips' });
      return null;
    }
    if (list.length > 200) violations.push({ propertyPath: 'ipAcl', message: 'at most 200 entries', code: 'ips' });
    list.forEach((e, i) => {
      if (!isIpAclEntry(e)) violations.push({ propertyPath: `ipAcl[${i}]`, message: `${e} is not an IPv4 address (with an optional mask) or an IPv6 address`, code: 'ips' });
    });
    return list;
  }

  private sender(streamType: number, raw: unknown, violations: Violation[]): string | null {
    if (raw === undefined || raw === null || raw === '') return null;
    if (channelOf(streamType) !== 'sms') {
      if (typeof raw !== 'string' || raw.length > 64) violations.push({ propertyPath: 'sender', message: 'sender is a string of at most 64 characters' });
      return typeof raw === 'string' ? raw.trim() : null;
    }
    const v = senderIdViolations(raw, 'sender');
    violations.push(...v);
    return v.length ? null : String(raw).trim();
  }

  private async clearOtherDefaults(m: EntityManager, row: StreamEntity): Promise<void> {
    await m.query(`UPDATE streams.stream SET is_default = false WHERE account_id = $1 AND stream_type = $2 AND id <> $3 AND is_default`, [row.accountId, row.streamType, row.id]);
  }

  /**
   * Dispatch's answer in the Telegram private login, applied in the consumer's transaction `m`: a requested code or
   * an error is recorded in `params.auth_status` / `params.auth_error`; a completed login makes a draft ready.
   * Returns the changed stream (null when it is gone or nothing changed).
   */
  async applyTelegramAuth(
    m: EntityManager,
    streamId: string,
    accountId: string,
    report: { kind: 'code_requested' | 'completed'; ok: boolean; error: string | null },
  ): Promise<StreamEntity | null> {
    const row = await m.getRepository(StreamEntity).findOne({ where: { id: streamId, accountId }, lock: { mode: 'pessimistic_write' } });
    if (!row || row.deletedAt || row.streamType !== StreamType.TelegramPrivate) return null;
    const params: PublicParams = { ...row.params };
    delete params.auth_error;
    if (report.error) {
      params.auth_error = report.error;
      if (report.error === 'PASSWORD_NEEDED') params.auth_status = 'password_needed';
    } else if (report.kind === 'code_requested') params.auth_status = 'code_requested';
    if (report.kind === 'completed' && report.ok) {
      params.auth_status = TELEGRAM_AUTHORISED;
      if (row.status === StreamStatus.Draft) row.status = StreamStatus.Ready;
    }
    if (JSON.stringify(params) === JSON.stringify(row.params) && !(report.kind === 'completed' && report.ok)) return null;
    row.params = params;
    row.updatedAt = this.clock.now();
    return m.getRepository(StreamEntity).save(row);
  }

  /** For other services of this module: emits a stream's snapshot in a unit of work. */
  emitUpdated(row: StreamEntity, emit: Emit): void {
    emit(StreamUpdatedV1, this.snapshot(row), row.accountId);
  }
}

/** Credentials that are secrets: they leave streams only sealed. */
const SEALED_CREDENTIALS: ReadonlySet<string> = new Set(['accessToken', 'verifyToken', 'botToken']);

function claimRefusal(streamType: number): { propertyPath: string; what: string } {
  if (streamType === StreamType.WhatsApp) return { propertyPath: 'params.phone_number', what: 'this WhatsApp phone number' };
  if (streamType === StreamType.TelegramBot) return { propertyPath: 'params.auth_token', what: 'this Telegram bot' };
  return { propertyPath: 'sender', what: 'this number' };
}

function stripNulls<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined)) as T;
}

/** Keys given replace, keys given as null are removed, the rest are kept. */
function mergeParams<T extends object>(current: T, patch: Partial<T>): T {
  const out = { ...current } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out as unknown as T;
}

function intFilter(v: unknown, name: string): number | null {
  if (v === undefined || v === '') return null;
  if (typeof v !== 'string' || !/^-?\d{1,3}$/.test(v)) throw AppError.validation([{ propertyPath: name, message: `${name} must be an integer` }]);
  return Number(v);
}
