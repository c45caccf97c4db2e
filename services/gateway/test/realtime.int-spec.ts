import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InMemoryRealtime } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule, ReadinessService } from '../src';
import { RealtimeStreamService } from '../src/realtime/realtime-stream.service';
import { openSse, type SseConnection, type SseFrame } from './sse-client';

const connected = (f: SseFrame[]) => f.some((x) => x.comments.includes('connected'));
const hasSubject = (s: string) => (f: SseFrame[]) => f.some((x) => (x.data as { subject?: string } | undefined)?.subject === s);
const msg = (accountId: string, topic: string, data: unknown = {}) => ({ accountId, topic, type: `${topic}.updated`, data });

describe('gateway (embedded mode)', () => {
  let t: TestApp;
  let adminDir: string;
  const open: SseConnection[] = [];

  const sse = async (query: string, token: string | null, headers: Record<string, string> = {}) => {
    const c = await openSse(`${t.url}/realtime?${query}`, token ? { authorization: `Bearer ${token}`, ...headers } : headers);
    open.push(c);
    if (c.status === 200) await c.waitFor(connected, 'the stream to open');
    return c;
  };

  beforeAll(async () => {
    adminDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-admin-'));
    fs.writeFileSync(path.join(adminDir, 'index.html'), '<!doctype html><title>Switchboard</title><div id="root"></div>');
    fs.mkdirSync(path.join(adminDir, 'assets'));
    fs.writeFileSync(path.join(adminDir, 'assets', 'index-abc123.js'), 'console.log("admin")');
    fs.writeFileSync(path.join(adminDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await createTestApp(() => ({
      imports: [GatewayModule.register({ mode: 'embedded', adminDistDir: adminDir, realtime: { heartbeatMs: 200 } })],
    }));
  });

  afterAll(async () => {
    // one stream is still open here: closing the app must end it rather than hang
    const lingering = await sse('topic=campaigns', t.token({ sub: '1', acc: '10' }));
    await t.close();
    expect(lingering.ended).toBe(true);
    open.forEach((c) => c.close());
    fs.rmSync(adminDir, { recursive: true, force: true });
  });

  describe('GET /realtime', () => {
    it("streams the caller's account events of the requested topics and never another account's", async () => {
      const a10 = await sse('topic=campaigns&topic=streams', t.token({ sub: '1', acc: '10' }));
      const a11 = await sse('topic=campaigns', t.token({ sub: '2', acc: '11' }));
      expect(a10.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(a10.headers['cache-control']).toMatch(/no-cache/);

      await t.realtime.publish('rt.11.campaigns.1', msg('11', 'campaigns', { secret: 'of 11' }));
      await t.realtime.publish('rt.10.campaigns', msg('10', 'campaigns'));
      await t.realtime.publish('rt.10.campaigns.5', msg('10', 'campaigns', { id: 5 }));
      await t.realtime.publish('rt.10.streams.7.stats', msg('10', 'streams'));
      await t.realtime.publish('rt.10.contacts.1', msg('10', 'contacts'));
      await t.realtime.publish('rt.10.campaignsx.1', msg('10', 'campaignsx'));
      await t.realtime.publish('rt.10.campaigns.end', msg('10', 'campaigns'));
      await a10.waitFor(hasSubject('rt.10.campaigns.end'), 'the last event of account 10');
      await a11.waitFor(hasSubject('rt.11.campaigns.1'), 'the event of account 11');

      const got = a10.messages();
      expect(got.map((m) => m.data.subject)).toEqual(['rt.10.campaigns', 'rt.10.campaigns.5', 'rt.10.streams.7.stats', 'rt.10.campaigns.end']);
      expect(got.every((m) => m.data.accountId === '10')).toBe(true);
      expect(got[1]).toMatchObject({ event: 'campaigns', id: got[1].data.id, data: { type: 'campaigns.updated', data: { id: 5 } } });
      expect(JSON.stringify(a10.frames)).not.toContain('of 11');
      expect(a11.messages().map((m) => m.data.subject)).toEqual(['rt.11.campaigns.1']);
    });

    it('refuses to name another account, by topic or by parameter', async () => {
      const token = t.token({ sub: '1', acc: '10' });
      for (const q of ['topic=campaigns&topic=11', 'topic=campaigns&accountId=11']) {
        const c = await sse(q, token);
        expect(c.status).toBe(403);
        expect(c.body).toMatchObject({ code: 'ACCESS_DENIED', status: 403 });
      }
      // the spec's "topic and account id": the caller's own account id is accepted
      const own = await sse('topic=campaigns&topic=10&accountId=10', token);
      expect(own.status).toBe(200);
      await t.realtime.publish('rt.10.campaigns.own', msg('10', 'campaigns'));
      await own.waitFor(hasSubject('rt.10.campaigns.own'), 'own event');
    });

    it.each([
      ['a topic with dots', 'topic=campaigns.5'],
      ['a subject-like topic', 'topic=11.campaigns'],
      ['a star wildcard', 'topic=*'],
      ['a tail wildcard', 'topic=%3E'],
      ['a space', 'topic=camp%20aigns'],
      ['an unknown topic', 'topic=secrets'],
      ['no topic', ''],
    ])('refuses %s with 400', async (_what, query) => {
      const c = await sse(query, t.token({ sub: '1', acc: '10' }));
      expect(c.status).toBe(400);
      expect(c.body).toMatchObject({ code: '0x1', status: 400 });
    });

    it('replays what a reconnecting client missed, from lastEventId or the Last-Event-ID header', async () => {
      const token = t.token({ sub: '1', acc: '10' });
      const first = await sse('topic=tasks', token);
      await t.realtime.publish('rt.10.tasks.1', msg('10', 'tasks'));
      await first.waitFor(hasSubject('rt.10.tasks.1'), 'the first task event');
      const lastId = first.messages()[0].id as string;
      first.close();

      await t.realtime.publish('rt.10.tasks.2', msg('10', 'tasks'));
      await t.realtime.publish('rt.11.tasks.3', msg('11', 'tasks'));
      await t.realtime.publish('rt.10.imports.4', msg('10', 'imports'));
      await t.realtime.publish('rt.10.tasks.5', msg('10', 'tasks'));

      const byQuery = await sse(`topic=tasks&lastEventId=${encodeURIComponent(lastId)}`, token);
      await byQuery.waitFor(hasSubject('rt.10.tasks.5'), 'the replay');
      expect(byQuery.messages().map((m) => m.data.subject)).toEqual(['rt.10.tasks.2', 'rt.10.tasks.5']);
      expect(byQuery.frames.some((f) => f.event === 'warning')).toBe(false);

      // the header (what EventSource sends on its own reconnects) wins over the id in the URL
      const replayed = byQuery.messages();
      const byHeader = await sse(`topic=tasks&lastEventId=${encodeURIComponent(lastId)}`, token, { 'last-event-id': replayed[0].id as string });
      await byHeader.waitFor(hasSubject('rt.10.tasks.5'), 'the replay');
      expect(byHeader.messages().map((m) => m.data.subject)).toEqual(['rt.10.tasks.5']);

      // live events keep flowing after a replay, without duplicates
      await t.realtime.publish('rt.10.tasks.6', msg('10', 'tasks'));
      await byHeader.waitFor(hasSubject('rt.10.tasks.6'), 'a live event');
      expect(byHeader.messages().map((m) => m.data.subject)).toEqual(['rt.10.tasks.5', 'rt.10.tasks.6']);
    });

    it('tells the client to refetch when the history it asks for is gone', async () => {
      const c = await sse('topic=domains&lastEventId=1-1', t.token({ sub: '1', acc: '10' }));
      await c.waitFor((f) => f.some((x) => x.event === 'warning'), 'the warning');
      expect(c.frames.find((x) => x.event === 'warning')?.data).toEqual({ reason: 'history_unavailable', resync: true });
    });

    it('accepts the token as access_token in the query (EventSource cannot set headers)', async () => {
      const c = await sse(`topic=inbox&access_token=${t.token({ sub: '1', acc: '10' })}`, null);
      expect(c.status).toBe(200);
    });

    it('refuses a missing, invalid or account-less token with 401', async () => {
      const none = await sse('topic=campaigns', null);
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ code: '0x11', status: 401 });
      const invalid = await sse('topic=campaigns', `${t.token({ sub: '1', acc: '10' })}x`);
      expect(invalid.status).toBe(401);
      expect(invalid.body).toMatchObject({ code: '0x14', status: 401 });
      const noAccount = await sse('topic=campaigns', t.token({ sub: '1' }));
      expect(noAccount.status).toBe(401);
      expect(noAccount.body).toMatchObject({ code: '0x14', status: 401 });
    });

    it('sends heartbeats and releases its subscriptions when the client goes away', async () => {
      const rt = t.realtime as InMemoryRealtime;
      const streams = t.app.get(RealtimeStreamService);
      const before = rt.subscriptionCount;
      const c = await sse('topic=campaigns&topic=streams&topic=dashboard', t.token({ sub: '1', acc: '10' }));
      expect(rt.subscriptionCount).toBe(before + 6);
      await c.waitFor((f) => f.some((x) => x.comments.includes('heartbeat')), 'a heartbeat', 2000);
      const openStreams = streams.connections;
      c.close();
      const end = Date.now() + 2000;
      while (rt.subscriptionCount !== before && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      expect(rt.subscriptionCount).toBe(before);
      expect(streams.connections).toBe(openStreams - 1);
    });
  });

  describe('GET /api/health', () => {
    it('is 503 until the process reports ready, then 200', async () => {
      const readiness = t.app.get(ReadinessService);
      let res = await fetch(`${t.url}/api/health`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: '0x0', status: 503 });
      readiness.markReady();
      res = await fetch(`${t.url}/api/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'ok' });
      readiness.markNotReady('migrations', 'running');
      expect((await fetch(`${t.url}/api/health`)).status).toBe(503);
      readiness.markReady('migrations');
      expect((await fetch(`${t.url}/api/health/live`)).status).toBe(200);
    });
  });

  describe('admin build', () => {
    it('serves index.html, uncached, at / and for client-side routes', async () => {
      for (const p of ['/', '/campaigns/5', '/select-account?x=1', '/index.html']) {
        const res = await fetch(`${t.url}${p}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/text\/html/);
        expect(res.headers.get('cache-control')).toMatch(/no-cache/);
        expect(await res.text()).toContain('<div id="root">');
      }
    });

    it('serves hashed assets with a long cache and other files revalidated', async () => {
      const asset = await fetch(`${t.url}/assets/index-abc123.js`);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await asset.text()).toContain('admin');
      const icon = await fetch(`${t.url}/favicon.svg`);
      expect(icon.headers.get('cache-control')).toBe('no-cache');
    });

    it('does not answer the API, missing files or other methods with the app', async () => {
      const api = await fetch(`${t.url}/api/nothing-here`);
      expect(api.status).toBe(404);
      expect(await api.json()).toMatchObject({ status: 404 });
      expect((await fetch(`${t.url}/assets/missing.js`)).status).toBe(404);
      expect((await fetch(`${t.url}/campaigns`, { method: 'POST' })).status).toBe(404);
    });
  });

  describe('a slow client', () => {
    let slowApp: TestApp;
    beforeAll(async () => {
      slowApp = await createTestApp(() => ({ imports: [GatewayModule.register({ mode: 'embedded', realtime: { maxQueue: 5 } })] }));
    });
    afterAll(() => slowApp.close());

    it('loses its oldest messages with a warning instead of growing the queue', async () => {
      const c = await openSse(`${slowApp.url}/realtime?topic=campaigns`, { authorization: `Bearer ${slowApp.token({ sub: '1', acc: '10' })}` });
      await c.waitFor(connected, 'the stream to open');
      c.pause();
      const big = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 400; i++) await slowApp.realtime.publish(`rt.10.campaigns.${i}`, msg('10', 'campaigns', { big }));
      await new Promise((r) => setTimeout(r, 200));
      c.resume();
      await c.waitFor(hasSubject('rt.10.campaigns.399'), 'the newest message', 10000);
      const warning = c.frames.find((f) => f.event === 'warning');
      expect(warning?.data).toMatchObject({ reason: 'overflow', resync: true });
      expect(c.messages().length).toBeLessThan(400);
      c.close();
    });
  });
});
