import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StillLoadingError, withStillLoadingRetry } from './still-loading';

/**
 * Spec 4 and 8: while the server prepares a conversation's history it answers 202 `{ message: 'still_loading' }`;
 * the console asks again up to 5 times, 3 s apart (shortened here), then shows the error. A local HTTP server plays
 * the inbox and counts the requests.
 */
describe('a timeline that is still loading', () => {
  let server: Server;
  let base = '';
  const plan = new Map<string, number>();
  const asked = new Map<string, number>();
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const uuid = /\/api\/inbox\/conversation\/([^?]+)/.exec(req.url ?? '')?.[1] ?? '';
      const n = (asked.get(uuid) ?? 0) + 1;
      asked.set(uuid, n);
      res.setHeader('content-type', 'application/json');
      if (n <= (plan.get(uuid) ?? 0)) {
        res.writeHead(202);
        res.end(JSON.stringify({ message: 'still_loading' }));
      } else res.end(JSON.stringify({ conversation: { conversation_uuid: uuid }, items: [{ event_uuid: 'e1' }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  /** One GET of a timeline page, as the console's apiFetch makes it (the body of a 202 is the answer). */
  const page = (uuid: string) => () => realFetch(`${base}/api/inbox/conversation/${uuid}?page=1&page_size=30`).then((r) => r.json() as Promise<{ items: unknown[] }>);

  it('asks again while the answer is still_loading and shows the page once it is ready', async () => {
    plan.set('c1', 3);
    const attempts: number[] = [];
    const answer = await withStillLoadingRetry(page('c1'), { retryMs: 5, onRetry: (n) => attempts.push(n) });
    expect(answer.items).toEqual([{ event_uuid: 'e1' }]);
    expect(attempts).toEqual([1, 2, 3]);
    expect(asked.get('c1')).toBe(4);
  });

  it('gives up after 5 retries with the still_loading error', async () => {
    plan.set('c2', 100);
    await expect(withStillLoadingRetry(page('c2'), { retryMs: 5 })).rejects.toBeInstanceOf(StillLoadingError);
    expect(asked.get('c2')).toBe(6);
  });
});
