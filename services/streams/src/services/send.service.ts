import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import {
  analyzeSms,
  Channel,
  ErrorCode,
  MessageAcceptedV1,
  MessageChargedV1,
  StreamStatus,
  Topics,
  type Violation,
} from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import { Clock } from '../clock';
import { normalizePhone, normalizeTelegramChat } from '../rules/phone';
import { senderIdViolations } from '../rules/sender-id';
import { channelOf, requiredSetting } from '../rules/stream-params';
import { TokenBuckets } from '../rules/token-bucket';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import { ActivityService } from './activity.service';
import { LookupsService, type ActiveStream, type CustomerView } from './lookups.service';
import { SendDatabase } from './send-database';
import { StreamsOutboxRelay, StreamsUnitOfWork } from './streams-events.service';

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

interface ValidSend {
  destination: string;
  iso2: string | null;
  text: string;
  sender: string;
  payload: Record<string, unknown> | null;
}

interface AcceptRow {
  result: 'ok' | 'no_customer' | 'no_price' | 'daily_limit' | 'duplicate';
  amount_micros: string;
  currency: string | null;
  balance_after: string | null;
}

const utcDay = (d: Date): string => d.toISOString().slice(0, 10);
const ACCEPT_SQL = `SELECT result, amount_micros::text, currency, balance_after::text FROM streams.accept_message(${Array.from({ length: 25 }, (_, i) => `$${i + 1}`).join(', ')})`;

/**
 * The send pipeline behind the stream API, the console demo, OTP requests and replies: stream and account checks,
 * validation, idempotency, content rules, TPS buckets, then `accept_message`, which prices, checks the daily limit and
 * duplicates, debits the balance, stores the message and its outbox events in one statement. Durable before the answer.
 */
@Injectable()
export class SendService {
  private readonly buckets = new TokenBuckets();

  constructor(
    private readonly db: SendDatabase,
    private readonly lookups: LookupsService,
    private readonly uow: StreamsUnitOfWork,
    private readonly relay: StreamsOutboxRelay,
    private readonly activity: ActivityService,
    private readonly clock: Clock,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
  ) {}

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
    const c = await this.lookups.customer(stream.accountId);
    if (!c) throw new AppError(403, ErrorCode.StreamUnavailable, 'the account is not available for sending');
    if (c.status !== 'active' || c.active !== 1) throw new AppError(403, ErrorCode.StreamUnavailable, `the account cannot send (${c.active !== 1 ? 'not approved' : c.status})`);
    const setting = requiredSetting(stream.streamType);
    if (setting && !truthy(c.settings[setting])) throw new AppError(403, ErrorCode.StreamUnavailable, `the account may not use this channel (${setting})`);
    return c;
  }

  async send(stream: ActiveStream, body: unknown, flags: SendFlags = {}): Promise<SendResult> {
    const prepared = await this.prepare(stream, body, flags);
    return 'replay' in prepared ? prepared.replay : this.commit(prepared);
  }

  /**
   * Everything before the write: stream and account state, validation, an Idempotency-Key replay, content rules and
   * the TPS buckets. Uses the pool, so a caller holding a transaction (OTP) prepares before opening it.
   */
  async prepare(stream: ActiveStream, body: unknown, flags: SendFlags = {}): Promise<PreparedSend | { replay: SendResult }> {
    this.assertStreamCanSend(stream);
    const customer = await this.customerFor(stream);
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
    await this.checkContent(stream, customer, input);
    this.takeTokens(stream, customer);
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

  private async checkContent(stream: ActiveStream, customer: CustomerView, input: ValidSend): Promise<void> {
    if (channelOf(stream.streamType) === Channel.Sms && truthy(customer.settings.streams_validate_senders)) {
      const approved = await this.lookups.approvedSenders(stream.accountId);
      if (!approved.has(input.sender.toLowerCase())) throw new AppError(400, ErrorCode.InvalidArgument, `sender ${input.sender} is not an approved sender of the account`);
    }
    if (input.text) {
      const hit = (await this.lookups.keywordMatcher()).find(input.text);
      if (hit) throw new AppError(400, ErrorCode.InvalidArgument, 'the message contains a blocked keyword');
    }
  }

  /** Account TPS (0x30 when the account has none), then the stream's own TPS if it has one (0x31). */
  private takeTokens(stream: ActiveStream, customer: CustomerView): void {
    if (!(customer.tps > 0)) throw new AppError(429, ErrorCode.LimitUndefined, 'the account has no sending rate (TPS) set');
    const now = this.clock.now().getTime();
    if (!this.buckets.take(`a:${stream.accountId}`, customer.tps, now)) throw new AppError(429, ErrorCode.TpsReached, `TPS limit reached (${customer.tps}/s for the account)`);
    const streamTps = stream.params.tps;
    if (streamTps && !this.buckets.take(`s:${stream.id}`, streamTps, now)) {
      this.buckets.refund(`a:${stream.accountId}`);
      throw new AppError(429, ErrorCode.TpsReached, `TPS limit reached (${streamTps}/s for the stream)`);
    }
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

  /** The write: one `accept_message` statement, on `client` when given (inside the caller's transaction). */
  async commit(p: PreparedSend, client?: PoolClient): Promise<SendResult> {
    const { stream, customer, input, flags, key, requestHash } = p;
    const now = this.clock.now();
    const channel = channelOf(stream.streamType);
    const sms = channel === Channel.Sms ? analyzeSms(input.text) : null;
    const segments = sms ? sms.segments : 1;
    const encoding = sms ? sms.encoding : null;
    const uuid = randomUUID();
    const accepted = this.uow.trustedEnvelope(
      MessageAcceptedV1,
      {
        messageUuid: uuid,
        accountId: stream.accountId,
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
        // priced in the statement, from the price read model
        priceMicros: 0,
        currency: customer.currency,
        payload: input.payload,
        campaignId: flags.campaignId ?? null,
        notBefore: null,
        acceptedAt: now.toISOString(),
      },
      stream.accountId,
    );
    const charged = this.uow.trustedEnvelope(MessageChargedV1, { messageUuid: uuid, accountId: stream.accountId, amountMicros: 0, currency: customer.currency, balanceAfterMicros: 0 }, stream.accountId);
    const dedupe = !flags.otp && this.o.duplicateWindowSeconds > 0;
    const fp = dedupe ? createHash('sha256').update(`${input.destination}\u0000${input.sender}\u0000${input.text}\u0000${input.payload ? JSON.stringify(input.payload) : ''}`).digest() : null;
    const answer: Omit<SendAnswer, 'price' | 'currency'> = {
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
    // Telegram has no country to price by: its messages are free here (docs/decisions/0014-streams.md).
    const priceOverride = channel === Channel.Telegram || channel === Channel.TelegramPrivate ? 0 : null;
    const values = [
      uuid,
      stream.accountId,
      stream.id,
      flags.campaignId ?? null,
      input.sender,
      input.destination,
      input.iso2,
      flags.otp ? flags.otp.maskedText : input.text,
      encoding,
      segments,
      flags.demo ?? false,
      now,
      utcDay(now),
      this.o.balanceSlots,
      priceOverride,
      this.o.defaultPriceMicros,
      fp,
      fp ? new Date(now.getTime() + this.o.duplicateWindowSeconds * 1000) : null,
      key,
      requestHash,
      key ? JSON.stringify(answer) : null,
      this.o.idempotencyTtlSeconds,
      Topics.Streams,
      JSON.stringify(accepted),
      JSON.stringify(charged),
    ];
    let row: AcceptRow;
    try {
      [row] = await this.db.prepared<AcceptRow>('streams_accept_message_v1', ACCEPT_SQL, values, client);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'SB041') throw new AppError(402, ErrorCode.PaymentRequired, 'payment required: the balance does not cover this message');
      if (code === 'SB409' && key && requestHash) {
        const replay = await this.findReplay(stream.id, key, requestHash, client);
        if (replay) return replay;
        throw new AppError(409, ErrorCode.InvalidArgument, 'a request with this Idempotency-Key is in progress');
      }
      throw e;
    }
    switch (row.result) {
      case 'ok':
        break;
      case 'no_customer':
        throw new AppError(403, ErrorCode.StreamUnavailable, 'the account is not available for sending');
      case 'no_price':
        throw new AppError(400, ErrorCode.InvalidArgument, `no price for destination country ${input.iso2 ?? 'unknown'}`);
      case 'daily_limit':
        throw new AppError(429, ErrorCode.LimitUndefined, 'the daily message limit of the account is reached');
      case 'duplicate': {
        if (key && requestHash) {
          const replay = await this.findReplay(stream.id, key, requestHash, client);
          if (replay) return replay;
        }
        throw new AppError(409, ErrorCode.DuplicateMessage, `duplicate message: the same text went to this destination within ${this.o.duplicateWindowSeconds} s`);
      }
    }
    if (!client) this.relay.kickSoon();
    this.activity.sent(stream.accountId, stream.id, now);
    const amount = Number(row.amount_micros);
    return { body: { ...answer, price: amount / 1_000_000, currency: row.currency ?? customer.currency }, replayed: false };
  }
}

export function truthy(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 'true';
}
