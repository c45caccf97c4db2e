import { randomUUID } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { WebSocket } from 'ws';
import { ALL_PERMISSIONS, MemberChangedV1, MessageReceivedV1, StreamCreatedV1, StreamType, type InboxWsServerMessage } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule } from '@switchboard/gateway';
import { InboxModule } from '@switchboard/inbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field
const INBOX = ALL_PERMISSIONS.filter((p) => p.startsWith('INBOX_'));

/** A websocket client that records what the server sends and can wait for it. */
class Client {
  readonly got: InboxWsServerMessage[] = [];
  private waiters: Array<() => void> = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (d) => {
      this.got.push(JSON.parse(d.toString()) as InboxWsServerMessage);
      for (const w of this.waiters.splice(0)) w();
    });
  }
  static open(url: string): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const c = new Client(ws);
      ws.once('open', () => resolve(c));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }
  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }
  async until(pred: (all: InboxWsServerMessage[]) => boolean, what: string): Promise<InboxWsServerMessage[]> {
    for (let i = 0; i < 200 && !pred(this.got); i++) await new Promise<void>((r) => { this.waiters.push(r); setTimeout(r, 50); });
    if (!pred(this.got)) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.got)}`);
    return this.got;
  }
  events(room: string): Array<InboxWsServerMessage & { type: 'event' }> {
    return this.got.filter((m): m is InboxWsServerMessage & { type: 'event' } => m.type === 'event' && m.room === room);
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
 * The inbox websocket at `/ws` (spec 4): rooms per account, space, team, agent and conversation; joining checks the
 * tenant and the permission; a reconnect resumes from the last number seen without gaps or duplicates.
 */
describe('the inbox websocket', () => {
  let t: TestApp;
  let bus: InMemoryEventBus;
  const streamUid = randomUUID();
  let space = 0;
  let otherSpace = 0;
  let team = 0;
  const wsUrl = (token: string) => `${t.url.replace('http', 'ws')}/ws?access_token=${token}`;
  const token = (acc: string, user: string, perms: readonly string[] = ['INBOX_VIEW']) => t.token({ sub: user, acc, perms: [...perms] });
  const api = async (method: string, path: string, body: unknown, tok: string) => {
    const res = await fetch(`${t.url}/api${path}`, { method, headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as Json;
  };
  const publish = async (events: OutgoingEvent<unknown>[]) => {
    await bus.publish(events);
    await bus.drain();
  };
  const incoming = (from: string, body: string) =>
    createEnvelope(
      MessageReceivedV1,
      { messageUuid: randomUUID(), accountId: '1', streamId: '501', streamUid, streamType: StreamType.TwoWay, channel: 'sms', accountPhone: '+4915100000009', contactPhone: from, contactName: null, messageType: 'text', body, media: null, receivedAt: new Date().toISOString() },
      { source: 'dispatch', accountId: '1' },
    );

  beforeAll(async () => {
    bus = new InMemoryEventBus();
    t = await createTestApp(() => ({ imports: [InboxModule.register({ sendWaitMs: 0 }), GatewayModule.register({ mode: 'embedded' })], bus }));
    const member = (acc: string, user: string) =>
      createEnvelope(MemberChangedV1, { accountId: acc, userId: user, email: `${user}@x.y`, firstName: 'A', lastName: 'B', status: 1, platformRole: null, inboxRole: { id: '9', name: 'Agent' }, permissions: ['INBOX_VIEW'], removed: false }, { source: 'auth', accountId: acc });
    await publish([
      member('1', '11'),
      member('1', '12'),
      member('2', '21'),
      createEnvelope(StreamCreatedV1, { streamId: '501', accountId: '1', streamUid, name: 's', streamType: StreamType.TwoWay, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: new Date().toISOString() }, { source: 'streams', accountId: '1' }),
    ]);
    const admin = token('1', '100', INBOX);
    space = (await api('POST', '/spaces', { name: 'Support' }, admin)).id;
    otherSpace = (await api('POST', '/spaces', { name: 'Other' }, admin)).id;
    team = (await api('POST', '/teams', { name: 'A', space, agents: [11] }, admin)).id;
    await api('POST', '/teams', { name: 'B', space: otherSpace, agents: [12] }, admin);
    await api('POST', '/incoming_routings', { name: 'all', stream: streamUid, team, space }, admin);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('refuses a connection without a valid token', async () => {
    await expect(Client.open(`${t.url.replace('http', 'ws')}/ws`)).rejects.toThrow('HTTP 401');
    await expect(Client.open(`${t.url.replace('http', 'ws')}/ws?access_token=nonsense`)).rejects.toThrow('HTTP 401');
  });

  it("lets an agent join their own team's and their own rooms, never another space's or another account's", async () => {
    const c = await Client.open(wsUrl(token('1', '11')));
    c.send({ type: 'join', room: `team:${team}` });
    c.send({ type: 'join', room: 'agent:11' });
    c.send({ type: 'join', room: `space:${otherSpace}` });
    c.send({ type: 'join', room: `space:${space}` });
    c.send({ type: 'join', room: 'agent:12' });
    c.send({ type: 'join', room: 'account:1' });
    c.send({ type: 'join', room: 'account:2' });
    c.send({ type: 'join', room: 'space:../../x' });
    await c.until((all) => all.length >= 8, 'eight answers');
    const byRoom = Object.fromEntries(c.got.map((m) => [(m as { room?: string }).room ?? '', m.type === 'error' ? m.code : m.type]));
    expect(byRoom).toEqual({
      [`team:${team}`]: 'joined',
      'agent:11': 'joined',
      // a space the agent is no member of, and a space room without INBOX_TEAM_VIEW
      [`space:${otherSpace}`]: 'NO_PERMISSIONS',
      [`space:${space}`]: 'NO_PERMISSIONS',
      'agent:12': 'NO_PERMISSIONS',
      'account:1': 'NO_PERMISSIONS',
      'account:2': 'NOT_FOUND',
      'space:../../x': 'INVALID',
    });
    // another account's agent cannot join account 1's rooms, whatever their permissions
    const stranger = await Client.open(wsUrl(token('2', '21', INBOX)));
    stranger.send({ type: 'join', room: `space:${space}` });
    stranger.send({ type: 'join', room: `team:${team}` });
    await stranger.until((all) => all.length >= 2, 'two answers');
    expect(stranger.got.map((m) => (m.type === 'error' ? m.code : m.type))).toEqual(['NOT_FOUND', 'NOT_FOUND']);

    // an incoming message reaches the team room; the stranger's socket hears nothing
    await publish([incoming('+4917600000001', 'hello')]);
    await c.until((all) => all.some((m) => m.type === 'event' && m.room === `team:${team}` && m.event === 'incoming_message'), 'incoming_message');
    const ev = c.events(`team:${team}`).find((m) => m.event === 'incoming_message') as Json;
    expect(ev.payload.message).toMatchObject({ event_type: 'incoming_message', content: { body: 'hello' } });
    // without INBOX_SHOW_PHONE the contact's number arrives masked
    expect(ev.payload.conversation.contact_phone_number).toMatch(/^\+4917\*+01$/);
    expect(ev.payload.message.source).toMatch(/^\+4917\*+01$/);
    const uuid = ev.payload.conversation.conversation_uuid as string;
    // its conversation room: the team's agent yes, the other space's agent no
    c.send({ type: 'join', room: `conversation:${uuid}` });
    const b = await Client.open(wsUrl(token('1', '12')));
    b.send({ type: 'join', room: `conversation:${uuid}` });
    await b.until((all) => all.length >= 1, 'an answer');
    expect(b.got[0]).toMatchObject({ type: 'error', code: 'NOT_FOUND' });
    await c.until((all) => all.some((m) => m.type === 'joined' && m.room === `conversation:${uuid}`), 'conversation joined');
    expect(stranger.got).toHaveLength(2);
    await Promise.all([c.close(), b.close(), stranger.close()]);
  });

  it('resumes after a reconnect without gaps or duplicates, and asks for a reload past the replay window', async () => {
    const room = `team:${team}`;
    const a = await Client.open(wsUrl(token('1', '11', ['INBOX_VIEW', 'INBOX_SHOW_PHONE'])));
    a.send({ type: 'join', room });
    await a.until((all) => all.some((m) => m.type === 'joined'), 'joined');
    await publish([incoming('+4917600000002', 'one')]);
    await a.until(() => a.events(room).length >= 1, 'first event');
    // with INBOX_SHOW_PHONE the number as it is
    expect((a.events(room)[0].payload as Json).conversation.contact_phone_number).toBe('+4917600000002');
    const seen = a.events(room).map((e) => e.seq);
    const last = Math.max(...seen);
    await a.close();

    // while away: three messages (each one event in the team room besides space_statistics in the space room)
    await publish([incoming('+4917600000003', 'two'), incoming('+4917600000004', 'three'), incoming('+4917600000005', 'four')]);

    const back = await Client.open(wsUrl(token('1', '11')));
    back.send({ type: 'join', room, since: last });
    await back.until((all) => all.some((m) => m.type === 'joined'), 'joined again');
    await publish([incoming('+4917600000006', 'five')]);
    await back.until(() => back.events(room).some((e) => (e.payload as Json).message?.content?.body === 'five'), 'the live event');
    const seqs = back.events(room).map((e) => e.seq);
    // exactly the numbers after the last seen, each once, in order
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => last + 1 + i));
    // the three published together are consumed concurrently (any order among them), the live one after them
    const bodies = back.events(room).map((e) => (e.payload as Json).message.content.body as string);
    expect([...bodies.slice(0, 3)].sort()).toEqual(['four', 'three', 'two']);
    expect(bodies.slice(3)).toEqual(['five']);
    await back.close();

    // the replay log no longer reaches back that far: the client is told to reload
    const db = new PgClient({ connectionString: t.db.url });
    await db.connect();
    await db.query(`DELETE FROM inbox.room_event WHERE room = $1 AND seq <= $2`, [`1|${room}`, last + 2]);
    await db.end();
    const late = await Client.open(wsUrl(token('1', '11')));
    late.send({ type: 'join', room, since: last });
    await late.until((all) => all.length >= 1, 'an answer');
    expect(late.got[0]).toMatchObject({ type: 'reset', room });
    await late.close();
  });

  it("tells the space room the space's totals as each batch of incoming messages left them", async () => {
    const room = `space:${space}`;
    const c = await Client.open(wsUrl(token('1', '100', INBOX)));
    c.send({ type: 'join', room });
    await c.until((all) => all.some((m) => m.type === 'joined' && m.room === room), 'joined');
    const db = new PgClient({ connectionString: t.db.url });
    await db.connect();
    try {
      const counted = async () => {
        const { rows } = await db.query<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM inbox.conversation WHERE space_id = $1 GROUP BY status`, [space]);
        const by = (st: string) => rows.find((r) => r.status === st)?.n ?? 0;
        return { all: by('active') + by('unanswered') + by('closed'), active: by('active'), unanswered: by('unanswered'), closed: by('closed'), my_closed: 0, assigned_to_me: 0 };
      };
      // new conversations and one more message of a known one, in one publish
      await publish([incoming('+4917600000031', 'totals one'), incoming('+4917600000032', 'totals two'), incoming('+4917600000031', 'totals three')]);
      const expected = await counted();
      expect(expected.unanswered).toBeGreaterThanOrEqual(2);
      await c.until(() => c.events(room).some((e) => e.event === 'space_statistics' && JSON.stringify((e.payload as Json).totals) === JSON.stringify(expected)), `space_statistics with ${JSON.stringify(expected)}`);
      const last = c.events(room).filter((e) => e.event === 'space_statistics').at(-1) as Json;
      expect(last.payload).toEqual({ space_id: space, totals: expected });
    } finally {
      await db.end();
      await c.close();
    }
  });
});
