import { Inject, Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { ErrorCode, OtpVerifiedV1, StreamType, Topics } from '@switchboard/contracts';
import { AppError, RequestContext } from '@switchboard/platform';
import { Clock } from '../clock';
import { plainIp } from '../rules/ip-acl';
import { generateOtpCode, otpCodeHash, renderOtpMessage, sameHash } from '../rules/otp';
import { normalizePhone } from '../rules/phone';
import { otpRules, type OtpRules } from '../rules/stream-params';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import type { ActiveStream } from './lookups.service';
import { SendDatabase } from './send-database';
import { SendService, type SendAnswer } from './send.service';
import { StreamsOutboxRelay, StreamsUnitOfWork } from './streams-events.service';

export interface OtpRequestAnswer extends SendAnswer {
  otp_id: string;
  expires_at: string;
  ttl: number;
}

export interface OtpVerifyAnswer {
  code: 'OK';
  verified: true;
  otp_id: string;
  destination: string;
}

const REQUEST_KEYS = new Set(['phone', 'sender']);
const VERIFY_KEYS = new Set(['phone', 'code']);

/**
 * OTP streams: `request` generates a code (the stream's generator and length), sends it through the send pipeline
 * with the stream's message and stores only its HMAC; `verify` checks it. Per destination and stream, within the
 * cool-down window: at most `max_attempts` requests (0x32), at most `max_attempts_ip` requests from one address (0x32),
 * at most `max_failures` wrong codes (0x33, then locked until the window passes). Each destination's requests and
 * verifications are serialised by an advisory lock, so concurrent calls cannot overrun the counts.
 */
@Injectable()
export class OtpService {
  constructor(
    private readonly db: SendDatabase,
    private readonly sends: SendService,
    private readonly uow: StreamsUnitOfWork,
    private readonly relay: StreamsOutboxRelay,
    private readonly clock: Clock,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
  ) {}

  async request(stream: ActiveStream, body: unknown): Promise<OtpRequestAnswer> {
    this.assertOtpStream(stream);
    const b = this.object(body, REQUEST_KEYS);
    const phone = this.phone(b.phone);
    const rules = otpRules(stream.params);
    const ip = this.ip();
    const now = this.clock.now();
    const since = new Date(now.getTime() - rules.coolDown * 1000);
    const code = generateOtpCode(rules.generator, rules.length);
    const text = renderOtpMessage(rules.message, code);
    const masked = renderOtpMessage(rules.message, '*'.repeat(code.length));
    const prepared = await this.sends.prepare(stream, { phone, ...(b.sender !== undefined ? { sender: b.sender } : {}), message: text }, { otp: { maskedText: masked } });
    if ('replay' in prepared) throw new Error('an OTP send has no Idempotency-Key to replay');
    const result = await this.db.transaction(async (c) => {
      await this.lock(c, stream.id, phone);
      await this.assertNotLocked(c, stream.id, phone, since, rules);
      const [{ n }] = (await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM streams.otp WHERE stream_id = $1 AND destination = $2 AND created_at > $3`, [stream.id, phone, since])).rows;
      if (n >= rules.maxAttempts) throw new AppError(429, ErrorCode.MaxOtpRequests, `too many codes requested for this number: at most ${rules.maxAttempts} within ${rules.coolDown} s`);
      if (ip) {
        const [{ m }] = (await c.query<{ m: number }>(`SELECT count(*)::int AS m FROM streams.otp WHERE stream_id = $1 AND ip = $2 AND created_at > $3`, [stream.id, ip, since])).rows;
        if (m >= rules.maxAttemptsIp) throw new AppError(429, ErrorCode.MaxOtpRequests, `too many codes requested from this address: at most ${rules.maxAttemptsIp} within ${rules.coolDown} s`);
      }
      const sent = await this.sends.commit(prepared, c);
      // A new code replaces the ones still open for the number.
      await c.query(`UPDATE streams.otp SET expires_at = $3 WHERE stream_id = $1 AND destination = $2 AND verified_at IS NULL AND expires_at > $3`, [stream.id, phone, now]);
      const expiresAt = new Date(now.getTime() + rules.ttl * 1000);
      const [{ id }] = (
        await c.query<{ id: string }>(
          `INSERT INTO streams.otp (account_id, stream_id, destination, ip, code_hash, message_uuid, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id::text`,
          [stream.accountId, stream.id, phone, ip, otpCodeHash(this.o.secret, stream.id, phone, code), sent.body.message_uuid, now, expiresAt],
        )
      ).rows;
      return { ...sent.body, otp_id: id, expires_at: expiresAt.toISOString(), ttl: rules.ttl };
    });
    this.relay.kickSoon();
    return result;
  }

  async verify(stream: ActiveStream, body: unknown): Promise<OtpVerifyAnswer> {
    this.assertOtpStream(stream);
    this.sends.assertStreamCanSend(stream);
    const b = this.object(body, VERIFY_KEYS);
    const phone = this.phone(b.phone);
    if (typeof b.code !== 'string' && typeof b.code !== 'number') throw AppError.validation([{ propertyPath: 'code', message: 'code is required', code: 'required' }]);
    const code = String(b.code).trim();
    if (!/^[A-Za-z0-9]{4,8}$/.test(code)) throw AppError.validation([{ propertyPath: 'code', message: 'code has 4 to 8 letters or digits' }]);
    const rules = otpRules(stream.params);
    const now = this.clock.now();
    const since = new Date(now.getTime() - rules.coolDown * 1000);
    // A wrong code must be counted even though the call fails: the outcome is decided in the transaction and thrown after it.
    const outcome = await this.db.transaction(async (c): Promise<OtpVerifyAnswer | AppError> => {
      await this.lock(c, stream.id, phone);
      await this.assertNotLocked(c, stream.id, phone, since, rules);
      const [otp] = (
        await c.query<{ id: string; code_hash: Buffer; expires_at: Date }>(
          `SELECT id::text, code_hash, expires_at FROM streams.otp WHERE stream_id = $1 AND destination = $2 AND verified_at IS NULL ORDER BY id DESC LIMIT 1`,
          [stream.id, phone],
        )
      ).rows;
      if (!otp || otp.expires_at.getTime() <= now.getTime()) return new AppError(400, ErrorCode.InvalidArgument, otp ? 'the code has expired: request a new one' : 'no code was requested for this number');
      if (sameHash(otp.code_hash, otpCodeHash(this.o.secret, stream.id, phone, code))) {
        await c.query(`UPDATE streams.otp SET verified_at = $2 WHERE id = $1`, [otp.id, now]);
        const event = this.uow.envelope(OtpVerifiedV1, { otpId: otp.id, accountId: stream.accountId, streamId: stream.id, destination: phone, verifiedAt: now.toISOString() }, stream.accountId);
        const { topic: _t, ...envelope } = event;
        await c.query(`INSERT INTO streams.outbox (event_id, topic, key, type, payload) VALUES ($1, $2, $3, $4, $5)`, [event.id, Topics.Streams, event.key, event.type, JSON.stringify(envelope)]);
        return { code: 'OK', verified: true, otp_id: otp.id, destination: phone };
      }
      await c.query(`UPDATE streams.otp SET failures = failures + 1, last_failure_at = $2 WHERE id = $1`, [otp.id, now]);
      const failures = await this.failures(c, stream.id, phone, since);
      if (failures >= rules.maxFailures) {
        await c.query(`UPDATE streams.otp SET expires_at = least(expires_at, $2) WHERE id = $1`, [otp.id, now]);
        return this.lockedError(rules);
      }
      return new AppError(400, ErrorCode.InvalidArgument, `wrong code: ${rules.maxFailures - failures} attempts left`);
    });
    if (outcome instanceof AppError) throw outcome;
    this.relay.kick();
    return outcome;
  }

  private assertOtpStream(stream: ActiveStream): void {
    if (stream.streamType !== StreamType.Otp) throw new AppError(400, ErrorCode.InvalidArgument, 'this is not an OTP stream');
  }

  private object(body: unknown, keys: Set<string>): Record<string, unknown> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw AppError.validation([{ propertyPath: '', message: 'the body must be a JSON object' }]);
    const extra = Object.keys(body).filter((k) => !keys.has(k));
    if (extra.length) throw AppError.validation(extra.map((k) => ({ propertyPath: k, message: `property ${k} should not exist` })));
    return body as Record<string, unknown>;
  }

  private phone(raw: unknown): string {
    if (raw === undefined || raw === null || raw === '') throw AppError.validation([{ propertyPath: 'phone', message: 'phone is required', code: 'required' }]);
    const p = normalizePhone(raw);
    if (!p) throw AppError.validation([{ propertyPath: 'phone', message: 'phone is not a valid number', code: 'impossiblePhoneNumber' }]);
    return p.e164;
  }

  private ip(): string | null {
    const ip = RequestContext.current()?.ip ?? null;
    return ip ? plainIp(ip) : null;
  }

  private async lock(c: PoolClient, streamId: string, destination: string): Promise<void> {
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`otp:${streamId}:${destination}`]);
  }

  private async failures(c: PoolClient, streamId: string, destination: string, since: Date): Promise<number> {
    const [{ f }] = (
      await c.query<{ f: number }>(`SELECT coalesce(sum(failures), 0)::int AS f FROM streams.otp WHERE stream_id = $1 AND destination = $2 AND last_failure_at > $3`, [streamId, destination, since])
    ).rows;
    return f;
  }

  /** Locked: `max_failures` wrong codes whose last failure is within the cool-down window. */
  private async assertNotLocked(c: PoolClient, streamId: string, destination: string, since: Date, rules: OtpRules): Promise<void> {
    if ((await this.failures(c, streamId, destination, since)) >= rules.maxFailures) throw this.lockedError(rules);
  }

  private lockedError(rules: OtpRules): AppError {
    return new AppError(429, ErrorCode.MaxOtpFailures, `too many wrong codes: try again after ${rules.coolDown} s`);
  }
}
