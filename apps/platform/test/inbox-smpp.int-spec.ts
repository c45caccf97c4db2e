import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebSocket } from 'ws';
import { ALL_PERMISSIONS, MemberChangedV1, type InboxWsServerMessage } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { SmppPeer } from '@switchboard/dispatch';
import { GatewayModule } from '@switchboard/gateway';
import { embeddedServiceModules } from '../src/embedded-server';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

const OUR_NUMBER = '+4930111111';
const CUSTOMER = '491700000001';

/**
 * The whole path with every module of the embedded platform: a customer's SMS reply sent by the local SMSC (a real
 * SMPP 3.4 peer) becomes a conversation on the agent's open websocket; the agent's answer goes through streams (the one
 * charging path) and dispatch back to the SMSC as a submit_sm.
 */
describe('an SMS reply from the SMSC reaches the agent live, and the answer reaches the SMSC', () => {
  let t: TestApp;
  let smsc: SmppPeer;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-inbox-smpp-'));
  let account = '';
  let teamId = 0;
  const admin = () => t.token({ sub: '1', acc: account, perms: [...ALL_PERMISSIONS], sa: true });
  const agent = () => t.token({ sub: '77', acc: account, perms: ALL_PERMISSIONS.filter((p) => p.startsWith('INBOX_') && p !== 'INBOX_ADMIN' && p !== 'INBOX_TEAM_VIEW') });
  const call = async (method: string, p: string, body?: unknown, token = admin()): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const until = async <T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, what: string, tries = 600): Promise<T> => {
    for (let i = 0; i < tries; i++) {
      if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
      const v = await probe();
      if (v) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not reached: ${what}`);
  };

  beforeAll(async () => {
    smsc = new SmppPeer({ systemId: 'acme', password: 'secret', receiptDelayMs: 200 });
    const port = await smsc.listen();
    t = await createTestApp(({ keys }) => ({
      imports: [...embeddedServiceModules({ privateKey: keys.privateKey, dataDir, appUrl: 'http://127.0.0.1:3000' }), GatewayModule.register({ mode: 'embedded' })],
      bus: new InMemoryEventBus({ ack: 'handled', partitions: 16 }),
    }));
    account = String((await t.app.get(AccountsBootstrapService).seed({ demoAccountName: 'Demo account' })).demoAccountId);
    const vendor = await call('POST', '/service_type_manager/vendor', { name: 'Acme SMSC', service_type: 'sms', adapter: 'smpp', carrier: 'Acme', currency: 'EUR', config: { host: '127.0.0.1', port, systemId: 'acme', password: 'secret', sourceTon: 1, sourceNpi: 1 } });
    expect(vendor.status).toBe(201);
    expect((await call('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    await call('POST', '/service_type_manager/refresh', {});
    const sender = await call('POST', '/senders', { name: 'Our number', value: OUR_NUMBER, type: 'inbound-outbound' });
    expect(sender.status).toBe(201);
    await call('PUT', `/senders/superadmin/${sender.body.id as number}`, { approved: 1 });
    const stream = await call('POST', '/streams', { name: 'Two-way', streamType: 4, sender: OUR_NUMBER });
    expect(stream.status).toBe(201);
    // the agent, as auth announces members
    await t.bus.publish([
      createEnvelope(
        MemberChangedV1,
        { accountId: account, userId: '77', email: 'agent@example.com', firstName: 'Ann', lastName: 'Lee', status: 1, platformRole: null, inboxRole: { id: '5', name: 'Inbox Agent' }, permissions: ['INBOX_VIEW'], removed: false },
        { source: 'auth', accountId: account },
      ),
    ]);
    const space = await call('POST', '/spaces', { name: 'Support' });
    const team = await call('POST', '/teams', { name: 'Front', space: space.body.id, agents: [77] }).then(async (r) => (r.status === 201 ? r : until(async () => { const again = await call('POST', '/teams', { name: 'Front', space: space.body.id, agents: [77] }); return again.status === 201 && again; }, 'the agent known to the inbox')));
    const uid = await until(async () => (await call('GET', `/streams/${stream.body.id as number}`)).body.streamUid as string, 'the stream');
    await until(async () => (await call('POST', '/incoming_routings', { name: 'Two-way', stream: uid, team: team.body.id, space: space.body.id })).status === 201, 'the stream known to the inbox');
    teamId = team.body.id as number;
    await until(() => smsc.binds > 0, 'the bind');
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await smsc?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers the reply to the open inbox and the answer to the SMSC', async () => {
    const room = `team:${teamId}`;
    const got: InboxWsServerMessage[] = [];
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/ws?access_token=${agent()}`);
    ws.on('message', (d) => got.push(JSON.parse(d.toString()) as InboxWsServerMessage));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'join', room }));
    await until(() => got.some((m) => m.type === 'joined'), 'joined');

    smsc.sendMo(CUSTOMER, OUR_NUMBER.slice(1), 'Hi, where is my order?');
    const incoming = (await until(() => got.find((m) => m.type === 'event' && m.event === 'incoming_message'), 'the incoming message on the websocket')) as Json;
    expect(incoming.payload.message.content.body).toBe('Hi, where is my order?');
    const uuid = incoming.payload.conversation.conversation_uuid as string;

    const reply = await call('POST', `/inbox/simple_send/${uuid}`, { messages: [{ text: 'It ships today.' }] }, agent());
    expect(reply.status).toBe(200);
    expect({ code: reply.body.code, error: reply.body.error }).toEqual({ code: 'OK', error: null });
    const part = await until(() => smsc.parts.find((p) => p.text === 'It ships today.'), 'the answer at the SMSC');
    expect(part.destination.replace(/^\+/, '')).toBe(CUSTOMER);
    expect(part.source.replace(/^\+/, '')).toBe(OUR_NUMBER.slice(1));
    // the SMSC's receipt comes back as a delivery status on the websocket
    await until(() => got.some((m) => m.type === 'event' && m.event === 'delivery_message' && (m.payload as Json).message?.send_status === 'delivered'), 'delivered on the websocket');
    ws.close();
  }, 60_000);
});
