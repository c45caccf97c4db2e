import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { TelegramAuthCompletedV1, TelegramCodeRequestedV1 } from '@switchboard/contracts';
import { createEnvelope, Outbox, type OutgoingEvent } from '@switchboard/platform';
import { GramJsGateway, type TelegramLoginGateway } from '../adapters/telegram-private.adapter';
import { DISPATCH_CONNECTION, DISPATCH_OPTIONS, DISPATCH_SCHEMA, type ResolvedDispatchOptions } from '../dispatch.options';
import { ReadModelRepository, type StreamChannelRow } from '../repositories/read-model.repository';
import { DispatchOutboxRelay } from './events.service';
import { StreamChannelCache } from './stream-channel.cache';

interface AuthState {
  phoneCodeHash?: string;
  session?: string;
  passwordNeeded?: boolean;
  authorised?: boolean;
}

/**
 * The login of a Telegram private stream: code requested when the stream is configured, signed in with the code
 * (and the two-step password) that streams collects in its OTP step; the session is kept for sending.
 */
@Injectable()
export class TelegramAuthService {
  private readonly log = new Logger(TelegramAuthService.name);
  private readonly gateway: TelegramLoginGateway | null;

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    @Inject(DISPATCH_OPTIONS) options: ResolvedDispatchOptions,
    private readonly readModels: ReadModelRepository,
    private readonly cache: StreamChannelCache,
    private readonly relay: DispatchOutboxRelay,
  ) {
    this.gateway = options.telegramGateway ?? (options.telegramPrivate ? new GramJsGateway(options.telegramPrivate) : null);
  }

  private async emit(events: OutgoingEvent[]): Promise<void> {
    await this.ds.transaction((m) => Outbox.add(m, DISPATCH_SCHEMA, events));
    this.relay.kick();
  }

  private async save(stream: StreamChannelRow, state: AuthState): Promise<void> {
    await this.readModels.setAuthState(stream.streamId, this.cache.sealAuthState(stream.streamUid, state as Record<string, unknown>));
    const fresh = await this.readModels.streamChannel(stream.streamId);
    if (fresh) this.cache.put(fresh);
  }

  async requestCode(stream: StreamChannelRow): Promise<void> {
    const phone = stream.credentials.phone ?? stream.sender;
    const meta = { accountId: stream.accountId, source: 'dispatch' };
    const base = { accountId: String(stream.accountId), streamId: String(stream.streamId), streamUid: stream.streamUid, phone };
    if (!this.gateway) {
      await this.emit([createEnvelope(TelegramCodeRequestedV1, { ...base, error: 'Telegram private is not configured on this server' }, meta)]);
      return;
    }
    try {
      const r = await this.gateway.sendCode(phone, '');
      await this.save(stream, { phoneCodeHash: r.phoneCodeHash, session: r.session });
      await this.emit([createEnvelope(TelegramCodeRequestedV1, { ...base, error: null }, meta)]);
    } catch (e) {
      this.log.warn(`sendCode for stream ${stream.streamId} failed: ${String(e)}`);
      await this.emit([createEnvelope(TelegramCodeRequestedV1, { ...base, error: String((e as { errorMessage?: string }).errorMessage ?? e) }, meta)]);
    }
  }

  async submitCode(streamId: string, code: string, password: string | null): Promise<void> {
    const stream = await this.readModels.streamChannel(streamId);
    if (!stream || stream.channel !== 'telegram_private') return;
    const state = this.cache.openAuthState(stream) as AuthState;
    const meta = { accountId: stream.accountId, source: 'dispatch' };
    const done = (ok: boolean, error: string | null) =>
      this.emit([createEnvelope(TelegramAuthCompletedV1, { accountId: String(stream.accountId), streamId: String(stream.streamId), streamUid: stream.streamUid, ok, error }, meta)]);
    if (!this.gateway || !state.phoneCodeHash) return done(false, 'no login code was requested for this stream');
    const phone = stream.credentials.phone ?? stream.sender;
    try {
      let session = state.session ?? '';
      if (!state.passwordNeeded) {
        const r = await this.gateway.signIn(phone, state.phoneCodeHash, code, session);
        session = r.session;
        if ('passwordNeeded' in r) {
          if (!password) {
            await this.save(stream, { ...state, session, passwordNeeded: true });
            return done(false, 'PASSWORD_NEEDED');
          }
          session = (await this.gateway.signInWithPassword(password, session)).session;
        }
      } else {
        if (!password) return done(false, 'PASSWORD_NEEDED');
        session = (await this.gateway.signInWithPassword(password, session)).session;
      }
      await this.save(stream, { session, authorised: true });
      await done(true, null);
    } catch (e) {
      await done(false, String((e as { errorMessage?: string }).errorMessage ?? e));
    }
  }
}
