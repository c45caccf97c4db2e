import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { CheckedDestination } from './destination';

/** The lookup a request uses to reach a checked destination: it answers the checked address, never asks DNS. */
export function pinnedLookup(dest: Pick<CheckedDestination, 'address' | 'family'>): LookupFunction {
  return (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: dest.address, family: dest.family }]);
    else cb(null, dest.address, dest.family);
  };
}

/**
 * The options of a request to a checked destination: the socket connects to `dest.address` (through `lookup`, never
 * DNS), the Host header and TLS name stay the URL's host, and a body gets its content-length.
 */
export function pinnedRequestOptions(dest: CheckedDestination, method: string, headers: http.OutgoingHttpHeaders, body: string | undefined, agent: http.Agent | false | undefined, lookup: LookupFunction = pinnedLookup(dest)): https.RequestOptions {
  return {
    protocol: dest.url.protocol,
    host: dest.host,
    port: dest.port,
    path: `${dest.url.pathname}${dest.url.search}`,
    method,
    headers: body !== undefined ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers,
    lookup,
    servername: dest.host,
    agent,
  };
}

export interface PinnedRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange, head and body. */
  timeoutMs: number;
  /** A longer answer is cut off with an error. Default 16 MiB. */
  maxBytes?: number;
}

export interface PinnedResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body as it came (binary answers: media downloads). */
  bytes: Buffer;
}

/** The answer was longer than `maxBytes` (declared by its Content-Length, or counted as it came). */
export class PinnedResponseTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is longer than ${maxBytes} bytes`);
    this.name = 'PinnedResponseTooLarge';
  }
}

/** The request took longer than its timeout (its `name` is TimeoutError, as fetch's). */
export class PinnedRequestTimeout extends Error {
  constructor(ms: number) {
    super(`no complete answer within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * One HTTP request to a checked destination: the socket connects to `dest.address` (the lookup answers it), the
 * Host header and the TLS server name stay the URL's host, so certificates are checked against the name. Redirects
 * are not followed (the caller sees the 3xx). The URL's query is sent as given in `dest.url`.
 */
export function requestPinned(dest: CheckedDestination, r: PinnedRequest): Promise<PinnedResponse> {
  const lib = dest.url.protocol === 'https:' ? https : http;
  const maxBytes = r.maxBytes ?? 16 * 1024 * 1024;
  return new Promise<PinnedResponse>((resolve, reject) => {
    let done = false;
    const fail = (e: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      reject(e);
    };
    const req = lib.request(pinnedRequestOptions(dest, r.method, r.headers, r.body, false), (res) => {
      if (Number(res.headers['content-length']) > maxBytes) return fail(new PinnedResponseTooLarge(maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) return fail(new PinnedResponseTooLarge(maxBytes));
        chunks.push(c);
      });
      res.on('error', (e) => fail(e));
      res.on('end', () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: h, text: bytes.toString('utf8'), bytes });
      });
    });
    const timer = setTimeout(() => fail(new PinnedRequestTimeout(r.timeoutMs)), r.timeoutMs);
    req.on('error', (e) => fail(e));
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

export interface PinnedFetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Aborts the request at any point (the head, or the body being read): the reason is what the caller sees. */
  signal?: AbortSignal;
}

/**
 * `fetch`'s answer over a pinned connection, for callers that read a body as it arrives (streamed AI answers): the
 * socket connects to `dest.address`, the Host header and the TLS server name stay the URL's host, redirects are not
 * followed (the caller sees the 3xx). It resolves with the head; the body is a stream the caller reads or cancels.
 * The signal aborts the request before the head (the promise rejects with its reason) or during the body (the
 * stream fails with its reason).
 */
export function fetchPinned(dest: CheckedDestination, init: PinnedFetchInit): Promise<Response> {
  const lib = dest.url.protocol === 'https:' ? https : http;
  const signal = init.signal;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const req = lib.request(pinnedRequestOptions(dest, init.method, init.headers, init.body, false), (res) => {
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
      const status = res.statusCode ?? 0;
      const noBody = status === 204 || status === 304 || init.method === 'HEAD';
      if (noBody) res.resume();
      res.on('close', () => signal?.removeEventListener('abort', abort));
      resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers: h }));
    });
    const abort = () => req.destroy(abortReason(signal as AbortSignal));
    signal?.addEventListener('abort', abort, { once: true });
    req.on('error', (e) => {
      signal?.removeEventListener('abort', abort);
      reject(e);
    });
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}
