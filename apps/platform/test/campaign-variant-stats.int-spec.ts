import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { ALL_PERMISSIONS, BalanceAdjustedV1, ContactListReadyV1, CustomerCreatedV1, PriceChangedV1, type EventDefinition } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { CampaignsModule } from '@switchboard/campaigns';
import { ContactsModule } from '@switchboard/contacts';
import { DispatchModule, SmppPeer } from '@switchboard/dispatch';
import { StatsModule } from '@switchboard/stats';
import { StreamsModule } from '@switchboard/streams';
import { streamsAndDispatchSettling } from './settle';

/**
 * A campaign's per-variant statistics end to end (docs/decisions/0205): campaigns asks streams to send each recipient's
 * text with its variant, streams passes the variant through onto the message's acceptance, and statistics counts the
 * message per variant from there (its send-batch request is no longer taken): the statistics report's figures per
 * variant equal what campaigns counted per variant, and no state was written for a request alone.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

const A = '7301';
let numbers = 0;
const phone = (): string => `+1415556${String(3000 + numbers++).padStart(4, '0')}`;

describe('a campaign counted per variant by statistics, the variant carried on the acceptance', () => {
  let peer: SmppPeer;
  let t: TestApp;
  let pool: Pool;
  let token = '';
  let storageDir = '';
  const { settle, until } = streamsAndDispatchSettling(() => t, { pollMs: 50, timeoutMs: 60_000 });
  const publish = async <T>(def: EventDefinition<T>, data: T, accountId: string | null = null) => {
    await t.bus.publish([createEnvelope(def, data, { accountId, source: 'test' })]);
    await settle();
  };
  const call = async (method: string, p: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    peer = new SmppPeer({ undeliveredFor: new Set() });
    const port = await peer.listen();
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-campaign-variants-'));
    t = await createTestApp(() => ({
      imports: [
        ContactsModule.register({ storageDir, pollIntervalMs: 50, workers: 1 }),
        StreamsModule.register({ secret: 'integration-secret-of-streams', cacheTtlMs: 0 }),
        DispatchModule.register({
          realtimeIntervalMs: 20,
          dispatcher: { idleMs: 20, heartbeatMs: 200, staleAfterMs: 30_000, retryBaseMs: 20 },
          seedVendors: [{ name: 'Local SMSC', serviceType: 'sms', adapter: 'smpp', config: { host: '127.0.0.1', port, systemId: 'dispatch', password: 'secret', reconnectMs: 50 } }],
        }),
        CampaignsModule.register({ schedulerIntervalMs: 0, runner: { intervalMs: 50 } }),
        StatsModule.register({ cacheMs: 0 }),
      ],
      bus: new InMemoryEventBus(),
    }));
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    token = t.token({ sub: `u${A}`, acc: A, perms: [...ALL_PERMISSIONS], sa: true });
    await publish(PriceChangedV1, { accountId: null, iso2: 'US', pricePerSegmentMicros: 50_000, currency: 'EUR' });
    await publish(
      CustomerCreatedV1,
      { accountId: A, name: `Account ${A}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 100, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: '2026-01-01T00:00:00.000Z' },
      A,
    );
    await publish(BalanceAdjustedV1, { accountId: A, adjustmentId: randomUUID(), amountMicros: 100_000_000, currency: 'EUR', reason: 'top-up' }, A);
    const vendor = (await pool.query<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE name = 'Local SMSC'`)).rows[0].id;
    expect((await call('PUT', '/service_type_manager/countries_mapping', { iso2: 'US', serviceType: 'sms', vendorIds: [vendor] })).status).toBe(200);
    await until(() => peer.binds > 0, 'the SMSC bound');
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    if (storageDir) fs.rmSync(storageDir, { recursive: true, force: true });
    await peer?.close();
    jest.restoreAllMocks();
  });

  it("reports each variant's messages as campaigns counted them", async () => {
    const sender = await call('POST', '/senders', { name: 'Shop', value: `SHOP${A}`, type: 'outbound-only' });
    expect(sender.status).toBe(201);
    expect((await call('PUT', `/senders/superadmin/${sender.body.id as number}`, { approved: 1 })).status).toBe(200);
    const stream = await call('POST', '/streams', { name: 'Campaigns', streamType: 1, sender: `SHOP${A}` });
    expect(stream.status).toBe(201);
    const phones = Array.from({ length: 12 }, phone);
    const [{ id: listId }] = (await pool.query<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES ($1, 'list', 'list', 2, $2) RETURNING id::text`, [A, phones.length])).rows;
    for (const [k, p] of phones.entries()) {
      await pool.query(`INSERT INTO contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids) VALUES ($1, $2, $2, 'US', 'America/Los_Angeles', $3, $4)`, [A, p, `Name${k}`, [listId]]);
    }
    await publish(ContactListReadyV1, { accountId: A, contactListId: listId, name: 'list', type: 'list', numOfContacts: phones.length, importListId: null, readyAt: new Date().toISOString() }, A);
    const body = {
      name: 'variants',
      stream: stream.body.id as number,
      contactLists: [Number(listId)],
      campaignVariants: [
        { name: 'A', text: 'Hi {{firstName}}, sale today', ratio: 50 },
        { name: 'B', text: 'Hello {{firstName}}, the sale is today', ratio: 50 },
      ],
      campaignsSenders: [{ sender: sender.body.id as number }],
      activityTime: { working_hours: { start: '00:00', end: '23:59' }, working_days: [1, 2, 3, 4, 5, 6, 7], timezone_mode: 'recipient' },
    };
    const id = await until(async () => {
      const r = await call('POST', '/campaigns', body);
      return r.status === 201 && (r.body.id as number);
    }, 'the campaign created (read models in)');
    expect((await call('POST', `/campaigns/${id}/start`)).status).toBeLessThan(300);
    const perVariant = async () =>
      (await pool.query<{ variant: string; n: number; delivered: number }>(`SELECT id::text AS variant, sent::int AS n, delivered::int FROM campaigns.campaign_variant WHERE campaign_id = $1 ORDER BY id`, [id])).rows;
    await until(async () => (await pool.query<{ status: number }>(`SELECT status FROM campaigns.campaign WHERE id = $1`, [id])).rows[0].status === 7 && (await perVariant()).every((v) => v.delivered === v.n), 'the campaign finished, every message delivered');
    const counted = await perVariant();
    expect(counted).toHaveLength(2);
    expect(counted.every((v) => v.n > 0)).toBe(true);
    expect(counted.reduce((a, v) => a + v.n, 0)).toBe(phones.length);
    const report = await until(async () => {
      const r = await call('GET', `/campaign_stats/per_variant?campaign=${id}`);
      const items = (r.body.items ?? []) as Array<{ variantId: number | null; total: number; delivered: number }>;
      return r.status === 200 && items.reduce((a, x) => a + x.delivered, 0) === phones.length && items;
    }, "statistics counted every message's delivery");
    expect(report.map((x) => ({ variant: String(x.variantId), n: x.total, delivered: x.delivered }))).toEqual(counted);
    // every state was written by its message's acceptance (none by a request alone), each with its variant
    expect((await pool.query(`SELECT count(*)::int AS n, count(variant_id)::int AS with_variant, count(accepted_at)::int AS accepted FROM stats.message_state WHERE account_id = $1`, [A])).rows).toEqual([
      { n: phones.length, with_variant: phones.length, accepted: phones.length },
    ]);
  }, 120_000);
});
