import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { WebSocket } from 'ws';
import { MemberChangedV1, MessageReceivedV1, StreamCreatedV1, StreamType, type InboxWsServerMessage } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, NatsRealtime, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, natsTestUrl, type TestApp } from '@switchboard/platform/testing';
import { gatewayConfigSchema, startGateway, type RunningGateway } from '@switchboard/gateway';
import { InboxModule } from '@switchboard/inbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- payloads read field by field

/** A websocket client that records what the server sends. */
class Socket {
  readonly got: InboxWsServerMessage[] = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => this.got.push(JSON.parse(d.toString()) as InboxWsServerMessage));
  }
  static open(url: string): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const s = new Socket(new WebSocket(url));
      s.ws.once('open', () => resolve(s));
      s.ws.once('unexpected-response', (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      s.ws.once('error', reject);
    });
  }
  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }
  async until(pred: () => boolean, what: string): Promise<void> {
    for (let i = 0; i < 300 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!pred()) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.got)}`);
  }
  events(room: string): Array<InboxWsServerMessage & { type: 'event' }> {
    return this.got.filter((m): m is InboxWsServerMessage & { type: 'event' } => m.type === 'event' && m.room === room);
  }
  bodies(room: string): string[] {
    return this.events(room).flatMap((e) => ((e.payload as Json).message?.content?.body as string | undefined) ?? []);
  }
  close(): Promise<void> {
    return new Promise((r) => {
      if (this.ws.readyState === this.ws.CLOSED) return r();
      this.ws.once('close', () => r());
      this.ws.close();
    });
  }
}

/**
 * Distributed mode's websocket (docs/decisions/0035): the inbox publishes room events on NATS, two standalone gateway
 * replicas (as `services/gateway/src/main.ts` starts them, NATS realtime, joins asked of the inbox through
 * GATEWAY_ROUTES) each serve agents; an agent on either replica hears the same events in the same numbered order, and
 * an agent who drops off one replica resumes on the other from the last number seen, with nothing missed or doubled.
 */
describe('the inbox websocket over NATS: two gateway replicas in front of the inbox', () => {
  let t: TestApp;
  let bus: InMemoryEventBus;
  let inboxRealtime: NatsRealtime;
  const gateways: RunningGateway[] = [];
  // an account of its own on the shared nats-server, so other tests' rooms never mix in
  const acc = String(700_000 + Math.floor(Math.random() * 100_000));
  const streamUid = randomUUID();
  let team = 0;
  const open: Socket[] = [];
  const ws = async (gw: RunningGateway) => {
    const s = await Socket.open(`${gw.url.replace('http', 'ws')}/ws?access_token=${t.token({ sub: '11', acc, perms: ['INBOX_VIEW', 'INBOX_SHOW_PHONE'] })}`);
    open.push(s);
    return s;
  };
  const publish = async (events: OutgoingEvent<unknown>[]) => {
    await bus.publish(events);
    await bus.drain();
  };
  const incoming = (from: string, body: string) =>
    createEnvelope(
      MessageReceivedV1,
      { messageUuid: randomUUID(), accountId: acc, streamId: '501', streamUid, streamType: StreamType.TwoWay, channel: 'sms', accountPhone: '+4915100000009', contactPhone: from, contactName: null, messageType: 'text', body, media: null, receivedAt: new Date().toISOString() },
      { source: 'dispatch', accountId: acc },
    );

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    bus = new InMemoryEventBus();
    inboxRealtime = new NatsRealtime({ servers: [natsTestUrl()], name: 'inbox-test' });
    t = await createTestApp(() => ({ imports: [InboxModule.register({ sendWaitMs: 0 })], bus, realtime: inboxRealtime }));
    await inboxRealtime.ready();
    for (let i = 0; i < 2; i++) {
      const config = gatewayConfigSchema.parse({
        PORT: '0',
        HOST: '127.0.0.1',
        JWT_PUBLIC_KEY: Buffer.from(t.keys.publicKey).toString('base64'),
        NATS_URL: natsTestUrl(),
        GATEWAY_ROUTES: `inbox=${t.url}`,
      });
      const gw = await startGateway(config, { logger: ['error'] });
      await (gw.realtime as NatsRealtime).ready();
      gateways.push(gw);
    }
    const member = (user: string) =>
      createEnvelope(MemberChangedV1, { accountId: acc, userId: user, email: `${user}@x.y`, firstName: 'A', lastName: 'B', status: 1, platformRole: null, inboxRole: { id: '9', name: 'Agent' }, permissions: ['INBOX_VIEW'], removed: false }, { source: 'auth', accountId: acc });
    await publish([
      member('11'),
      createEnvelope(StreamCreatedV1, { streamId: '501', accountId: acc, streamUid, name: 's', streamType: StreamType.TwoWay, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: new Date().toISOString() }, { source: 'streams', accountId: acc }),
    ]);
    const admin = t.token({ sub: '100', acc, perms: ['INBOX_VIEW', 'INBOX_ADMIN', 'INBOX_TEAM_MANAGEMENT', 'INBOX_INCOMING_ROUTING'] });
    const api = async (path: string, body: unknown) =>
      (await (await fetch(`${t.url}/api${path}`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Json;
    const space = (await api('/spaces', { name: 'Support' })).id as number;
    team = (await api('/teams', { name: 'A', space, agents: [11] })).id as number;
    expect((await api('/incoming_routings', { name: 'all', stream: streamUid, team, space })).id).toBeGreaterThan(0);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    for (const gw of gateways) await gw.close();
    await t?.close();
    jest.restoreAllMocks();
  });

  it('delivers each room event to agents on both replicas, in the same numbered order', async () => {
    const room = `team:${team}`;
    const [a, b] = [await ws(gateways[0]), await ws(gateways[1])];
    for (const s of [a, b]) s.send({ type: 'join', room });
    await a.until(() => a.got.some((m) => m.type === 'joined'), 'joined on replica A');
    await b.until(() => b.got.some((m) => m.type === 'joined'), 'joined on replica B');
    await publish([incoming('+4917600000001', 'one'), incoming('+4917600000002', 'two'), incoming('+4917600000003', 'three')]);
    await a.until(() => a.events(room).length >= 3, 'three events on A');
    await b.until(() => b.events(room).length >= 3, 'three events on B');
    const order = (s: Socket) => s.events(room).map((e) => [e.seq, (e.payload as Json).message.content.body]);
    expect(order(a)).toEqual(order(b));
    const seqs = a.events(room).map((e) => e.seq);
    expect(seqs).toEqual([seqs[0], seqs[0] + 1, seqs[0] + 2]);
    expect([...a.bodies(room)].sort()).toEqual(['one', 'three', 'two']);
  });

  it('resumes on the other replica after a drop, from the last number seen: nothing missed, nothing twice', async () => {
    const room = `team:${team}`;
    const a = await ws(gateways[0]);
    a.send({ type: 'join', room });
    await a.until(() => a.got.some((m) => m.type === 'joined'), 'joined on replica A');
    await publish([incoming('+4917600000004', 'before the drop')]);
    await a.until(() => a.bodies(room).includes('before the drop'), 'the event before the drop');
    const last = Math.max(...a.events(room).map((e) => e.seq));
    // the network drops: the socket is gone; meanwhile three messages come in
    a.ws.terminate();
    await publish([incoming('+4917600000005', 'away 1'), incoming('+4917600000006', 'away 2'), incoming('+4917600000007', 'away 3')]);

    const back = await ws(gateways[1]);
    back.send({ type: 'join', room, since: last });
    await back.until(() => back.got.some((m) => m.type === 'joined'), 'joined on replica B');
    await publish([incoming('+4917600000008', 'live again')]);
    await back.until(() => back.bodies(room).includes('live again'), 'the live event after the resume');
    const seqs = back.events(room).map((e) => e.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => last + 1 + i));
    expect(back.bodies(room).slice(0, 3).sort()).toEqual(['away 1', 'away 2', 'away 3']);
    expect(back.bodies(room).slice(3)).toEqual(['live again']);
  });
});
