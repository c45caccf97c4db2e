import { createHmac } from 'node:crypto';
import { ProviderAdapter, type AdapterSink, type OutboundMessage, type SendOutcome } from './provider-adapter';
import { postJson } from './http';

export interface TelegramBotConfig {
  /** https://api.telegram.org, or the local peer in tests. */
  baseUrl: string;
  timeoutMs?: number;
}

/** The secret_token given to setWebhook for a stream: checked on every update (X-Telegram-Bot-Api-Secret-Token). */
export function telegramWebhookSecret(key: string, streamUid: string): string {
  return createHmac('sha256', key).update(`telegram-webhook:${streamUid}`).digest('hex');
}

/**
 * Telegram Bot API: POST /bot<token>/sendMessage. A message the API accepted is in the chat: Telegram has no
 * delivery reports for bots, so acceptance is final (delivered). 429 answers carry parameters.retry_after.
 */
export class TelegramBotAdapter extends ProviderAdapter {
  readonly kind = 'telegram_bot';
  private started = false;

  constructor(
    vendorId: string,
    private readonly cfg: TelegramBotConfig,
  ) {
    super(vendorId);
  }

  async start(_sink: AdapterSink): Promise<void> {
    this.started = true;
  }

  async stop(): Promise<void> {
    this.started = false;
  }

  ready(): boolean {
    return this.started;
  }

  capacity(): number {
    return 100;
  }

  private url(token: string, method: string): string {
    return `${this.cfg.baseUrl.replace(/\/$/, '')}/bot${token}/${method}`;
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const token = message.credentials?.botToken;
    if (!token) return { kind: 'rejected', error: 'failedNotAuth: no bot token for this stream' };
    const res = await postJson(this.url(token, 'sendMessage'), { chat_id: message.destination, text: message.text }, { timeoutMs: this.cfg.timeoutMs });
    if (res.kind === 'unreached') return { kind: 'retry', error: res.error, afterMs: 2000 };
    if (res.kind === 'no_answer') return { kind: 'unknown', error: res.error };
    const b = (res.body ?? {}) as { ok?: boolean; result?: { message_id?: number; chat?: { id?: number | string } }; error_code?: number; description?: string; parameters?: { retry_after?: number } };
    if (b.ok && b.result?.message_id !== undefined) {
      return { kind: 'accepted', providerIds: [`${b.result.chat?.id ?? message.destination}:${b.result.message_id}`], finalStatus: 'delivered' };
    }
    const code = b.error_code ?? res.status;
    const error = `Telegram ${code}: ${b.description ?? 'error'}`;
    if (code === 429) return { kind: 'retry', error, afterMs: Math.max(1, b.parameters?.retry_after ?? 1) * 1000 };
    if (code === 502 || code === 503 || code === 504) return { kind: 'retry', error };
    if (code >= 500) return { kind: 'unknown', error };
    if (code === 401 || code === 404) return { kind: 'rejected', error: `failedNotAuth: ${error}` };
    return { kind: 'rejected', error };
  }

  /** Registers the bot's webhook with a secret token; answers Telegram's description on failure. */
  async setWebhook(token: string, url: string, secret: string): Promise<{ ok: boolean; description: string | null }> {
    const res = await postJson(this.url(token, 'setWebhook'), { url, secret_token: secret, allowed_updates: ['message'] }, { timeoutMs: this.cfg.timeoutMs });
    if (res.kind !== 'response') return { ok: false, description: res.error };
    const b = (res.body ?? {}) as { ok?: boolean; description?: string };
    return { ok: !!b.ok, description: b.description ?? null };
  }
}
