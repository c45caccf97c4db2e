import { createHmac } from 'node:crypto';
import { HttpPeer, type PeerAnswer } from './http-peer';

/**
 * How a media file misbehaves: `slow` answers the download after `delayMs`; `gone` answers the lookup with Graph's
 * "does not exist"; `missing` looks up fine but the download is 404 (an expired URL); `understated` declares a small
 * file_size (or none) and sends every byte anyway; `down` answers the lookup 503 (an outage).
 */
export type MediaBehaviour = 'ok' | 'slow' | 'gone' | 'missing' | 'understated' | 'down';

export interface PeerMedia {
  bytes: Buffer;
  mime: string;
  behaviour?: MediaBehaviour;
  delayMs?: number;
  /** The lookup hands over this download URL instead of the peer's own (a provider pointing inside the network). */
  url?: string;
}

// unref'd: a slow answer still pending when a test closes the peer does not hold the process
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());

export interface GraphSend {
  version: string;
  phoneNumberId: string;
  token: string;
  body: Record<string, unknown>;
}

/**
 * The WhatsApp Cloud API as a local server: POST /{version}/{phone-number-id}/messages with a bearer token answers
 * `{ messaging_product, contacts, messages: [{ id: "wamid..." }] }`; it also signs and posts webhooks
 * (X-Hub-Signature-256 = sha256 HMAC of the raw body with the app secret) the way Meta does. The business accounts
 * it knows (`business()`) answer GET /{version}/{waba-id}/phone_numbers and GET /{version}/{phone-number-id} to their
 * own token; to any other token an object of another business "does not exist" (code 100), as Graph answers.
 */
export class WhatsAppPeer {
  readonly sends: GraphSend[] = [];
  /** Business accounts: the token that reaches each, and its phone number ids. */
  readonly businesses = new Map<string, { token: string; phoneNumberIds: string[] }>();
  /** Answer the next N sends with 429 / error code 130429. */
  rateLimitNext = 0;
  /** Media customers sent, by media id: GET /{version}/{media-id} answers its URL, GET of the URL its bytes (bearer token). */
  readonly media = new Map<string, PeerMedia>();
  /** Every media request as it came (path and the token it carried), for tests that look for leaks. */
  readonly mediaRequests: Array<{ path: string; token: string }> = [];
  /** Slow downloads being answered now, and the most at once (how many a client fetches in parallel). */
  downloadsInFlight = 0;
  maxDownloadsInFlight = 0;
  private seq = 0;
  private readonly http: HttpPeer;
  url = '';

  constructor(
    private readonly appSecret: string,
    readonly tokens: Set<string>,
  ) {
    this.http = new HttpPeer((req, raw) => {
      if (req.method === 'GET') {
        const media = this.mediaGet(req.url ?? '', String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
        if (media) return media;
      }
      if (req.method === 'GET') return this.graphGet(req.url ?? '', String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
      const m = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/.exec(req.url ?? '');
      if (req.method !== 'POST' || !m) return { status: 404, body: { error: { message: 'Unknown path', code: 100 } } };
      const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!this.tokens.has(token)) return { status: 401, body: { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } } };
      if (this.rateLimitNext > 0) {
        this.rateLimitNext--;
        return { status: 429, body: { error: { message: 'Rate limit hit', code: 130429 } } };
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      if (body.messaging_product !== 'whatsapp' || typeof body.to !== 'string') return { status: 400, body: { error: { message: 'Invalid parameter', code: 100 } } };
      this.sends.push({ version: m[1], phoneNumberId: decodeURIComponent(m[2]), token, body });
      const id = `wamid.HBgL${(++this.seq).toString().padStart(8, '0')}`;
      return { status: 200, body: { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] } };
    });
  }

  /** A business account reached with `token`, owning these phone number ids. */
  business(id: string, token: string, phoneNumberIds: string[]): void {
    this.businesses.set(id, { token, phoneNumberIds });
    this.tokens.add(token);
  }

  /** The Cloud API's media: the lookup (`{ url, mime_type, sha256, file_size, id }`) and the download, both with the token. */
  private mediaGet(url: string, token: string): Promise<PeerAnswer> | PeerAnswer | null {
    const path = new URL(url, 'http://graph.local').pathname;
    const lookup = /^\/v\d+\.\d+\/([^/]+)$/.exec(path);
    const download = /^\/whatsapp_business\/attachments\/([^/]+)$/.exec(path);
    const id = decodeURIComponent((lookup ?? download)?.[1] ?? '');
    const m = this.media.get(id);
    if (!lookup && !download) return null;
    // not media (a business or phone number id, an unknown id): graphGet answers
    if (lookup && !m) return null;
    this.mediaRequests.push({ path, token });
    if (!this.tokens.has(token)) return { status: 401, body: { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } } };
    if (m?.behaviour === 'down') return { status: 503, body: { error: { message: 'Service temporarily unavailable', type: 'OAuthException', code: 2, is_transient: true } } };
    if (!m || (lookup && m.behaviour === 'gone')) return { status: 400, body: { error: { message: `Unsupported get request. Object with ID '${id}' does not exist`, type: 'GraphMethodException', code: 100, error_subcode: 33 } } };
    if (lookup) {
      const declared = m.behaviour === 'understated' ? undefined : m.bytes.length;
      return { status: 200, body: { messaging_product: 'whatsapp', url: m.url ?? `${this.url}/whatsapp_business/attachments/${encodeURIComponent(id)}`, mime_type: m.mime, sha256: 'peer', ...(declared === undefined ? {} : { file_size: declared }), id } };
    }
    if (m.behaviour === 'missing') return { status: 404, body: { error: { message: 'URL expired', code: 100 } } };
    // an understated file is sent chunked: no Content-Length to refuse it by
    const answer: PeerAnswer = { status: 200, body: null, raw: m.bytes, headers: { 'content-type': m.mime, ...(m.behaviour === 'understated' ? { chunked: '1' } : {}) } };
    if (m.behaviour !== 'slow') return answer;
    this.downloadsInFlight++;
    this.maxDownloadsInFlight = Math.max(this.maxDownloadsInFlight, this.downloadsInFlight);
    return wait(m.delayMs ?? 10_000).then(() => {
      this.downloadsInFlight--;
      return answer;
    });
  }

  private graphGet(url: string, token: string): { status: number; body: unknown } {
    const path = new URL(url, 'http://graph.local').pathname;
    const m = /^\/v\d+\.\d+\/(\d+)(\/phone_numbers)?$/.exec(path);
    if (!m) return { status: 404, body: { error: { message: 'Unknown path components', type: 'OAuthException', code: 2500 } } };
    if (!this.tokens.has(token)) return { status: 401, body: { error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 } } };
    const missing = { status: 400, body: { error: { message: `Unsupported get request. Object with ID '${m[1]}' does not exist`, type: 'GraphMethodException', code: 100, error_subcode: 33 } } };
    const waba = this.businesses.get(m[1]);
    if (waba) {
      if (waba.token !== token) return missing;
      if (!m[2]) return { status: 200, body: { id: m[1], name: `Business ${m[1]}` } };
      return { status: 200, body: { data: waba.phoneNumberIds.map((id) => ({ id, display_phone_number: `+1 555-${id.slice(-7)}`, verified_name: `Business ${m[1]}`, quality_rating: 'GREEN' })) } };
    }
    const owner = [...this.businesses.values()].find((b) => b.phoneNumberIds.includes(m[1]));
    if (!owner || owner.token !== token || m[2]) return missing;
    return { status: 200, body: { id: m[1], display_phone_number: `+1 555-${m[1].slice(-7)}`, verified_name: 'Business', quality_rating: 'GREEN' } };
  }

  async listen(): Promise<string> {
    this.url = await this.http.listen();
    return this.url;
  }

  close(): Promise<void> {
    return this.http.close();
  }

  /** A webhook notification body with statuses and/or messages for one phone number id. */
  static notification(phoneNumberId: string, value: { statuses?: unknown[]; messages?: unknown[]; contacts?: unknown[] }): Record<string, unknown> {
    return {
      object: 'whatsapp_business_account',
      entry: [{ id: 'WABA_ID', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId }, ...value } }] }],
    };
  }

  static status(id: string, status: 'sent' | 'delivered' | 'read' | 'failed', recipient = '4915112345678', extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { id, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: recipient, ...extra };
  }

  /** Posts a notification to a webhook URL, signed with the app secret (or a wrong one). */
  async deliver(url: string, payload: Record<string, unknown>, secret = this.appSecret): Promise<number> {
    const raw = JSON.stringify(payload);
    const sig = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': sig }, body: raw });
    await res.text();
    return res.status;
  }
}
