import { Logger } from '@nestjs/common';
import { Api, TelegramClient } from 'telegram';
import { StringSession } from 'telegram/sessions';
import { ProviderAdapter, type AdapterSink, type OutboundMessage, type SendOutcome } from './provider-adapter';

export interface MtprotoCredentials {
  apiId: number;
  apiHash: string;
}

/** The three steps of a user-account login, behind an interface so the flow is testable without Telegram. */
export interface TelegramLoginGateway {
  /** Asks Telegram to send a login code to the phone; returns the hash the sign-in needs and the session so far. */
  sendCode(phone: string, session: string): Promise<{ phoneCodeHash: string; session: string }>;
  /** Signs in with the code; `passwordNeeded` when the account has two-step verification. */
  signIn(phone: string, phoneCodeHash: string, code: string, session: string): Promise<{ session: string } | { passwordNeeded: true; session: string }>;
  signInWithPassword(password: string, session: string): Promise<{ session: string }>;
  sendMessage(session: string, to: string, text: string): Promise<{ id: string }>;
}

/** The real gateway: GramJS (`telegram` package) over MTProto. Needs network access to Telegram's data centres. */
export class GramJsGateway implements TelegramLoginGateway {
  private readonly log = new Logger(GramJsGateway.name);

  constructor(private readonly creds: MtprotoCredentials) {}

  private async client(session: string): Promise<TelegramClient> {
    const client = new TelegramClient(new StringSession(session), this.creds.apiId, this.creds.apiHash, { connectionRetries: 2 });
    client.setLogLevel('error' as never);
    await client.connect();
    return client;
  }

  private async with<T>(session: string, fn: (c: TelegramClient) => Promise<T>): Promise<T> {
    const c = await this.client(session);
    try {
      return await fn(c);
    } finally {
      await c.disconnect().catch((e: unknown) => this.log.warn(`disconnect: ${String(e)}`));
    }
  }

  sendCode(phone: string, session: string) {
    return this.with(session, async (c) => {
      const r = await c.sendCode({ apiId: this.creds.apiId, apiHash: this.creds.apiHash }, phone);
      return { phoneCodeHash: r.phoneCodeHash, session: String(c.session.save()) };
    });
  }

  signIn(phone: string, phoneCodeHash: string, code: string, session: string) {
    return this.with(session, async (c): Promise<{ session: string } | { passwordNeeded: true; session: string }> => {
      try {
        await c.invoke(new Api.auth.SignIn({ phoneNumber: phone, phoneCodeHash, phoneCode: code }));
      } catch (e) {
        if (String((e as { errorMessage?: string }).errorMessage ?? e).includes('SESSION_PASSWORD_NEEDED')) return { passwordNeeded: true, session: String(c.session.save()) };
        throw e;
      }
      return { session: String(c.session.save()) };
    });
  }

  signInWithPassword(password: string, session: string) {
    return this.with(session, async (c) => {
      await c.signInWithPassword(
        { apiId: this.creds.apiId, apiHash: this.creds.apiHash },
        {
          password: async () => password,
          onError: (e) => {
            throw e;
          },
        },
      );
      return { session: String(c.session.save()) };
    });
  }

  sendMessage(session: string, to: string, text: string) {
    return this.with(session, async (c) => {
      const m = await c.sendMessage(to, { message: text });
      return { id: String(m.id) };
    });
  }
}

/**
 * Telegram private: messages sent from a user account over MTProto with the session the login flow stored
 * (credential `session`). Like bots, Telegram gives no delivery receipts here: a sent message is final.
 */
export class TelegramPrivateAdapter extends ProviderAdapter {
  readonly kind = 'telegram_private';
  private started = false;
  readonly gateway: TelegramLoginGateway | null;

  constructor(vendorId: string, creds: MtprotoCredentials | null, gateway?: TelegramLoginGateway) {
    super(vendorId);
    this.gateway = gateway ?? (creds ? new GramJsGateway(creds) : null);
  }

  async start(_sink: AdapterSink): Promise<void> {
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
  }

  ready(): boolean {
    return this.started && this.gateway !== null;
  }

  capacity(): number {
    return 20;
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const session = message.credentials?.session;
    if (!this.gateway) return { kind: 'retry', error: 'Telegram private is not configured (api id / hash)', afterMs: 60_000 };
    if (!session) return { kind: 'rejected', error: 'failedNotAuth: the stream has no authorised Telegram session' };
    try {
      const r = await this.gateway.sendMessage(session, message.destination, message.text);
      return { kind: 'accepted', providerIds: [`${message.destination}:${r.id}`], finalStatus: 'delivered' };
    } catch (e) {
      const text = String((e as { errorMessage?: string }).errorMessage ?? e);
      const flood = /FLOOD_WAIT_(\d+)/.exec(text);
      if (flood) return { kind: 'retry', error: text, afterMs: Number(flood[1]) * 1000 };
      if (/AUTH_KEY|SESSION_REVOKED|USER_DEACTIVATED/.test(text)) return { kind: 'rejected', error: `failedNotAuth: ${text}` };
      // connection problems before the request: GramJS does not tell; treated as unknown (never resent blindly)
      return { kind: 'unknown', error: text };
    }
  }
}
