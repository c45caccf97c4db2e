import { HttpPeer, type PeerAnswer } from './http-peer';
import type { MediaBehaviour } from './whatsapp-peer';

/** A file a customer sent the bot: getFile answers its path, GET /file/bot<token>/<path> its bytes. */
export interface PeerFile {
  bytes: Buffer;
  behaviour?: MediaBehaviour;
  delayMs?: number;
}

/**
 * The Telegram Bot API as a local server: GET /bot<token>/getMe, POST /bot<token>/sendMessage and /bot<token>/setWebhook with the documented
 * answers (`{ ok, result }`, `{ ok: false, error_code, description, parameters: { retry_after } }`), and updates
 * posted to the registered webhook with X-Telegram-Bot-Api-Secret-Token.
 */
export class TelegramPeer {
  readonly messages: Array<{ token: string; chat_id: string; text: string }> = [];
  readonly webhooks = new Map<string, { url: string; secret_token: string }>();
  /** Answer the next N sendMessage with 429 and this retry_after (seconds). */
  floodNext = 0;
  retryAfter = 1;
  /** Files by file_id. */
  readonly files = new Map<string, PeerFile>();
  private seq = 100;
  private readonly http: HttpPeer;
  url = '';

  constructor(private readonly tokens: Set<string>) {
    this.http = new HttpPeer((req, raw) => {
      const file = /^\/file\/bot([^/]+)\/files\/([^/?]+)$/.exec(req.url ?? '');
      if (file) return this.download(decodeURIComponent(file[1]), decodeURIComponent(file[2]));
      const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
      if (!m) return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
      const [, token, method] = m;
      if (!this.tokens.has(token)) return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      if (method === 'getMe') {
        // a bot token starts with the bot's id
        const id = Number(token.split(':')[0]);
        return { status: 200, body: { ok: true, result: { id, is_bot: true, first_name: `Bot ${id}`, username: `bot${id}_bot`, can_join_groups: true } } };
      }
      if (method === 'setWebhook') {
        const secret = String(body.secret_token ?? '');
        if (!/^[A-Za-z0-9_-]{1,256}$/.test(secret)) return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: secret token contains unallowed characters' } };
        this.webhooks.set(token, { url: String(body.url), secret_token: secret });
        return { status: 200, body: { ok: true, result: true, description: 'Webhook was set' } };
      }
      if (method === 'getFile') {
        const id = String(body.file_id ?? '');
        const f = this.files.get(id);
        if (!f || f.behaviour === 'gone') return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' } };
        const size = f.behaviour === 'understated' ? {} : { file_size: f.bytes.length };
        return { status: 200, body: { ok: true, result: { file_id: id, file_unique_id: `u${id}`, ...size, file_path: `files/${encodeURIComponent(id)}` } } };
      }
      if (method === 'sendMessage') {
        if (this.floodNext > 0) {
          this.floodNext--;
          return { status: 429, body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${this.retryAfter}`, parameters: { retry_after: this.retryAfter } } };
        }
        if (!body.chat_id || !body.text) return { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: message text is empty' } };
        this.messages.push({ token, chat_id: String(body.chat_id), text: String(body.text) });
        return { status: 200, body: { ok: true, result: { message_id: ++this.seq, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text: body.text } } };
      }
      return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found: method not found' } };
    });
  }

  private download(token: string, id: string): PeerAnswer | Promise<PeerAnswer> {
    if (!this.tokens.has(token)) return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
    const f = this.files.get(id);
    if (!f || f.behaviour === 'missing') return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    const answer: PeerAnswer = { status: 200, body: null, raw: f.bytes, headers: f.behaviour === 'understated' ? { chunked: '1' } : {} };
    return f.behaviour === 'slow' ? new Promise((r) => setTimeout(() => r(answer), f.delayMs ?? 10_000).unref()) : answer;
  }

  async listen(): Promise<string> {
    this.url = await this.http.listen();
    return this.url;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** Posts an update to the bot's webhook as Telegram does; `baseUrl` replaces the registered origin (tests). */
  async update(token: string, update: Record<string, unknown>, opts: { baseUrl?: string; secret?: string } = {}): Promise<number> {
    const hook = this.webhooks.get(token);
    if (!hook) throw new Error('no webhook set for this bot');
    const u = new URL(hook.url);
    const url = opts.baseUrl ? `${opts.baseUrl}${u.pathname}` : hook.url;
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': opts.secret ?? hook.secret_token }, body: JSON.stringify(update) });
    await res.text();
    return res.status;
  }
}
