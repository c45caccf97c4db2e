import { spawn, type ChildProcess } from 'node:child_process';
import { Logger } from '@nestjs/common';
import type { RealtimeMessage } from '@switchboard/contracts';
import { freePort } from '../database/embedded-postgres';
import { natsTestUrl } from '../testing/database';
import { NatsRealtime } from './nats-realtime';

const payload = (accountId: string, topic: string, data: unknown = {}) => ({ accountId, topic, type: 'updated', data });

async function until(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));

/** A nats-server of our own on a fixed port, so it can be stopped and started again at the same address. */
async function natsOn(port: number): Promise<ChildProcess> {
  const child = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('nats-server did not start')), 10000);
    const onData = (b: Buffer) => {
      if (b.toString().includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
  });
  return child;
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe('NatsRealtime against nats-server', () => {
  const opened: NatsRealtime[] = [];
  const open = async (opts: Partial<ConstructorParameters<typeof NatsRealtime>[0]> = {}) => {
    const rt = await NatsRealtime.connect({ servers: natsTestUrl(), ...opts });
    opened.push(rt);
    return rt;
  };
  beforeAll(() => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterAll(async () => {
    await Promise.all(opened.map((r) => r.close()));
    jest.restoreAllMocks();
  });

  it('delivers across connections by wildcard subject, and only the subscribed account', async () => {
    const publisher = await open({ name: 'test-publisher' });
    const subscriber = await open({ name: 'test-subscriber' });
    const acc10: RealtimeMessage[] = [];
    const anyAccountCampaign: string[] = [];
    await subscriber.subscribe('rt.10.campaigns.>', (m) => acc10.push(m));
    await subscriber.subscribe('rt.*.campaigns.*', (m) => anyAccountCampaign.push(m.subject));
    await settle();
    await publisher.publish('rt.10.campaigns.1', payload('10', 'campaigns', { n: 1 }));
    await publisher.publish('rt.11.campaigns.2', payload('11', 'campaigns', { n: 2 }));
    await publisher.publish('rt.10.streams.3', payload('10', 'streams', { n: 3 }));
    await publisher.publish('rt.10.campaigns.4.stats', payload('10', 'campaigns', { n: 4 }));
    await until(() => acc10.length === 2 && anyAccountCampaign.length === 2, 'deliveries');
    await settle();
    expect(acc10.map((m) => m.subject)).toEqual(['rt.10.campaigns.1', 'rt.10.campaigns.4.stats']);
    expect(acc10[0]).toMatchObject({ accountId: '10', topic: 'campaigns', type: 'updated', data: { n: 1 } });
    expect(acc10[0].id).toMatch(/^\d+-\d+-[0-9a-f]+$/);
    expect(anyAccountCampaign).toEqual(['rt.10.campaigns.1', 'rt.11.campaigns.2']);
  });

  it('stops delivering after unsubscribe', async () => {
    const rt = await open();
    const got: string[] = [];
    const unsubscribe = await rt.subscribe('rt.20.>', (m) => got.push(m.subject));
    await settle();
    await rt.publish('rt.20.campaigns.1', payload('20', 'campaigns'));
    await until(() => got.length === 1, 'first delivery');
    await unsubscribe();
    await rt.publish('rt.20.campaigns.2', payload('20', 'campaigns'));
    await settle(300);
    expect(got).toEqual(['rt.20.campaigns.1']);
  });

  it('drops a foreign payload that names another account than its subject', async () => {
    const rt = await open();
    const got: string[] = [];
    await rt.subscribe('rt.30.>', (m) => got.push(m.id));
    await settle();
    // A raw publish through a second connection, bypassing the driver's own checks.
    const { connect, JSONCodec } = await import('nats');
    const raw = await connect({ servers: natsTestUrl() });
    const jc = JSONCodec();
    raw.publish('rt.30.campaigns.1', jc.encode({ id: 'evil', accountId: '31', topic: 'campaigns', type: 'x', data: {}, at: '' }));
    raw.publish('rt.30.campaigns.2', jc.encode({ id: 'ok', accountId: '30', topic: 'campaigns', type: 'x', data: {}, at: '' }));
    await raw.drain();
    await until(() => got.length >= 1, 'the valid message');
    await settle();
    expect(got).toEqual(['ok']);
  });

  it('with replay, serves local subscriptions from one rt.> subscription and replays missed messages', async () => {
    const gateway = await open({ replay: { perAccount: 100 } });
    const service = await open();
    const got: RealtimeMessage[] = [];
    await gateway.subscribe('rt.40.campaigns.>', (m) => got.push(m));
    await settle();
    await service.publish('rt.40.campaigns.1', payload('40', 'campaigns'));
    await until(() => got.length === 1, 'live delivery');
    await service.publish('rt.40.campaigns.2', payload('40', 'campaigns'));
    await service.publish('rt.41.campaigns.3', payload('41', 'campaigns'));
    await service.publish('rt.40.streams.4', payload('40', 'streams'));
    await until(() => got.length === 2, 'second delivery');
    await settle();
    const r = await gateway.replay('40', got[0].id, ['rt.40.campaigns', 'rt.40.campaigns.>']);
    expect(r).toEqual({ messages: [got[1]], complete: true });
    // a driver without a buffer cannot replay
    expect(await service.replay('40', got[0].id, ['rt.40.>'])).toEqual({ messages: [], complete: false });
  });

  it('reconnects after the server restarts, restores subscriptions and reports the gap', async () => {
    const port = await freePort();
    let server = await natsOn(port);
    const url = `nats://127.0.0.1:${port}`;
    try {
      const gateway = await open({ servers: url, replay: true, reconnectTimeWaitMs: 100, pingIntervalMs: 500 });
      const direct = await open({ servers: url, reconnectTimeWaitMs: 100 });
      const publisher = await open({ servers: url, reconnectTimeWaitMs: 100 });
      const viaBuffer: RealtimeMessage[] = [];
      const viaNats: RealtimeMessage[] = [];
      let gaps = 0;
      gateway.onGap(() => gaps++);
      await gateway.subscribe('rt.50.>', (m) => viaBuffer.push(m));
      await direct.subscribe('rt.50.>', (m) => viaNats.push(m));
      await settle();
      await publisher.publish('rt.50.campaigns.1', payload('50', 'campaigns'));
      await until(() => viaBuffer.length === 1 && viaNats.length === 1, 'delivery before the restart');

      await stop(server);
      await until(() => !gateway.isConnected && !direct.isConnected, 'the disconnect');
      server = await natsOn(port);
      await until(() => gateway.isConnected && direct.isConnected && publisher.isConnected, 'the reconnect', 10000);
      await until(() => gaps === 1, 'the gap notice');
      await settle(300);

      await publisher.publish('rt.50.campaigns.2', payload('50', 'campaigns'));
      await until(() => viaBuffer.length === 2 && viaNats.length === 2, 'delivery after the restart', 10000);
      expect(viaBuffer.map((m) => m.subject)).toEqual(['rt.50.campaigns.1', 'rt.50.campaigns.2']);
      // what the buffer holds from before the outage can no longer promise completeness
      const r = await gateway.replay('50', viaBuffer[0].id, ['rt.50.>']);
      expect(r.complete).toBe(false);
      expect(r.messages.map((m) => m.subject)).toEqual(['rt.50.campaigns.2']);
      expect((await gateway.replay('50', viaBuffer[1].id, ['rt.50.>'])).complete).toBe(true);
    } finally {
      await Promise.all(opened.splice(0).map((r) => r.close()));
      await stop(server);
    }
  }, 30000);
});
