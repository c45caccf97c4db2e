import { MessageReceivedV1, Permission } from '@switchboard/contracts';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

/** Every route of the dispatch module with its access rule. */
const SUPER_ADMIN_ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/service_type_manager/countries_mapping'],
  ['PUT', '/service_type_manager/countries_mapping', { iso2: 'PL', serviceType: 'sms', vendorIds: [] }],
  ['GET', '/service_type_manager/customer_countries_mapping?customerId=1'],
  ['PUT', '/service_type_manager/customer_countries_mapping', { customerId: '1', iso2: 'PL', serviceType: 'sms', vendorIds: [] }],
  ['POST', '/service_type_manager/refresh'],
  ['GET', '/service_type_manager/vendors'],
  ['GET', '/service_type_manager/current_routing?iso2=PL'],
  ['GET', '/service_type_manager/routing_history'],
  ['POST', '/service_type_manager/vendor', { name: 'Sim X', service_type: 'sms', adapter: 'simulator' }],
  ['GET', '/service_type_manager/vendor/1'],
  ['PUT', '/service_type_manager/vendor/1', { carrier: 'Carrier' }],
  ['PUT', '/channels/1', { routingProvider: 1 }],
  ['POST', '/channels/superadmin/sync'],
  ['GET', '/dispatch/inbound_unclaimed'],
];

describe('access: tenants, permissions, super admin', () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;

  beforeAll(async () => {
    peer = new SmppPeer();
    const port = await peer.listen();
    d = await startDispatch({ seedVendors: [smppVendor(port)] });
    await d.until(() => peer.binds > 0);
    await d.configureStream({ streamId: '11', accountId: '1', channel: 'sms', streamType: 4, sender: '4930111111' });
    await d.configureStream({ streamId: '22', accountId: '2', channel: 'sms', streamType: 4, sender: '4930222222' });
    peer.sendMo('491700000001', '4930111111', 'Hi from a customer of A');
    peer.sendMo('491700000002', '4930222222', 'Hi from a customer of B');
    peer.sendMo('491700000001', '4930111111', 'and a long reply that needs two parts '.repeat(5));
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.inbound_message`)).length === 3);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  const view = [Permission.MessageIncomingView];

  it('stores two-way SMS (long ones reassembled) for the stream that owns the number, and announces them', async () => {
    const a = await d.call<{ items: Array<Record<string, unknown>>; total: number }>('GET', '/message_responses', { token: d.memberToken('1', view) });
    expect(a.status).toBe(200);
    expect(a.body.total).toBe(2);
    expect(a.body.items.map((i) => i.message).sort()).toEqual(['Hi from a customer of A', 'and a long reply that needs two parts '.repeat(5)]);
    for (const item of a.body.items) expect(item).toMatchObject({ streamUid: 'stream-11', channel: 'sms', source: '+491700000001', destination: '4930111111' });
    await d.flushOutbox();
    const received = d.events(MessageReceivedV1.type).map((e) => MessageReceivedV1.schema.parse(e.data));
    expect(received).toHaveLength(3);
    expect(received.find((r) => r.accountId === '2')).toMatchObject({ streamId: '22', streamType: 4, accountPhone: '4930222222', contactPhone: '+491700000002', messageType: 'text', body: 'Hi from a customer of B' });
  });

  it("never shows one account's inbound messages or chats to another", async () => {
    const b = await d.call<{ items: Array<Record<string, unknown>>; total: number }>('GET', '/message_responses', { token: d.memberToken('2', view) });
    expect(b.body.items.map((i) => i.message)).toEqual(['Hi from a customer of B']);
    const chatOfA = await d.call<{ items: unknown[] }>('GET', '/message_responses/chat?destination=%2B491700000001&source=4930111111', { token: d.memberToken('2', view) });
    expect(chatOfA.status).toBe(200);
    expect(chatOfA.body.items).toEqual([]);
    const own = await d.call<{ items: Array<{ direction: string }> }>('GET', '/message_responses/chat?destination=%2B491700000001', { token: d.memberToken('1', view) });
    expect(own.body.items.map((i) => i.direction)).toEqual(['in', 'in']);
  });

  it('refuses the inbound routes without MESSAGE_INCOMING_VIEW, and without a token', async () => {
    for (const path of ['/message_responses', '/message_responses/chat?destination=1']) {
      expect((await d.call('GET', path, { token: d.memberToken('1', [Permission.MessageView]) })).status).toBe(403);
      expect((await d.call('GET', path)).status).toBe(401);
      expect((await d.call('GET', path, { token: d.memberToken('1', view) })).status).toBe(200);
    }
  });

  it('answers 400 with violations for a bad list query', async () => {
    const res = await d.call<{ code: string; violations: Array<{ propertyPath: string }> }>('GET', '/message_responses?order[body]=asc', { token: d.memberToken('1', view) });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('0x1');
    expect(res.body.violations[0].propertyPath).toBe('order[body]');
  });

  it('keeps vendors, routes and channels to super admins', async () => {
    const before = await d.sql(`SELECT count(*)::int AS n FROM dispatch.routing_history`);
    for (const [method, path, body] of SUPER_ADMIN_ROUTES) {
      const res = await d.call(method, path, { token: d.memberToken('1', Object.values(Permission)), body });
      expect([method, path, res.status]).toEqual([method, path, 403]);
    }
    expect(await d.sql(`SELECT count(*)::int AS n FROM dispatch.routing_history`)).toEqual(before);
    expect(await d.sql(`SELECT 1 FROM dispatch.vendor WHERE name = 'Sim X'`)).toEqual([]);
    for (const [method, path, body] of SUPER_ADMIN_ROUTES) {
      const res = await d.call(method, path, { token: d.adminToken(), body });
      expect([method, path, res.status < 300]).toEqual([method, path, true]);
    }
  });

  it('lets any signed-in user list channels', async () => {
    expect((await d.call('GET', '/channels')).status).toBe(401);
    expect((await d.call('GET', '/channels', { token: d.memberToken('2') })).status).toBe(200);
  });
});
