import { embeddedDispatchOptions } from '../src';
import { startDispatch, type DispatchTestApp } from './support';

describe('the SMS simulator of embedded mode and demos', () => {
  let d: DispatchTestApp;

  beforeAll(async () => {
    // the embedded SMS simulator reports 1 in 20 undelivered at random: these tests take every message to delivered
    const seeds = embeddedDispatchOptions().seedVendors!.map((s) => ({ ...s, config: { ...s.config, deliveryRatio: 1, delayMs: 20, readAfterMs: s.config?.readAfterMs === undefined ? undefined : 20 } }));
    d = await startDispatch({ seedVendors: [...seeds, { name: 'Lossy simulator', serviceType: 'sms', adapter: 'simulator', config: { deliveryRatio: 0, delayMs: 10 }, routingProvider: 2 }] });
  });

  afterAll(() => d.close());

  it('seeds a simulator per channel, first in routing order', async () => {
    const vendors = await d.sql<{ name: string; adapter: string; routing_provider: number }>(
      `SELECT v.name, v.adapter, c.routing_provider FROM dispatch.vendor v JOIN dispatch.channel c ON c.vendor_id = v.id ORDER BY v.id`,
    );
    expect(vendors.slice(0, 4)).toEqual([
      { name: 'SMS simulator', adapter: 'simulator', routing_provider: 1 },
      { name: 'WhatsApp simulator', adapter: 'simulator', routing_provider: 1 },
      { name: 'Telegram simulator', adapter: 'simulator', routing_provider: 1 },
      { name: 'Telegram private simulator', adapter: 'simulator', routing_provider: 1 },
    ]);
  });

  it('takes a demo SMS to delivered, one id per part', async () => {
    const uuid = await d.accept({ text: 'x'.repeat(200), segments: 2 });
    const row = await d.untilStatus(uuid, 'delivered');
    expect((row.provider_ids as string[]).length).toBe(2);
  });

  it('reports WhatsApp messages delivered and then read', async () => {
    const uuid = await d.accept({ channel: 'whatsapp', streamType: 5, encoding: null });
    await d.untilStatus(uuid, 'delivered');
    await d.until(async () => (await d.sql(`SELECT 1 FROM dispatch.message WHERE uuid = $1 AND outgoing_status = 'read'`, [uuid])).length === 1);
  });

  it('reports undelivered by its delivery ratio', async () => {
    const [lossy] = await d.sql<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE name = 'Lossy simulator'`);
    await d.call('PUT', '/service_type_manager/countries_mapping', { token: d.adminToken(), body: { iso2: 'NL', serviceType: 'sms', vendorIds: [lossy.id] } });
    const uuid = await d.accept({ destination: '+31612345678', iso2: 'NL' });
    expect((await d.untilStatus(uuid, 'undelivered')).error).toBe('UNDELIV err:001');
  });
});
