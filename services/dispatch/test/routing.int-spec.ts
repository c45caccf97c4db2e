import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

describe('routing by country to vendors, with history', () => {
  let a: SmppPeer;
  let b: SmppPeer;
  let d: DispatchTestApp;
  let va: string;
  let vb: string;

  beforeAll(async () => {
    a = new SmppPeer();
    b = new SmppPeer();
    const [pa, pb] = [await a.listen(), await b.listen()];
    d = await startDispatch({ seedVendors: [{ ...smppVendor(pa), name: 'Vendor A' }, { ...smppVendor(pb), name: 'Vendor B', routingProvider: 2 }] });
    const vendors = await d.sql<{ id: string; name: string }>(`SELECT id::text, name FROM dispatch.vendor ORDER BY id`);
    va = vendors.find((v) => v.name === 'Vendor A')!.id;
    vb = vendors.find((v) => v.name === 'Vendor B')!.id;
    await d.until(() => a.binds > 0 && b.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await a.close();
    await b.close();
  });

  const admin = () => d.adminToken();

  it('lists vendors in the spec shape, secrets masked', async () => {
    const res = await d.call<{ items: Array<Record<string, unknown>>; total: number }>('GET', '/service_type_manager/vendors', { token: admin() });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.items[0]).toMatchObject({ service_type: 'sms', carrier: '', product_name: 'Vendor A', active: true, product_id: '', currency: 'EUR', adapter: 'smpp' });
    expect((res.body.items[0].config as Record<string, unknown>).password).toBe('********');
  });

  it('routes by channel order when no country route exists, then by the global route, then by the account route', async () => {
    const m1 = await d.accept({ destination: '+447700900001', iso2: 'GB' });
    expect((await d.untilStatus(m1, 'delivered')).vendor_id).toBe(va);

    expect((await d.call('PUT', '/service_type_manager/countries_mapping', { token: admin(), body: { iso2: 'gb', serviceType: 'sms', vendorIds: [vb] } })).status).toBe(200);
    const m2 = await d.accept({ destination: '+447700900002', iso2: 'GB' });
    expect((await d.untilStatus(m2, 'delivered')).vendor_id).toBe(vb);

    expect((await d.call('PUT', '/service_type_manager/customer_countries_mapping', { token: admin(), body: { customerId: '1', iso2: 'GB', serviceType: 'sms', vendorIds: [va] } })).status).toBe(200);
    const m3 = await d.accept({ destination: '+447700900003', iso2: 'GB' });
    expect((await d.untilStatus(m3, 'delivered')).vendor_id).toBe(va);
    const other = await d.accept({ accountId: '2', destination: '+447700900004', iso2: 'GB' });
    expect((await d.untilStatus(other, 'delivered')).vendor_id).toBe(vb);

    const current = await d.call<Record<string, unknown>>('GET', '/service_type_manager/current_routing?customerId=1&iso2=GB&serviceType=sms', { token: admin() });
    expect(current.body).toMatchObject({ iso2: 'GB', source: 'account', vendors: [expect.objectContaining({ id: Number(va) })] });
  });

  it('derives the country from the number when the message has none, and fails over to the next ready vendor', async () => {
    await d.call('PUT', '/service_type_manager/countries_mapping', { token: admin(), body: { iso2: 'IT', serviceType: 'sms', vendorIds: [vb, va] } });
    const m = await d.accept({ destination: '+393331234567', iso2: null });
    expect((await d.untilStatus(m, 'delivered')).vendor_id).toBe(vb);
    b.dropConnections();
    await b.close();
    const m2 = await d.accept({ destination: '+393331234568', iso2: null });
    expect((await d.untilStatus(m2, 'delivered')).vendor_id).toBe(va);
  });

  it('records every change in the routing history, newest first', async () => {
    const res = await d.call<{ items: Array<Record<string, unknown>>; total: number }>('GET', '/service_type_manager/routing_history?iso2=GB', { token: admin() });
    expect(res.body.total).toBe(2);
    expect(res.body.items[0]).toMatchObject({ accountId: '1', iso2: 'GB', previousVendorIds: null, vendorIds: [va] });
    expect(res.body.items[1]).toMatchObject({ accountId: null, iso2: 'GB', vendorIds: [vb], changedBy: expect.any(String) });
  });

  it('refuses a route through a vendor of another service type or a malformed one, changing nothing', async () => {
    const res = await d.call<{ code: string; violations: unknown[] }>('PUT', '/service_type_manager/countries_mapping', { token: admin(), body: { iso2: 'ES', serviceType: 'whatsapp', vendorIds: [va] } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('0x1');
    const bad = await d.call<{ violations: Array<{ propertyPath: string }> }>('PUT', '/service_type_manager/countries_mapping', { token: admin(), body: { iso2: 'ESP', serviceType: 'sms', vendorIds: ['x'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.violations.map((v) => v.propertyPath).sort()).toEqual(['iso2', 'vendorIds']);
    expect(await d.sql(`SELECT 1 FROM dispatch.country_route WHERE iso2 = 'ES'`)).toEqual([]);
  });

  it('creates a vendor with its channel, and syncs channels for vendors without one', async () => {
    const created = await d.call<Record<string, unknown>>('POST', '/service_type_manager/vendor', {
      token: admin(),
      body: { name: 'Vendor C', service_type: 'sms', adapter: 'simulator', config: { delayMs: 10 }, routingProvider: 3 },
    });
    expect(created.status).toBe(201);
    const channels = await d.call<{ items: Array<{ name: string; routingProvider: number }> }>('GET', '/channels', { token: d.memberToken('1') });
    expect(channels.body.items.find((c) => c.name === 'Vendor C')?.routingProvider).toBe(3);
    await d.sql(`DELETE FROM dispatch.channel WHERE name = 'Vendor C'`);
    const sync = await d.call<{ created: number }>('POST', '/channels/superadmin/sync', { token: admin() });
    expect(sync.body.created).toBe(1);
  });
});
