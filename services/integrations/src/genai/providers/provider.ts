/**
 * Generative-AI providers behind one interface (docs/decisions/0041-generative-ai.md). Each adapter speaks its vendor's
 * wire format over HTTP (OpenAI chat completions and any OpenAI-compatible base URL, Gemini generateContent, Ollama
 * /api/chat) and turns every failure into a GenAiError with one of a few codes the routes map to the spec's errors:
 * a key the vendor refuses is `invalid_token` (spec 5: the token check failing throws "invalid token", E-0159).
 * Pure transport: no Nest, no database; the key is passed in per call and never logged.
 */
import { DestinationRefused, fetchPinned, type CheckedDestination } from '@switchboard/platform';

export const GENAI_PROVIDERS = ['openai', 'gemini', 'ollama'] as const;
export type GenAiProviderName = (typeof GENAI_PROVIDERS)[number];
export const isGenAiProvider = (v: unknown): v is GenAiProviderName => typeof v === 'string' && (GENAI_PROVIDERS as readonly string[]).includes(v);

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface GenerateRequest {
  messages: ChatMessage[];
  /** Upper bound on the answer's tokens. */
  maxTokens?: number;
  temperature?: number;
  /** Aborts the vendor's request (a caller gone, a bound reached): the call ends with `cancelled`. */
  signal?: AbortSignal;
}

export interface TokenUsage {
  input: number;
  output: number;
}

export interface GenerateResult {
  text: string;
  usage: TokenUsage;
  model: string;
}

/** A streamed answer: text pieces as they come, then the usage once (when the vendor reports it). */
export type StreamChunk = { type: 'text'; text: string } | { type: 'usage'; usage: TokenUsage };

export interface ProviderConfig {
  /** The vendor's key (OpenAI, Gemini; Ollama only behind a proxy that wants one). */
  apiKey: string | null;
  /** Where the vendor answers; each provider has its public default. */
  baseUrl: string | null;
  model: string | null;
  /** A whole non-streamed answer, or the first byte of a streamed one, must come within this time. */
  timeoutMs: number;
  /** Longest silence between two pieces of a streamed answer. */
  idleTimeoutMs?: number;
  /**
   * Checks the host of each request and answers the address to connect to (the request is pinned to it: no second
   * DNS lookup, so a name re-pointed to a private address between the check and the connect is never reached), or
   * null to connect as fetch does (the operator's own hosts). Throws DestinationRefused. Without it: fetch.
   */
  connect?: (url: URL) => Promise<CheckedDestination | null>;
}

export type GenAiErrorCode =
  /** The vendor refused the key (401/403, Gemini API_KEY_INVALID). */
  | 'invalid_token'
  /** No answer in time. */
  | 'timeout'
  /** The vendor's rate limit or quota (429). */
  | 'rate_limited'
  /** The vendor is down or unreachable (5xx, connection refused). */
  | 'unavailable'
  /** The vendor refused the request itself (a model that does not exist, a prompt it blocks). */
  | 'rejected'
  /** An answer that does not follow the vendor's format, or holds no text. */
  | 'bad_answer'
  /** The caller aborted the request (GenerateRequest.signal). */
  | 'cancelled'
  /** The provider's host resolves to an address that may not be called (private, loopback, link-local), or not at all. */
  | 'address_refused';

export class GenAiError extends Error {
  constructor(
    readonly code: GenAiErrorCode,
    message: string,
    /** The vendor's HTTP status, when there was one. */
    readonly vendorStatus: number | null = null,
  ) {
    super(message);
    this.name = 'GenAiError';
  }
}

export interface GenAiProvider {
  readonly name: GenAiProviderName;
  /** The model asked for (the configured one, or the vendor's default). */
  readonly model: string;
  /** Resolves when the vendor accepts the key (and knows the model, where it can tell); throws a GenAiError otherwise. */
  verify(): Promise<void>;
  generate(req: GenerateRequest): Promise<GenerateResult>;
  stream(req: GenerateRequest): AsyncIterable<StreamChunk>;
}

/** Joins a base URL and a path without doubling or losing the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * fetch with the provider's timeout. The timer covers the host's check and the wait for the answer's head; a streamed
 * body is then guarded by the idle timer of `readLines`. Connection failures become `unavailable`, the timer `timeout`,
 * a refused host `address_refused`. With `connect`, the request goes to the address it answered (pinned).
 */
export async function request(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number,
  signal?: AbortSignal,
  connect?: ProviderConfig['connect'],
): Promise<{ res: Response; controller: AbortController }> {
  const controller = new AbortController();
  // the caller's signal aborts this request at any point: the head, a whole body, or a stream being read
  if (signal) {
    const cancel = () => controller.abort(new GenAiError('cancelled', 'the request was cancelled'));
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
  }
  const timer = setTimeout(() => controller.abort(new GenAiError('timeout', `no answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    const dest = connect ? await connect(new URL(url)) : null;
    if (controller.signal.aborted) throw controller.signal.reason;
    if (!dest) return { res: await fetch(url, { ...init, signal: controller.signal, redirect: 'error' }), controller };
    const res = await fetchPinned(dest, { ...init, signal: controller.signal });
    if (res.status >= 300 && res.status < 400) {
      // as fetch's redirect: 'error' (a redirect could lead anywhere, unchecked)
      controller.abort();
      throw new GenAiError('unavailable', `the provider answered with a redirect (HTTP ${res.status}), which is not followed`, res.status);
    }
    return { res, controller };
  } catch (e) {
    throw toGenAiError(e, controller);
  } finally {
    clearTimeout(timer);
  }
}

function toGenAiError(e: unknown, controller: AbortController): GenAiError {
  if (e instanceof GenAiError) return e;
  if (e instanceof DestinationRefused) return new GenAiError('address_refused', e.message);
  if (controller.signal.aborted && controller.signal.reason instanceof GenAiError) return controller.signal.reason;
  const cause = (e as { cause?: { code?: string } })?.cause?.code;
  return new GenAiError('unavailable', `the provider cannot be reached${cause ? ` (${cause})` : ''}`);
}

/** Reads a whole JSON body within the time left (the head came already). */
export async function readJson(res: Response, controller: AbortController, timeoutMs: number): Promise<unknown> {
  const timer = setTimeout(() => controller.abort(new GenAiError('timeout', `no complete answer within ${timeoutMs} ms`)), timeoutMs);
  try {
    const text = await res.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new GenAiError('bad_answer', `the provider answered HTTP ${res.status} with a body that is not JSON`, res.status);
    }
  } catch (e) {
    throw toGenAiError(e, controller);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The lines of a streamed body (SSE or NDJSON), each as soon as it is complete. Silence longer than `idleMs` aborts
 * the request with `timeout`; a body cut off in the middle ends with `unavailable`.
 */
export async function* readLines(res: Response, controller: AbortController, idleMs: number): AsyncGenerator<string> {
  if (!res.body) throw new GenAiError('bad_answer', 'the provider sent no body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for (;;) {
      const timer = setTimeout(() => controller.abort(new GenAiError('timeout', `the stream was silent for ${idleMs} ms`)), idleMs);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (e) {
        throw toGenAiError(e, controller);
      } finally {
        clearTimeout(timer);
      }
      if (chunk.done) break;
      buf += decoder.decode(chunk.value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        yield line;
      }
    }
    buf += decoder.decode();
    if (buf.trim()) yield buf.replace(/\r$/, '');
  } finally {
    // stops the download when the consumer leaves early (an error, a client gone)
    controller.abort();
    reader.releaseLock();
  }
}

/** The `data:` payloads of a server-sent event stream (comments, `event:` and `id:` lines skipped). */
export async function* sseData(lines: AsyncIterable<string>): AsyncGenerator<string> {
  let data: string[] = [];
  for await (const line of lines) {
    if (line === '') {
      if (data.length) yield data.join('\n');
      data = [];
    } else if (line.startsWith('data:')) {
      data.push(line.slice(5).replace(/^ /, ''));
    }
  }
  if (data.length) yield data.join('\n');
}

/** The error of a non-2xx answer, from its status and the vendor's error body. */
export function httpError(status: number, vendorMessage: string | null, keyRefused: boolean): GenAiError {
  const detail = vendorMessage ? `: ${vendorMessage.slice(0, 300)}` : '';
  if (keyRefused || status === 401 || status === 403) return new GenAiError('invalid_token', `invalid token${detail}`, status);
  if (status === 408 || status === 504) return new GenAiError('timeout', `the provider timed out (HTTP ${status})`, status);
  if (status === 429) return new GenAiError('rate_limited', `the provider's rate limit or quota was reached${detail}`, status);
  if (status >= 500) return new GenAiError('unavailable', `the provider failed (HTTP ${status})${detail}`, status);
  return new GenAiError('rejected', `the provider refused the request (HTTP ${status})${detail}`, status);
}

/** Collects a stream into one result (how `generate` could be built on `stream`; used by tests and callers that stream). */
export async function collect(chunks: AsyncIterable<StreamChunk>, model: string): Promise<GenerateResult> {
  let text = '';
  let usage: TokenUsage = { input: 0, output: 0 };
  for await (const c of chunks) {
    if (c.type === 'text') text += c.text;
    else usage = c.usage;
  }
  return { text, usage, model };
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * What every adapter shares: its base URL and model (the configured ones or the vendor's defaults), JSON headers with
 * the vendor's key, and HTTP calls under the configured timeouts whose non-2xx answers go to the adapter's `fail`.
 */
export abstract class HttpProvider implements GenAiProvider {
  abstract readonly name: GenAiProviderName;
  protected readonly base: string;
  readonly model: string;

  constructor(
    protected readonly cfg: ProviderConfig,
    defaults: { baseUrl: string; model: string },
  ) {
    this.base = cfg.baseUrl || defaults.baseUrl;
    this.model = cfg.model || defaults.model;
  }

  /** The vendor's key header: a bearer key by default (when there is a key). */
  protected keyHeaders(): Record<string, string> {
    return this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {};
  }

  /** The request; a non-2xx answer ends in the adapter's `fail` (its vendor's error format). */
  protected async send(url: string, init: { method: 'GET' | 'POST'; body?: string; stream?: boolean; signal?: AbortSignal }): Promise<{ res: Response; controller: AbortController }> {
    const headers = { 'content-type': 'application/json', accept: init.stream ? 'text/event-stream' : 'application/json', ...this.keyHeaders() };
    const r = await request(url, { method: init.method, headers, body: init.body }, this.cfg.timeoutMs, init.signal, this.cfg.connect);
    if (!r.res.ok) await this.fail(r.res, r.controller);
    return r;
  }

  protected json(res: Response, controller: AbortController): Promise<unknown> {
    return readJson(res, controller, this.cfg.timeoutMs);
  }

  protected lines(res: Response, controller: AbortController): AsyncGenerator<string> {
    return readLines(res, controller, this.cfg.idleTimeoutMs ?? this.cfg.timeoutMs);
  }

  /** Throws the GenAiError of a non-2xx answer, from the vendor's error body. */
  protected abstract fail(res: Response, controller: AbortController): Promise<never>;
  abstract verify(): Promise<void>;
  abstract generate(req: GenerateRequest): Promise<GenerateResult>;
  abstract stream(req: GenerateRequest): AsyncIterable<StreamChunk>;
}
