import { HttpError } from 'react-admin';
import { TOKEN_REFRESH_MARGIN_MS } from '../constants';
import { clearTokens, isExpiring, readTokens, saveTokens } from './token-store';
import type { ApiErrorBody, TokenPair } from './types';

/** A non-OK answer of /api: react-admin's HttpError carrying the JSON error body `{ code, message, status, violations? }`. */
export class ApiError extends HttpError {
  declare body: ApiErrorBody | null;
  constructor(message: string, status: number, body: ApiErrorBody | null) {
    super(message, status, body);
    Object.setPrototypeOf(this, ApiError.prototype);
  }
  get code(): number | string | undefined {
    return this.body?.code;
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof HttpError && typeof (e as ApiError).status === 'number';

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** The shell subscribes here so that a 401 on any authenticated call logs the user out (spec 4). */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

let refreshing: Promise<void> | null = null;

/** POST /api/token_refresh; concurrent callers share one request. Rejects (and drops the tokens) on failure. */
export function refreshTokens(): Promise<void> {
  if (refreshing) return refreshing;
  const current = readTokens();
  if (!current?.refresh_token) return Promise.reject(new ApiError('No refresh token', 401, null));
  refreshing = (async () => {
    try {
      const pair = await apiFetch<TokenPair>('/token_refresh', {
        method: 'POST',
        body: { refresh_token: current.refresh_token },
        auth: false,
      });
      saveTokens(pair, current.remember);
    } catch (e) {
      clearTokens();
      throw e;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** The bearer token to send, refreshed first when it is about to expire; null when there is none. */
export async function validToken(): Promise<string | null> {
  const current = readTokens();
  if (!current) return null;
  if (isExpiring(current.token, TOKEN_REFRESH_MARGIN_MS)) {
    await refreshTokens();
    return readTokens()?.token ?? null;
  }
  return current.token;
}

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  /** Send the bearer token (default). Login and refresh calls go without it. */
  auth?: boolean;
  /** Tell the shell about a 401 (default true when auth is on); the dataProvider leaves that to react-admin's checkError. */
  notifyUnauthorized?: boolean;
  signal?: AbortSignal;
}

async function send(path: string, req: ApiRequest, accept: string): Promise<Response> {
  const { method = 'GET', body, auth = true, signal } = req;
  const headers: Record<string, string> = { Accept: accept };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (auth) {
    const token = await validToken().catch(() => null);
    if (token) headers.Authorization = `Bearer ${token}`;
  }
  return fetch(`/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
}

const parseJson = (text: string): unknown => {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch (_e) {
    return null;
  }
};

function failure(response: Response, json: unknown, req: ApiRequest): ApiError {
  const { auth = true, notifyUnauthorized = auth } = req;
  const errorBody = json && typeof json === 'object' ? (json as ApiErrorBody) : null;
  if (response.status === 401 && notifyUnauthorized) unauthorizedListeners.forEach((l) => l());
  return new ApiError(errorBody?.message || response.statusText || `HTTP ${response.status}`, response.status, errorBody);
}

/** One call to the same-origin /api; resolves with the parsed JSON body, rejects with ApiError. */
export async function apiFetch<T>(path: string, req: ApiRequest = {}): Promise<T> {
  const response = await send(path, req, 'application/json');
  const json = parseJson(await response.text());
  if (!response.ok) throw failure(response, json, req);
  return json as T;
}

/**
 * A call answered as a stream of JSON lines (`Accept: application/x-ndjson`): each line goes to `onEvent` as soon as
 * it arrives. A non-OK answer (an error before the stream began) rejects with ApiError as apiFetch does; aborting
 * `req.signal` ends the stream and the server's work behind it.
 */
export async function apiStream<E>(path: string, req: ApiRequest, onEvent: (e: E) => void): Promise<void> {
  const response = await send(path, req, 'application/x-ndjson');
  if (!response.ok || !response.body) throw failure(response, parseJson(await response.text()), req);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { done, value } = await reader.read();
    buf += done ? decoder.decode() : decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) onEvent(JSON.parse(line) as E);
    }
    if (done) break;
  }
  if (buf.trim()) onEvent(JSON.parse(buf) as E);
}
