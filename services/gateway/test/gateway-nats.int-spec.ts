import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { generateSigningKeys, NatsRealtime, TokenSigner } from '@switchboard/platform';
import { natsTestUrl } from '@switchboard/platform/testing';
import { gatewayConfigSchema, startGateway, type RunningGateway } from '../src';
import { openSse, type SseConnection, type SseFrame } from './sse-client';

const connected = (f: SseFrame[]) => f.some((x) => x.comments.includes('connected'));
const hasSubject = (s: string) => (f: SseFrame[]) => f.some((x) => (x.data as { subject?: string } | undefined)?.subject === s);
const msg = (accountId: string, topic: string) => ({ accountId, topic, type: `${topic}.updated`, data: {} });

/** The standalone gateway as main.ts starts it: env config, NATS realtime, the proxy; services publish through NATS. */
describe('standalone gateway with NATS realtime', () => {
  let gw: RunningGateway;
  let service: NatsRealtime;
  let upstream: http.Server;
  const keys = generateSigningKeys();
  const signer = new TokenSigner(keys.privateKey);
  const token = (acc: string) => signer.signAccess({ sub: '1', email: 'a@test.local', acc, perms: [], roles: [], sa: false, sid: 's' }, 600);
  const streams: SseConnection[] = [];
  const sse = async (query: string, acc: string, headers: Record<string, string> = {}) => {
    const c = await openSse(`${gw.url}/realtime?${query}`, { authorization: `Bearer ${token(acc)}`, ...headers });
    streams.push(c);
    expect(c.status).toBe(200);
    await c.waitFor(connected, 'the stream to open');
    return c;
  };

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    upstream = http.createServer((req, res) => res.end(JSON.stringify({ url: req.url })));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const config = gatewayConfigSchema.parse({
      PORT: '0',
      HOST: '127.0.0.1',
      JWT_PUBLIC_KEY: Buffer.from(keys.publicKey).toString('base64'),
      NATS_URL: natsTestUrl(),
      GATEWAY_ROUTES: `auth=http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    });
    gw = await startGateway(config, { logger: ['error'] });
    service = await NatsRealtime.connect({ servers: natsTestUrl(), name: 'test-service' });
    await (gw.realtime as NatsRealtime).ready();
  });

  afterAll(async () => {
    streams.forEach((s) => s.close());
    await gw.close();
    await service.close();
    await new Promise((r) => upstream.close(r));
    jest.restoreAllMocks();
  });

  it('is ready and proxies /api to the configured service', async () => {
    expect((await fetch(`${gw.url}/api/health`)).status).toBe(200);
    expect(await (await fetch(`${gw.url}/api/users/connected?a=1`)).json()).toEqual({ url: '/api/users/connected?a=1' });
  });

  it("bridges NATS subjects of the caller's account to SSE, and nothing of another account", async () => {
    const a10 = await sse('topic=campaigns&topic=streams', '10');
    await service.publish('rt.11.campaigns.1', msg('11', 'campaigns'));
    await service.publish('rt.10.campaigns.2', msg('10', 'campaigns'));
    await service.publish('rt.10.streams', msg('10', 'streams'));
    await service.publish('rt.10.contacts.3', msg('10', 'contacts'));
    await service.publish('rt.10.campaigns.end', msg('10', 'campaigns'));
    await a10.waitFor(hasSubject('rt.10.campaigns.end'), 'the last event');
    expect(a10.messages().map((m) => m.data.subject)).toEqual(['rt.10.campaigns.2', 'rt.10.streams', 'rt.10.campaigns.end']);
    expect(a10.messages().every((m) => m.data.accountId === '10')).toBe(true);
  });

  it('replays from its buffer what a reconnecting client missed', async () => {
    const first = await sse('topic=imports', '12');
    await service.publish('rt.12.imports.1', msg('12', 'imports'));
    await first.waitFor(hasSubject('rt.12.imports.1'), 'the first event');
    const lastId = first.messages()[0].id as string;
    first.close();
    await service.publish('rt.12.imports.2', msg('12', 'imports'));
    await service.publish('rt.13.imports.3', msg('13', 'imports'));
    // wait until the gateway's buffer has seen the second event (it arrives through NATS)
    const deadline = Date.now() + 5000;
    while (!(await gw.realtime.replay('12', lastId, ['rt.12.imports.>'])).messages.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const again = await sse('topic=imports', '12', { 'last-event-id': lastId });
    await again.waitFor(hasSubject('rt.12.imports.2'), 'the replayed event');
    expect(again.messages().map((m) => m.data.subject)).toEqual(['rt.12.imports.2']);
    expect(again.frames.some((f) => f.event === 'warning')).toBe(false);
  });
});
