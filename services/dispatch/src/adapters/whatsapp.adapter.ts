import { ProviderAdapter, type AdapterSink, type OutboundMessage, type SendOutcome } from './provider-adapter';
import { postJson } from './http';

export interface WhatsAppAdapterConfig {
  /** https://graph.facebook.com, or the local peer in tests. */
  baseUrl: string;
  apiVersion: string;
  /** The tech provider's system user token; a stream's own `accessToken` credential wins. */
  accessToken: string | null;
  timeoutMs?: number;
  /** Wait before retrying a rate-limited send. Default 5000 ms. */
  retryAfterMs?: number;
}

const MEDIA_TYPES = new Set(['image', 'video', 'document', 'audio', 'sticker']);

/** Graph API error codes that mean "slow down, try later" (rate limits). */
const RETRYABLE_CODES = new Set([4, 80007, 130429, 131048, 131056, 133016]);

/** Builds the Cloud API body: text by default; `payload.template` or `payload.media` for template and media sends. */
export function whatsAppBody(message: Pick<OutboundMessage, 'destination' | 'text' | 'payload'>): Record<string, unknown> {
  const to = message.destination.replace(/^\+/, '');
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  const p = message.payload ?? {};
  if (p.template && typeof p.template === 'object') {
    return { ...base, type: 'template', template: p.template };
  }
  if (p.media && typeof p.media === 'object') {
    const media = p.media as Record<string, unknown>;
    const type = String(media.type ?? 'image');
    if (!MEDIA_TYPES.has(type)) throw new Error(`unsupported WhatsApp media type ${type}`);
    const { type: _t, ...rest } = media;
    if (message.text && type !== 'audio' && type !== 'sticker' && rest.caption === undefined) rest.caption = message.text;
    return { ...base, type, [type]: rest };
  }
  return { ...base, type: 'text', text: { preview_url: false, body: message.text } };
}

/**
 * WhatsApp Cloud API: POST /{version}/{phone-number-id}/messages with a bearer token. Statuses (sent, delivered,
 * read, failed) and incoming messages arrive by webhook (see WhatsAppWebhookService), in any order.
 */
export class WhatsAppAdapter extends ProviderAdapter {
  readonly kind = 'whatsapp';
  private started = false;

  constructor(
    vendorId: string,
    private readonly cfg: WhatsAppAdapterConfig,
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
    return 200;
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    const token = message.credentials?.accessToken ?? this.cfg.accessToken;
    if (!token) return { kind: 'rejected', error: 'failedNotAuth: no WhatsApp access token for this stream' };
    let body: Record<string, unknown>;
    try {
      body = whatsAppBody(message);
    } catch (e) {
      return { kind: 'rejected', error: String(e) };
    }
    const url = `${this.cfg.baseUrl.replace(/\/$/, '')}/${this.cfg.apiVersion}/${encodeURIComponent(message.sender)}/messages`;
    const res = await postJson(url, body, { headers: { authorization: `Bearer ${token}` }, timeoutMs: this.cfg.timeoutMs });
    if (res.kind === 'unreached') return { kind: 'retry', error: res.error, afterMs: 2000 };
    if (res.kind === 'no_answer') return { kind: 'unknown', error: res.error };
    const b = (res.body ?? {}) as { messages?: Array<{ id?: string }>; error?: { code?: number; message?: string } };
    if (res.status >= 200 && res.status < 300 && b.messages?.[0]?.id) return { kind: 'accepted', providerIds: [b.messages[0].id] };
    const code = b.error?.code;
    const error = `WhatsApp ${res.status}${code ? ` (${code})` : ''}: ${b.error?.message ?? 'error'}`;
    if (res.status === 429 || (code !== undefined && RETRYABLE_CODES.has(code))) return { kind: 'retry', error, afterMs: this.cfg.retryAfterMs ?? 5000 };
    if (res.status === 502 || res.status === 503 || res.status === 504) return { kind: 'retry', error };
    if (res.status >= 500) return { kind: 'unknown', error };
    if (res.status === 401 || code === 190) return { kind: 'rejected', error: `failedNotAuth: ${error}` };
    return { kind: 'rejected', error };
  }
}
