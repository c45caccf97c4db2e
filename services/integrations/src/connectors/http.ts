import { DestinationRefused, requestPinned, type CheckedDestination } from '@switchboard/platform';

/**
 * Calls to vendors. Every answer is sorted into what the sync does with it:
 * - 2xx: the JSON body;
 * - 429 (and 503 with Retry-After): `VendorRateLimited` with the vendor's Retry-After (seconds or a date), so the
 *   worker pauses exactly that long;
 * - 5xx, network errors, timeouts: `VendorUnavailable` (an outage: pause and retry with backoff, never a dead letter);
 * - 401: `VendorAuthRejected` (refresh the token once; if that fails too, the integration needs reconnecting);
 * - other 4xx: `VendorRefused` (our request is wrong for this vendor: shown with its status, not retried blindly).
 * Messages carry the method, the URL's origin and path and the status only: never a query string, header or body,
 * so a token in a URL or an echoed key cannot reach logs, events or API answers.
 */
export class VendorError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}
export class VendorRateLimited extends VendorError {
  constructor(
    message: string,
    status: number,
    readonly retryAfterMs: number,
  ) {
    super(message, status);
  }
}
export class VendorUnavailable extends VendorError {}
export class VendorAuthRejected extends VendorError {}
export class VendorRefused extends VendorError {}
/** The vendor's host resolves to an address this platform does not call (loopback, private, link-local...), or not at all. */
export class VendorAddressRefused extends VendorRefused {}

export interface VendorRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  headers?: Record<string, string>;
  /** JSON body. */
  json?: unknown;
  /** application/x-www-form-urlencoded body (OAuth token endpoints). */
  form?: Record<string, string>;
}

export interface VendorResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** Retry-After in ms: delta-seconds or an HTTP date; `fallbackMs` when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number, fallbackMs: number): number {
  if (!value) return fallbackMs;
  const s = Number(value.trim());
  if (Number.isFinite(s) && s >= 0) return Math.round(s * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - now) : fallbackMs;
}

const where = (method: string, url: URL) => `${method} ${url.origin}${url.pathname}`;

export class VendorHttp {
  constructor(
    private readonly opts: {
      timeoutMs: number;
      now: () => number;
      rateLimitFallbackMs?: number;
      fetchImpl?: typeof fetch;
      /** The checked address a request connects to (null: no check applies); throws DestinationRefused. */
      pin?: (url: URL) => Promise<CheckedDestination | null>;
    } = { timeoutMs: 15_000, now: () => Date.now() },
  ) {}

  async request<T = unknown>(r: VendorRequest): Promise<VendorResponse<T>> {
    const method = r.method ?? (r.json !== undefined || r.form ? 'POST' : 'GET');
    const url = new URL(r.url);
    for (const [k, v] of Object.entries(r.query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...(r.headers ?? {}) };
    let body: string | undefined;
    if (r.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(r.json);
    } else if (r.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(r.form).toString();
    }
    let dest: CheckedDestination | null = null;
    if (this.opts.pin) {
      try {
        dest = await this.opts.pin(url);
      } catch (e) {
        if (e instanceof DestinationRefused) throw new VendorAddressRefused(`${where(method, url)} refused: ${e.message}`, null);
        throw e;
      }
    }
    let res: { status: number; headers: Headers };
    let text: string;
    try {
      if (dest) {
        // connects to the address just checked: no second lookup (DNS rebinding)
        const r = await requestPinned(dest, { method, headers, body, timeoutMs: this.opts.timeoutMs });
        res = r;
        text = r.text;
      } else {
        const r = await (this.opts.fetchImpl ?? fetch)(url, { method, headers, body, redirect: 'error', signal: AbortSignal.timeout(this.opts.timeoutMs) });
        res = r;
        text = await r.text();
      }
    } catch (e) {
      const name = (e as Error).name === 'TimeoutError' ? 'timed out' : 'could not be reached';
      throw new VendorUnavailable(`${where(method, url)} ${name}`, null);
    }
    // 304 Not Modified answers a conditional request (Zoho's If-Modified-Since): nothing changed, no body
    if (res.status === 304) return { status: 304, body: null as T, headers: res.headers };
    if (res.status >= 300 && res.status < 400) throw new VendorRefused(`${where(method, url)} answered ${res.status} (redirects are not followed)`, res.status);
    if (res.status === 429 || (res.status === 503 && res.headers.get('retry-after'))) {
      throw new VendorRateLimited(`${where(method, url)} answered ${res.status} (rate limited)`, res.status, retryAfterMs(res.headers.get('retry-after'), this.opts.now(), this.opts.rateLimitFallbackMs ?? 10_000));
    }
    if (res.status >= 500) throw new VendorUnavailable(`${where(method, url)} answered ${res.status}`, res.status);
    if (res.status === 401) throw new VendorAuthRejected(`${where(method, url)} answered 401`, 401);
    if (res.status >= 400) throw new VendorRefused(`${where(method, url)} answered ${res.status}`, res.status);
    let parsed: unknown = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new VendorUnavailable(`${where(method, url)} answered ${res.status} with a body that is not JSON`, res.status);
      }
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  async json<T = unknown>(r: VendorRequest): Promise<T> {
    return (await this.request<T>(r)).body;
  }
}

/** Joins a base URL and a path: `joinUrl('http://h/crm/v2', '/users')` -> `http://h/crm/v2/users`. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
