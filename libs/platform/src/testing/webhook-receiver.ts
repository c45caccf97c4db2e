import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A customer's webhook endpoint for tests and benches: answers every request 204, checks its Standard Webhooks signature
 * against the secret registered for its path, and counts requests by path and `webhook-id` (a receiver deduplicating on
 * the id sees each event once; a repeat is a count above one).
 */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`: a webhook's URL is this plus the path given to `addSecret`. */
  base: string;
  /** The webhook's secret (`whsec_...`, as created) for requests to `path`. */
  addSecret: (path: string, secret: string) => void;
  /** Requests by `"<path> <webhook-id>"`. */
  received: Map<string, number>;
  /** Requests so far, requests whose signature did not match, and the longest gap between two requests (ms). */
  stats: () => { requests: number; badSignatures: number; longestGapMs: number };
  /** Forgets what was received (not the secrets). */
  reset: () => void;
  close: () => Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secrets = new Map<string, Buffer>();
  const received = new Map<string, number>();
  let requests = 0;
  let badSignatures = 0;
  let last = 0;
  let longestGapMs = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests++;
      const now = performance.now();
      if (last) longestGapMs = Math.max(longestGapMs, now - last);
      last = now;
      const id = String(req.headers['webhook-id']);
      const key = secrets.get(req.url ?? '');
      const expected = key ? `v1,${createHmac('sha256', key).update(`${id}.${String(req.headers['webhook-timestamp'])}.${body}`).digest('base64')}` : '';
      if (!String(req.headers['webhook-signature']).split(' ').includes(expected)) badSignatures++;
      const k = `${req.url} ${id}`;
      received.set(k, (received.get(k) ?? 0) + 1);
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    addSecret: (path, secret) => secrets.set(path, Buffer.from(secret.replace(/^whsec_/, ''), 'base64')),
    received,
    stats: () => ({ requests, badSignatures, longestGapMs }),
    reset: () => {
      received.clear();
      requests = 0;
      last = 0;
      longestGapMs = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
