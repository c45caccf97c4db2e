import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import {
  ACCEPTED_EVENT_NAMESPACE,
  analyzeSms,
  Channel,
  ErrorCode,
  MessageAcceptedV1,
  MessageChargedV1,
  StreamStatus,
  type Violation,
} from '@switchboard/contracts';
import { AppError, currentTraceparent, PACKED_OUTBOX_TYPE, RequestContext, timeOrderedUuid, uuidV5 } from '@switchboard/platform';
import { sendRowType } from './accept-batches';
import { Clock } from '../clock';
import type { KeywordMatcher } from '../rules/keywords';
import { normalizePhone, normalizeTelegramChat } from '../rules/phone';
import { senderIdViolations } from '../rules/sender-id';
import { channelOf, requiredSetting } from '../rules/stream-params';
import { SharedTpsBuckets } from '../rules/shared-tps';
import { TokenBuckets } from '../rules/token-bucket';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import { ActivityService } from './activity.service';
import { LookupsService, type ActiveStream, type CustomerView } from './lookups.service';
import { SendDatabase } from './send-database';
import { GroupCommit } from './group-commit';
import { StreamsOutboxRelay } from './streams-events.service';
import { acceptedMiddle, CANONICAL_UUID, eventHead, headPieces, type HeadPieces } from './event-heads';
import { COMPACT_SENDS_TYPE, compactEventsText, compactGroup, type CompactGroup } from './compact-sends';

const BLOCKED_KEYWORD = () => new AppError(400, ErrorCode.InvalidArgument, 'the message contains a blocked keyword');

/** The account's approved-sender rule (spec: streams_validate_senders), one place for every path that checks it. */
function refuseUnapprovedSender(approved: ReadonlySet<string>, input: ValidSend): void {
  if (!approved.has(input.sender.toLowerCase())) throw new AppError(400, ErrorCode.InvalidArgument, `sender ${input.sender} is not an approved sender of the account`);
}

/** The blocked-keyword rule, one place for every path that checks it. */
function refuseBlockedKeyword(keywords: KeywordMatcher, input: ValidSend): void {
  if (input.text && keywords.find(input.text)) throw BLOCKED_KEYWORD();
}

/** Longest text accepted: ten concatenated GSM-7 parts. */
export const MAX_TEXT_LENGTH = 1530;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const BODY_KEYS = new Set(['phone', 'message', 'sender', 'payload']);

export interface SendFlags {
  /** Console demo send: marked on the message row. */
  demo?: boolean;
  idempotencyKey?: string | null;
  /** OTP sends: no duplicate check (each code differs), and the stored text has the code masked. */
  otp?: { maskedText: string };
  campaignId?: string | null;
  /** The requester's message id (send batches from campaigns and inbox); otherwise a new one. */
  messageUuid?: string;
  /** Not before this instant (a campaign's sending hours); carried on `streams.message.accepted`. */
  notBefore?: string | null;
  /** No duplicate-content check: the requester's messageUuid makes the send exactly-once (send batches). */
  noFingerprint?: boolean;
  /** A campaign send's variant (its request item's), passed through onto `streams.message.accepted` for statistics (docs/decisions/0205). */
  variantId?: string | null;
}

/** The stream API's answer to an accepted send (also what an Idempotency-Key replays). */
export interface SendAnswer {
  code: 'OK';
  message_uuid: string;
  status: 'accepted';
  stream_uid: string;
  destination: string;
  country: string | null;
  sender: string;
  parts: number;
  encoding: string | null;
  price: number;
  currency: string;
}

export interface SendResult {
  body: SendAnswer;
  /** True when the answer is the stored one of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export interface PreparedSend {
  stream: ActiveStream;
  customer: CustomerView;
  input: ValidSend;
  flags: SendFlags;
  key: string | null;
  requestHash: Buffer | null;
}

export interface ValidSend {
  destination: string;
  iso2: string | null;
  text: string;
  sender: string;
  payload: Record<string, unknown> | null;
}

/** One send as `accept_messages` reads it from the batch's JSON (the `streams.send_row` type). */
interface SendRow {
  i: number;
  uuid: string;
  account_id: string;
  stream_id: string;
  campaign_id: string | null;
  sender: string;
  destination: string;
  iso2: string | null;
  stored_text: string;
  encoding: string | null;
  segments: number;
  demo: boolean;
  // Absent fields are null to PostgreSQL (json_populate_recordset): left out rather than written as null.
  price_override?: number;
  /** bytea in PostgreSQL's hex input form */
  fp?: string;
  idem_key?: string;
  idem_hash?: string;
  idem_response?: AnswerBase;
  /** The events' JSON up to the first field the statement fills in (see eventHead), when the send has no head group. */
  accepted?: string;
  charged?: string;
  /** The send's head group (`p_heads`, docs/decisions/0167), its events' ids and its accepted event's middle. */
  h?: number;
  aid?: string;
  cid?: string;
  v?: string;
}

export type Refusal = 'no_customer' | 'no_price' | 'daily_limit' | 'duplicate' | 'payment_required' | 'key_in_use';

/** What `accept_messages` answers for each send. */
interface AcceptedRow {
  ord: number;
  result: 'ok' | Refusal;
  amount_micros: string;
  currency: string | null;
}

type AnswerBase = Omit<SendAnswer, 'price' | 'currency'>;

/** A prepared send waiting for its batch. */
interface Pending {
  p: PreparedSend;
  /** The request's trace id, read when the send was submitted (the batch is written outside the request's context). */
  traceId: string | null;
  /** The W3C trace context of the request's span (OpenTelemetry), when the process traces. */
  traceparent: string | undefined;
  /** Duplicate fingerprint; null for OTP sends and when the duplicate window is 0. */
  fp: Buffer | null;
}

interface Written {
  answer: AnswerBase;
  row: AcceptedRow;
}

/** The id of a message's `streams.message.accepted` event, the same whenever it is built (docs/decisions/0087). */
export const acceptedEventId = (messageUuid: string): string => uuidV5(messageUuid, ACCEPTED_EVENT_NAMESPACE);

/** What the heads of a send's events share with other sends' (docs/decisions/0167): stream, account and trace. */
const headGroupKey = (it: Pending): string =>
  JSON.stringify([it.p.stream.accountId, it.p.stream.id, it.p.stream.streamUid, it.p.stream.streamType, it.traceId, it.traceparent === undefined, it.traceparent ?? null]);
const utcDay = (d: Date): string => d.toISOString().slice(0, 10);
const ACCEPT_SQL = 'SELECT ord, result, amount_micros::text, currency FROM streams.accept_messages($1::json, $2::json, $3, $4, $5, $6, $7, $8, $9)';
/** A batch whose events node writes compactly (docs/decisions/0210): `$2` is their text, stored as it is. */
const ACCEPT_COMPACT_SQL = 'SELECT ord, result, amount_micros::text, currency FROM streams.accept_messages_compact($1::json, $2::text, $3, $4, $5, $6, $7, $8, $9)';
/** The packed outbox row of a batch, in Outbox.addPacked's format: $1 the number of events, $2 their JSON array. */
const outboxSql = (type: string): string => `INSERT INTO streams.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', $1::text, '${type}', '{}', $2)`;
/** Lock conflicts between concurrent batches (and other writers) that PostgreSQL resolves by failing one of them. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * The send pipeline behind the stream API, the console demo, OTP requests and replies: stream and account checks,
 * validation, idempotency, content rules, TPS buckets, then `accept_messages`, which prices, checks the daily limit and
 * duplicates, debits the balance, stores the message and its outbox events for a whole batch of sends in one statement
 * (group commit, docs/decisions/0016-stream-api-group-commit.md), each send decided on its own. Durable before the answer.
 */
@Injectable()
export class SendService {
  /** The TPS buckets: in this process, or shared by every replica in PostgreSQL (`sharedTps`, docs/decisions/0067). */
  private readonly buckets: TokenBuckets | SharedTpsBuckets;
  private readonly batches: GroupCommit<Pending, Written>;
  /** The statement of a batch's packed outbox row: its type says which events the relay folds (docs/decisions/0178, 0181). */
  private readonly outboxSql: string;
  /** The row type a compact row stands for (its fold), and the statement of a compact row (docs/decisions/0210). */
  private readonly foldType: string;
  private readonly compactOutboxSql: string;

  constructor(
    private readonly db: SendDatabase,
    private readonly lookups: LookupsService,
    private readonly relay: StreamsOutboxRelay,
    private readonly activity: ActivityService,
    private readonly clock: Clock,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
  ) {
    this.batches = new GroupCommit((items) => this.writeBatch(items), { maxBatch: o.sendBatchMax, maxInFlight: o.sendBatchesInFlight });
    this.buckets = o.sharedTps ? new SharedTpsBuckets(db.pool) : new TokenBuckets();
    this.foldType = sendRowType(o) ?? PACKED_OUTBOX_TYPE;
    this.outboxSql = outboxSql(this.foldType);
    this.compactOutboxSql = outboxSql(COMPACT_SENDS_TYPE);
  }

  /** Gives the tokens this replica keeps back to the shared buckets (before the send pool closes). */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.buckets instanceof SharedTpsBuckets) await this.buckets.close().catch(() => undefined);
  }

  /** Stream state: 0x21 unavailable (restricted, disabled, sending off), 0x22 not ready (draft), 0x23 provider settings missing. */
  assertStreamCanSend(stream: ActiveStream): void {
    if (stream.status === StreamStatus.Restricted) throw new AppError(403, ErrorCode.StreamUnavailable, 'the stream is restricted');
    if (stream.status === StreamStatus.Disabled) throw new AppError(403, ErrorCode.StreamUnavailable, 'the stream is disabled');
    if (!stream.enableSending) throw new AppError(403, ErrorCode.StreamUnavailable, 'sending is turned off for the stream');
    if (!stream.providerReady) throw new AppError(409, ErrorCode.StreamMissingForProvider, 'the stream has no provider settings yet (token, business id or phone number)');
    if (stream.status === StreamStatus.Draft) throw new AppError(409, ErrorCode.StreamNotReady, 'the stream is not ready (draft)');
  }

  /** Account state: a missing, unapproved, restricted, disabled or deleted account, or a channel it may not use, is 0x21. */
  async customerFor(stream: ActiveStream): Promise<CustomerView> {
    // no await when cached: every await of the send path costs the request context's promise hooks
    const cached = this.lookups.cachedCustomer(stream.accountId);
    return this.usableCustomer(stream, cached !== undefined ? cached : await this.lookups.customer(stream.accountId));
  }

  private usableCustomer(stream: ActiveStream, c: CustomerView | null): CustomerView {
    if (!c) throw new AppError(403, ErrorCode.StreamUnavailable, 'the account is not available for sending');
    if (c.status !== 'active' || c.active !== 1) throw new AppError(403, ErrorCode.StreamUnavailable, `the account cannot send (${c.active !== 1 ? 'not approved' : c.status})`);
    const setting = requiredSetting(stream.streamType);
    if (setting && !truthy(c.settings[setting])) throw new AppError(403, ErrorCode.StreamUnavailable, `the account may not use this channel (${setting})`);
    return c;
  }

  /** Prepares the send, then writes it with the other sends of its batch (group commit); answers after the commit. */
  async send(stream: ActiveStream, body: unknown, flags: SendFlags = {}): Promise<SendResult> {
    const prepared = await this.prepare(stream, body, flags);
    if ('replay' in prepared) return prepared.replay;
    const pending = this.pending(prepared);
    // Two sends with one fingerprint or one key in a batch would not see each other: the later goes in the next batch.
    const keys: string[] = [];
    if (pending.fp) keys.push(`f${prepared.stream.id}:${pending.fp.toString('base64')}`);
    if (prepared.key) keys.push(`k${prepared.stream.id}:${prepared.key}`);
    return this.outcome(prepared, await this.batches.submit(pending, keys));
  }

  /**
   * Everything before the write: stream and account state, validation, an Idempotency-Key replay, content rules and
   * the TPS buckets. Uses the pool, so a caller holding a transaction (OTP) prepares before opening it.
   */
  async prepare(stream: ActiveStream, body: unknown, flags: SendFlags = {}): Promise<PreparedSend | { replay: SendResult }> {
    this.assertStreamCanSend(stream);
    const cached = this.lookups.cachedCustomer(stream.accountId);
    const customer = cached !== undefined ? this.usableCustomer(stream, cached) : await this.customerFor(stream);
    const input = this.validate(stream, body);
    const key = flags.idempotencyKey ?? null;
    if (key !== null && !IDEMPOTENCY_KEY.test(key)) {
      throw AppError.validation([{ propertyPath: 'Idempotency-Key', message: 'an Idempotency-Key is 1 to 255 printable ASCII characters' }]);
    }
    const requestHash = key ? createHash('sha256').update(JSON.stringify([input.destination, input.text, input.sender, input.payload])).digest() : null;
    if (key && requestHash) {
      const replay = await this.findReplay(stream.id, key, requestHash);
      if (replay) return { replay };
    }
    const checked = this.checkContent(stream, customer, input);
    if (checked) await checked;
    const tokens = this.takeTokens(stream, customer);
    if (tokens) await tokens;
    return { stream, customer, input, flags, key, requestHash };
  }

  /** Request body rules; a bad field is 400 0x1 with its violation (an invalid phone is `phone`). */
  validate(stream: ActiveStream, body: unknown): ValidSend {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw AppError.validation([{ propertyPath: '', message: 'the body must be a JSON object' }]);
    const b = body as Record<string, unknown>;
    const violations: Violation[] = [];
    for (const k of Object.keys(b)) if (!BODY_KEYS.has(k)) violations.push({ propertyPath: k, message: `property ${k} should not exist` });
    const channel = channelOf(stream.streamType);

    let destination: string | null = null;
    let iso2: string | null = null;
    if (b.phone === undefined || b.phone === null || b.phone === '') violations.push({ propertyPath: 'phone', message: 'phone is required', code: 'required' });
    else if (channel === Channel.Telegram) {
      destination = normalizeTelegramChat(b.phone);
      if (!destination) violations.push({ propertyPath: 'phone', message: 'a Telegram chat id or @username', code: 'invalidPhone' });
    } else {
      const p = normalizePhone(b.phone);
      if (p) ({ e164: destination, iso2 } = p);
      else if (channel === Channel.TelegramPrivate && (destination = normalizeTelegramChat(b.phone))) iso2 = null;
      else violations.push({ propertyPath: 'phone', message: 'phone is not a valid number', code: 'impossiblePhoneNumber' });
    }

    let payload: Record<string, unknown> | null = null;
    if (b.payload !== undefined && b.payload !== null) {
      if (channel !== Channel.WhatsApp) violations.push({ propertyPath: 'payload', message: 'payload (template or media) is for WhatsApp streams only' });
      else if (typeof b.payload !== 'object' || Array.isArray(b.payload)) violations.push({ propertyPath: 'payload', message: 'payload must be an object' });
      else if (JSON.stringify(b.payload).length > 16_384) violations.push({ propertyPath: 'payload', message: 'payload is too large' });
      else payload = b.payload as Record<string, unknown>;
    }

    let text = '';
    if (b.message !== undefined && b.message !== null && typeof b.message !== 'string') violations.push({ propertyPath: 'message', message: 'message must be a string' });
    else {
      text = typeof b.message === 'string' ? b.message : '';
      if (text.trim() === '' && !payload) violations.push({ propertyPath: 'message', message: 'message is required', code: 'required' });
      else if (text.length > MAX_TEXT_LENGTH) violations.push({ propertyPath: 'message', message: `message has at most ${MAX_TEXT_LENGTH} characters`, code: 'charLimit' });
    }

    let sender = '';
    if (channel === Channel.Sms) {
      const raw = b.sender === undefined || b.sender === null || b.sender === '' ? stream.sender : b.sender;
      const v = senderIdViolations(raw, 'sender');
      if (v.length) violations.push(...v);
      else sender = String(raw).trim();
    } else if (channel === Channel.WhatsApp || channel === Channel.TelegramPrivate) {
      // The provider account sends: the WhatsApp phone number id, the Telegram account's phone.
      sender = stream.params.phone_number ?? stream.sender ?? stream.streamUid;
      if (b.sender !== undefined && b.sender !== null && b.sender !== '' && String(b.sender) !== sender) {
        violations.push({ propertyPath: 'sender', message: `this stream sends as ${sender}` });
      }
    } else {
      sender = stream.sender ?? stream.streamUid;
    }
    if (violations.length) throw AppError.validation(violations);
    return { destination: destination as string, iso2, text, sender, payload };
  }

  /** Approved sender and blocked keywords; synchronous (undefined) when the keyword list is cached and no sender check applies. */
  checkContent(stream: ActiveStream, customer: CustomerView, input: ValidSend): Promise<void> | undefined {
    const senders = channelOf(stream.streamType) === Channel.Sms && truthy(customer.settings.streams_validate_senders);
    const keywords = input.text ? this.lookups.cachedKeywordMatcher() : undefined;
    if (senders || (input.text && !keywords)) return this.checkContentAsync(stream, customer, input);
    if (keywords) refuseBlockedKeyword(keywords, input);
    return undefined;
  }

  /**
   * `checkContent` for many sends of one stream and account (a send batch): the approved senders and the keyword list
   * are looked up once, and the check each send then runs is synchronous, with the same rules and the same errors as
   * `checkContent`'s (docs/decisions/0189).
   */
  async contentChecker(stream: ActiveStream, customer: CustomerView): Promise<(input: ValidSend) => void> {
    const approved = channelOf(stream.streamType) === Channel.Sms && truthy(customer.settings.streams_validate_senders) ? await this.lookups.approvedSenders(stream.accountId) : null;
    const keywords = await this.lookups.keywordMatcher();
    return (input) => {
      if (approved) refuseUnapprovedSender(approved, input);
      refuseBlockedKeyword(keywords, input);
    };
  }

  private async checkContentAsync(stream: ActiveStream, customer: CustomerView, input: ValidSend): Promise<void> {
    if (channelOf(stream.streamType) === Channel.Sms && truthy(customer.settings.streams_validate_senders)) {
      refuseUnapprovedSender(await this.lookups.approvedSenders(stream.accountId), input);
    }
    if (input.text) refuseBlockedKeyword(await this.lookups.keywordMatcher(), input);
  }

  /**
   * Account TPS (0x30 when the account has none), then the stream's own TPS if it has one (0x31). Synchronous while
   * the tokens are at hand (in this process, or kept from a shared grant); a promise when the shared bucket is asked.
   */
  takeTokens(stream: ActiveStream, customer: CustomerView): void | Promise<void> {
    if (!(customer.tps > 0)) throw new AppError(429, ErrorCode.LimitUndefined, 'the account has no sending rate (TPS) set');
    const now = this.clock.now().getTime();
    const streamTps = stream.params.tps;
    const accountRefused = () => new AppError(429, ErrorCode.TpsReached, `TPS limit reached (${customer.tps}/s for the account)`);
    const streamToken = (): void | Promise<void> => {
      if (!streamTps) return;
      const refused = () => {
        this.buckets.refund(`a:${stream.accountId}`);
        return new AppError(429, ErrorCode.TpsReached, `TPS limit reached (${streamTps}/s for the stream)`);
      };
      const took = this.buckets.take(`s:${stream.id}`, streamTps, now);
      if (took === true) return;
      if (took === false) throw refused();
      return took.then((ok) => {
        if (!ok) throw refused();
      });
    };
    const took = this.buckets.take(`a:${stream.accountId}`, customer.tps, now);
    if (took === true) return streamToken();
    if (took === false) throw accountRefused();
    return took.then((ok) => {
      if (!ok) throw accountRefused();
      return streamToken();
    });
  }

  private async findReplay(streamId: string, key: string, requestHash: Buffer, client?: PoolClient): Promise<SendResult | null> {
    const since = new Date(this.clock.now().getTime() - this.o.idempotencyTtlSeconds * 1000);
    const sql = `SELECT request_hash, response FROM streams.idempotency_key WHERE stream_id = $1 AND key = $2 AND created_at > $3`;
    const rows = client ? (await client.query<{ request_hash: Buffer; response: SendAnswer }>(sql, [streamId, key, since])).rows : await this.db.query<{ request_hash: Buffer; response: SendAnswer }>(sql, [streamId, key, since]);
    const row = rows[0];
    if (!row) return null;
    if (!row.request_hash.equals(requestHash)) throw new AppError(422, ErrorCode.InvalidArgument, 'this Idempotency-Key was used with a different request');
    return { body: row.response, replayed: true };
  }

  /** Writes one prepared send on `client`, inside the caller's transaction (OTP), as a batch of one. */
  async commit(p: PreparedSend, client: PoolClient): Promise<SendResult> {
    const [written] = await this.write([this.pending(p)], client);
    return this.outcome(p, written, client);
  }

  /**
   * Writes prepared sends on `client`, inside the caller's transaction (send batches: the batch's answer commits with
   * them), in one `accept_messages` statement; each send's result in order.
   */
  async writeAll(prepared: PreparedSend[], client: PoolClient): Promise<Array<{ result: 'ok' | Refusal; amountMicros: number; currency: string | null; segments: number }>> {
    const pendings = prepared.map((p) => this.pending(p));
    const written = await this.write(pendings, client);
    for (const [n, w] of written.entries()) if (w.row.result === 'ok') this.activity.sent(prepared[n].stream.accountId, prepared[n].stream.id, this.clock.now());
    return written.map((w) => ({ result: w.row.result, amountMicros: Number(w.row.amount_micros), currency: w.row.currency, segments: w.answer.parts }));
  }

  /** Returns a TPS token a send took when something after the bucket refused it. */
  refundTokens(stream: ActiveStream): void {
    this.buckets.refund(`a:${stream.accountId}`);
    if (stream.params.tps) this.buckets.refund(`s:${stream.id}`);
  }

  private pending(p: PreparedSend): Pending {
    const { input, flags } = p;
    const fp =
      !flags.otp && !flags.noFingerprint && this.o.duplicateWindowSeconds > 0
        ? createHash('sha256').update(`${input.destination}\u0000${input.sender}\u0000${input.text}\u0000${input.payload ? JSON.stringify(input.payload) : ''}`).digest()
        : null;
    return { p, traceId: RequestContext.current()?.traceId ?? null, traceparent: currentTraceparent(), fp };
  }

  /** A batch of the group commit: one `accept_messages` statement, one commit. */
  private async writeBatch(items: Pending[]): Promise<Written[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const written = await this.write(items);
        this.relay.kickSoon();
        return written;
      } catch (e) {
        // A deadlock with another writer rolled the whole batch back: nothing of it was written.
        if (attempt >= 3 || !RETRYABLE.has((e as { code?: string }).code ?? '')) throw e;
      }
    }
  }

  private async write(items: Pending[], client?: PoolClient): Promise<Written[]> {
    const now = this.clock.now();
    const at = now.toISOString();
    const answers: AnswerBase[] = [];
    // The heads' pieces the sends of one stream and trace share, sent once for the batch (docs/decisions/0167).
    // A group of one send (an API request's) keeps its own heads: nothing to share.
    const keys = items.map(headGroupKey);
    const sizes = new Map<string, number>();
    for (const k of keys) sizes.set(k, (sizes.get(k) ?? 0) + 1);
    const compact = this.compact(items, keys, sizes, at);
    if (compact) return this.writeCompact(items, compact, now, client);
    const groups = new Map<string, (HeadPieces & { h: number }) | null>();
    const rows = items.map((it, n) => {
      const { row, answer } = this.row(it, n + 1, at, sizes.get(keys[n])! > 1 ? { key: keys[n], groups } : null);
      answers.push(answer);
      return row;
    });
    const heads = [...groups.values()].filter((g) => g !== null);
    const values = [JSON.stringify(rows), heads.length ? JSON.stringify(heads) : null, ...this.tail(now), this.outboxSql];
    const result = await this.db.prepared<AcceptedRow>('streams_accept_messages_v2', ACCEPT_SQL, values, client);
    if (result.length !== items.length) throw new Error(`accept_messages answered ${result.length} rows for ${items.length} sends`);
    return result.map((row, n) => ({ row, answer: answers[n] }));
  }

  /** `accept_messages`' parameters after the batch's: the instant, its day, and the options. */
  private tail(now: Date): unknown[] {
    const dedupeUntil = this.o.duplicateWindowSeconds > 0 ? new Date(now.getTime() + this.o.duplicateWindowSeconds * 1000) : null;
    return [now, utcDay(now), this.o.balanceSlots, this.o.defaultPriceMicros, dedupeUntil, this.o.idempotencyTtlSeconds];
  }

  /**
   * The batch's head groups for a compact write (docs/decisions/0210), when every send shares its heads with another
   * (a send batch's; the stream API's requests, each a group of one, keep the full form), every group's heads can be cut
   * (`headPieces`) and every uuid is canonical (the full form's events carry PostgreSQL's text of it); else null.
   */
  private compact(items: Pending[], keys: string[], sizes: Map<string, number>, at: string): { groups: CompactGroup[]; of: number[] } | null {
    if (!this.o.compactSendRows) return null;
    const index = new Map<string, number>();
    const groups: CompactGroup[] = [];
    const of = new Array<number>(items.length);
    for (let n = 0; n < items.length; n++) {
      const key = keys[n];
      if (sizes.get(key)! < 2) return null;
      const uuid = items[n].p.flags.messageUuid;
      if (uuid !== undefined && !CANONICAL_UUID.test(uuid)) return null;
      let g = index.get(key);
      if (g === undefined) {
        const { stream } = items[n].p;
        const channel = channelOf(stream.streamType);
        const pieces = headPieces(stream, channel, at, items[n]);
        if (!pieces) return null;
        g = groups.length;
        groups.push(compactGroup(stream, channel, items[n], pieces));
        index.set(key, g);
      }
      of[n] = g;
    }
    return { groups, of };
  }

  /** A batch written by `accept_messages_compact`: its rows without heads, its events as one text the statement does not parse. */
  private async writeCompact(items: Pending[], compact: { groups: CompactGroup[]; of: number[] }, now: Date, client?: PoolClient): Promise<Written[]> {
    const at = now.toISOString();
    const answers: AnswerBase[] = [];
    const rows: SendRow[] = [];
    const sends: Array<{ g: number; aid: string; cid: string; uuid: string; middle: string }> = [];
    for (let n = 0; n < items.length; n++) {
      const { row, answer, events } = this.compactRow(items[n], n + 1);
      answers.push(answer);
      rows.push(row);
      sends.push({ g: compact.of[n], ...events });
    }
    const text = compactEventsText(this.foldType, at, compact.groups, sends);
    const values = [JSON.stringify(rows), text, ...this.tail(now), this.compactOutboxSql];
    const result = await this.db.prepared<AcceptedRow>('streams_accept_messages_compact', ACCEPT_COMPACT_SQL, values, client);
    if (result.length !== items.length) throw new Error(`accept_messages_compact answered ${result.length} rows for ${items.length} sends`);
    return result.map((row, n) => ({ row, answer: answers[n] }));
  }

  /** A send's row (no heads) and answer, and its events' own values, for a compact write (the same values as `row`'s). */
  private compactRow(it: Pending, i: number): { row: SendRow; answer: AnswerBase; events: { aid: string; cid: string; uuid: string; middle: string } } {
    const { input, flags } = it.p;
    const { uuid, segments, encoding } = this.shape(it);
    const middle = acceptedMiddle({
      sender: input.sender,
      destination: input.destination,
      iso2: input.iso2,
      text: input.text,
      encoding,
      segments,
      payload: input.payload,
      campaignId: flags.campaignId ?? null,
      notBefore: flags.notBefore ?? null,
      variantId: flags.variantId ?? undefined,
    });
    const { row, answer } = this.baseRow(it, i, uuid, segments, encoding);
    return { row, answer, events: { aid: acceptedEventId(uuid), cid: timeOrderedUuid(), uuid, middle } };
  }

  /** A send's segments and encoding (SMS), and its message uuid. */
  private shape(it: Pending): { uuid: string; segments: number; encoding: ReturnType<typeof analyzeSms>['encoding'] | null } {
    const sms = channelOf(it.p.stream.streamType) === Channel.Sms ? analyzeSms(it.p.input.text) : null;
    // a message of its own (not a campaign's, whose uuid is derived): time-ordered, so it appends to streams.message's
    // key and to every other service's index on the message uuid (docs/decisions/0161)
    return { uuid: it.p.flags.messageUuid ?? timeOrderedUuid(), segments: sms ? sms.segments : 1, encoding: sms ? sms.encoding : null };
  }

  private row(it: Pending, i: number, at: string, shared: { key: string; groups: Map<string, (HeadPieces & { h: number }) | null> } | null): { row: SendRow; answer: AnswerBase } {
    const { stream, input, flags } = it.p;
    const channel = channelOf(stream.streamType);
    const { uuid, segments, encoding } = this.shape(it);
    const accountId = stream.accountId;
    const acceptedId = acceptedEventId(uuid);
    const chargedId = timeOrderedUuid();
    const campaignId = flags.campaignId ?? null;
    const notBefore = flags.notBefore ?? null;
    // only a campaign item that names its variant carries one: every other accepted event stays as it was
    const variantId = flags.variantId ?? undefined;
    let heads: Pick<SendRow, 'accepted' | 'charged' | 'h' | 'aid' | 'cid' | 'v'>;
    let group = shared ? shared.groups.get(shared.key) : null;
    if (shared && group === undefined) {
      const pieces = headPieces(stream, channel, at, it);
      group = pieces ? { h: shared.groups.size + 1, ...pieces } : null;
      shared.groups.set(shared.key, group);
    }
    if (group && CANONICAL_UUID.test(uuid)) {
      const v = acceptedMiddle({ sender: input.sender, destination: input.destination, iso2: input.iso2, text: input.text, encoding, segments, payload: input.payload, campaignId, notBefore, variantId });
      heads = { h: group.h, aid: acceptedId, cid: chargedId, v };
    } else {
      const accepted = eventHead(
        MessageAcceptedV1,
        // deterministic: a re-publish by the undispatched sweeper (docs/decisions/0087) is the same event
        acceptedId,
        at,
        accountId,
        it,
        {
          messageUuid: uuid,
          accountId,
          streamId: stream.id,
          streamUid: stream.streamUid,
          streamType: stream.streamType,
          channel,
          sender: input.sender,
          destination: input.destination,
          iso2: input.iso2,
          text: input.text,
          encoding,
          segments,
          payload: input.payload,
          campaignId,
          notBefore,
          variantId,
          acceptedAt: at,
        },
        'priceMicros',
      );
      heads = { accepted, charged: eventHead(MessageChargedV1, chargedId, at, accountId, it, { messageUuid: uuid, accountId }, 'amountMicros') };
    }
    const { row, answer } = this.baseRow(it, i, uuid, segments, encoding);
    return { row: { ...row, ...heads }, answer };
  }

  /** A send's row without its events' heads, and its answer. */
  private baseRow(it: Pending, i: number, uuid: string, segments: number, encoding: ReturnType<typeof analyzeSms>['encoding'] | null): { row: SendRow; answer: AnswerBase } {
    const { stream, input, flags, key, requestHash } = it.p;
    const channel = channelOf(stream.streamType);
    const answer: AnswerBase = {
      code: 'OK',
      message_uuid: uuid,
      status: 'accepted',
      stream_uid: stream.streamUid,
      destination: input.destination,
      country: input.iso2,
      sender: input.sender,
      parts: segments,
      encoding,
    };
    return {
      answer,
      row: {
        i,
        uuid,
        account_id: stream.accountId,
        stream_id: stream.id,
        campaign_id: flags.campaignId ?? null,
        sender: input.sender,
        destination: input.destination,
        iso2: input.iso2,
        stored_text: flags.otp ? flags.otp.maskedText : input.text,
        encoding,
        segments,
        demo: flags.demo ?? false,
        // Telegram has no country to price by: its messages are free here (docs/decisions/0014-streams.md).
        price_override: channel === Channel.Telegram || channel === Channel.TelegramPrivate ? 0 : undefined,
        fp: it.fp ? `\\x${it.fp.toString('hex')}` : undefined,
        idem_key: key ?? undefined,
        idem_hash: key && requestHash ? `\\x${requestHash.toString('hex')}` : undefined,
        idem_response: key ? answer : undefined,
      },
    };
  }

  /** The send's answer, or its refusal; a duplicate or a key in use replays the stored answer of its Idempotency-Key. */
  private async outcome(p: PreparedSend, { row, answer }: Written, client?: PoolClient): Promise<SendResult> {
    const { stream, customer, input, key, requestHash } = p;
    switch (row.result) {
      case 'ok': {
        this.activity.sent(stream.accountId, stream.id, this.clock.now());
        return { body: { ...answer, price: Number(row.amount_micros) / 1_000_000, currency: row.currency ?? customer.currency }, replayed: false };
      }
      case 'no_customer':
        throw new AppError(403, ErrorCode.StreamUnavailable, 'the account is not available for sending');
      case 'no_price':
        throw new AppError(400, ErrorCode.InvalidArgument, `no price for destination country ${input.iso2 ?? 'unknown'}`);
      case 'daily_limit':
        throw new AppError(429, ErrorCode.LimitUndefined, 'the daily message limit of the account is reached');
      case 'payment_required':
        throw new AppError(402, ErrorCode.PaymentRequired, 'payment required: the balance does not cover this message');
      case 'duplicate': {
        if (key && requestHash) {
          const replay = await this.findReplay(stream.id, key, requestHash, client);
          if (replay) return replay;
        }
        throw new AppError(409, ErrorCode.DuplicateMessage, `duplicate message: the same text went to this destination within ${this.o.duplicateWindowSeconds} s`);
      }
      case 'key_in_use': {
        const replay = key && requestHash ? await this.findReplay(stream.id, key, requestHash, client) : null;
        if (replay) return replay;
        throw new AppError(409, ErrorCode.InvalidArgument, 'a request with this Idempotency-Key is in progress');
      }
    }
  }
}

export function truthy(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true';
}
