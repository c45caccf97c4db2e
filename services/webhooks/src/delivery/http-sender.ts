import * as http from 'node:http';
import * as https from 'node:https';
import { pinnedLookup, pinnedRequestOptions, type CheckedDestination } from '@switchboard/platform';

export interface SentRequest {
  uri: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
}

export interface Outcome {
  status: 'success' | 'failed' | 'timeout';
  /** E-CONNECTION_TIMEOUT (spec 8) for a timeout; a short code for other failures; null on success. */
  error: string | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  durationMs: number;
}

export const CONNECTION_TIMEOUT = 'E-CONNECTION_TIMEOUT';

/**
 * One request to the checked address: the socket connects to `dest.address` (a lookup that answers it, never DNS),
 * the Host header and TLS name stay the URL's host. Redirects are not followed (a 3xx is a failed attempt); the
 * response body is read up to `maxBytes`; the whole exchange is bounded by `timeoutMs`.
 */
export function sendOnce(dest: CheckedDestination, req: SentRequest, o: { timeoutMs: number; maxBytes: number; agent?: http.Agent }): Promise<Outcome> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const lookup = pinnedLookup(dest);
  const lib = dest.url.protocol === 'https:' ? https : http;
  return new Promise<Outcome>((resolve) => {
    let done = false;
    const finish = (o: Omit<Outcome, 'durationMs'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...o, durationMs: elapsed() });
    };
    const r = lib.request(pinnedRequestOptions(dest, req.method, req.headers, req.method === 'POST' ? req.body : undefined, o.agent, lookup), (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const complete = () => {
        const status = res.statusCode ?? 0;
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const response = { status, headers, body: Buffer.concat(chunks).toString('utf8') };
        finish(status >= 200 && status < 300 ? { status: 'success', error: null, response } : { status: 'failed', error: `HTTP_${status}`, response });
      };
      res.on('data', (c: Buffer) => {
        if (size >= o.maxBytes) return;
        const take = c.subarray(0, o.maxBytes - size);
        chunks.push(take);
        size += take.length;
        if (size >= o.maxBytes) {
          // enough read: the rest is not waited for
          complete();
          res.destroy();
        }
      });
      res.on('end', complete);
      res.on('error', () => complete());
    });
    const timer = setTimeout(() => {
      finish({ status: 'timeout', error: CONNECTION_TIMEOUT, response: null });
      r.destroy();
    }, o.timeoutMs);
    r.on('error', (e: NodeJS.ErrnoException) => finish({ status: 'failed', error: e.code ?? 'E-CONNECTION', response: null }));
    if (req.method === 'POST') r.end(req.body);
    else r.end();
  });
}
