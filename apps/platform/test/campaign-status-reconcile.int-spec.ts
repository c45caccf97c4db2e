import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Client, Pool } from 'pg';
import {
  ALL_PERMISSIONS,
  BalanceAdjustedV1,
  CampaignStatusesReconciledV1,
  CampaignStatusesRequestedV1,
  ContactListReadyV1,
  CustomerCreatedV1,
  flattenStatusBatches,
  MessageStatusChangedV1,
  PriceChangedV1,
  Topics,
  type EventData,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, metricsRegistry, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, recordPublished, type TestApp } from '@switchboard/platform/testing';
import { CampaignsModule, StatusReconciler } from '@switchboard/campaigns';
import { ContactsModule } from '@switchboard/contacts';
import { DispatchModule, SmppPeer } from '@switchboard/dispatch';
import { StreamsModule } from '@switchboard/streams';
import { streamsAndDispatchSettling } from './settle';

/**
 * Campaigns asking dispatch for the statuses it lost (docs/decisions/0093): contacts, streams, dispatch and campaigns
 * as the embedded server runs them, an SMSC on loopback that delivers some numbers and not others, and a bus that
 * loses (or holds back) the status events of chosen recipients on their way to campaigns, the way a broker's retention
 * or a reset of `campaigns.message-statuses` does. Streams and dispatch still get every status; campaigns does not.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

const A = '7201';
const B = '7202';
const FINAL = ['delivered', 'undelivered', 'sent_failed', 'dlr_failed'];
let numbers = 0;
const phone = (): string => `+1415555${String(3000 + numbers++).padStart(4, '0')}`;

describe('campaigns asking dispatch for the statuses it lost', () => {
  /**
   * The loss is on campaigns' side only: the status events of chosen destinations (and, while muted, dispatch's answers
   * to an account) reach every group but campaigns' status group, the way a reset of that group skips them.
   */
  class LossyBus extends InMemoryEventBus {
    override async subscribe(o: Parameters<InMemoryEventBus['subscribe']>[0]): Promise<void> {
      if (o.group !== 'campaigns.message-statuses') return super.subscribe(o);
      const kept = (e: EventEnvelope): boolean => {
        const d = e.data as Json;
        if (e.type === CampaignStatusesReconciledV1.type && e.source === 'dispatch' && muteAnswers.has(d.accountId as string)) return false;
        const l = e.type === MessageStatusChangedV1.type ? lose.get(`+${bare(String(d.destination))}`) : undefined;
        if (l && (!l.only || l.only === d.status)) {
          if (l.hold) held.push(e);
          return false;
        }
        return true;
      };
      const handler = o.handler;
      const batchHandler = o.batchHandler;
      // the group takes delivered chunks in one call (docs/decisions/0160): the loss applies to both ways in
      return super.subscribe({
        ...o,
        // a batch of status changes (the default since docs/decisions/0173) is lost item by item: its items go on as
        // the per-message events they stand for, which the group takes as well
        handler: async (e, ctx) => {
          for (const one of flattenStatusBatches([e]).filter(kept)) await handler(one, ctx);
        },
        batchHandler: batchHandler && (async (events, ctx) => batchHandler(flattenStatusBatches(events).filter(kept), ctx)),
      });
    }
  }

  let peer: SmppPeer;
  let t: TestApp;
  let pool: Pool;
  let reconciler: StatusReconciler;
  /** Destinations whose status events never reach campaigns (`hold`: kept, to be delivered late by the test). */
  const lose = new Map<string, { hold: boolean; only?: string }>();
  const held: EventEnvelope[] = [];
  /** Accounts whose status answers from dispatch never reach campaigns (while a test acts on its own). */
  const muteAnswers = new Set<string>();
  /** Numbers (without +) the SMSC reports UNDELIV for. */
  const undeliveredFor = new Set<string>();
  const bare = (p: string) => p.replace(/^\+/, '');
  /** Every event that went over the bus, in order. */
  let passed: EventEnvelope[] = [];
  const tokens = new Map<string, string>();
  const streamOf = new Map<string, { stream: number; sender: number }>();

  const { settle, until } = streamsAndDispatchSettling(() => t, { pollMs: 50, timeoutMs: 60_000 });
  const publish = async <T>(def: EventDefinition<T>, data: T, accountId: string | null = null) => {
    await t.bus.publish([createEnvelope(def, data, { accountId, source: 'test' })]);
    await settle();
  };
  const call = async (method: string, p: string, acc: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${tokens.get(acc) as string}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const metric = async (outcome: string) => ((await metricsRegistry.getSingleMetric('switchboard_campaigns_status_reconcile_recipients_total')?.get())?.values ?? []).find((v) => v.labels.outcome === outcome)?.value ?? 0;

  async function account(acc: string): Promise<void> {
    tokens.set(acc, t.token({ sub: `u${acc}`, acc, perms: [...ALL_PERMISSIONS], sa: true }));
    await publish(
      CustomerCreatedV1,
      { accountId: acc, name: `Account ${acc}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 100, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: '2026-01-01T00:00:00.000Z' },
      acc,
    );
    await publish(BalanceAdjustedV1, { accountId: acc, adjustmentId: randomUUID(), amountMicros: 100_000_000, currency: 'EUR', reason: 'top-up' }, acc);
    const sender = await call('POST', '/senders', acc, { name: 'Shop', value: `SHOP${acc}`, type: 'outbound-only' });
    expect(sender.status).toBe(201);
    expect((await call('PUT', `/senders/superadmin/${sender.body.id as number}`, acc, { approved: 1 })).status).toBe(200);
    const stream = await call('POST', '/streams', acc, { name: 'Campaigns', streamType: 1, sender: `SHOP${acc}` });
    expect(stream.status).toBe(201);
    streamOf.set(acc, { stream: stream.body.id as number, sender: sender.body.id as number });
  }

  /** A list of `phones` in contacts, announced to campaigns. */
  async function list(acc: string, phones: string[]): Promise<string> {
    const [{ id }] = (await pool.query<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES ($1, $2, 'list', 2, $3) RETURNING id::text`, [acc, `list ${randomUUID()}`, phones.length])).rows;
    for (const [k, p] of phones.entries()) {
      await pool.query(`INSERT INTO contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids) VALUES ($1, $2, $2, 'US', 'America/Los_Angeles', $3, $4)`, [acc, p, `Name${k}`, [id]]);
    }
    await publish(ContactListReadyV1, { accountId: acc, contactListId: id, name: 'list', type: 'list', numOfContacts: phones.length, importListId: null, readyAt: new Date().toISOString() }, acc);
    return id;
  }

  /** A campaign of two variants (50/50) to `phones`, started; returns its id. */
  async function campaign(acc: string, phones: string[]): Promise<number> {
    const listId = await list(acc, phones);
    const { stream, sender } = streamOf.get(acc) as { stream: number; sender: number };
    const body = {
      name: `statuses ${randomUUID()}`,
      stream,
      contactLists: [Number(listId)],
      campaignVariants: [
        { name: 'A', text: 'Hi {{firstName}}, sale today', ratio: 50 },
        { name: 'B', text: 'Hello {{firstName}}, sale today', ratio: 50 },
      ],
      campaignsSenders: [{ sender }],
      activityTime: { working_hours: { start: '00:00', end: '23:59' }, working_days: [1, 2, 3, 4, 5, 6, 7], timezone_mode: 'recipient' },
    };
    const id = await until(async () => {
      const r = await call('POST', '/campaigns', acc, body);
      return r.status === 201 && (r.body.id as number);
    }, 'the campaign created (read models in)');
    expect((await call('POST', `/campaigns/${id}/start`, acc)).status).toBeLessThan(300);
    return id;
  }

  const recipients = async (id: number) =>
    (await pool.query<{ phone: string; status: string | null; variant: string; uuid: string }>(`SELECT phone, status, variant_id::text AS variant, message_uuid::text AS uuid FROM campaigns.recipient WHERE campaign_id = $1 ORDER BY ordinal`, [id])).rows;
  const campaignRow = async (id: number) => (await pool.query<Json>(`SELECT status, sent::int, delivered::int, undelivered::int, sent_failed::int, dlr_failed::int FROM campaigns.campaign WHERE id = $1`, [id])).rows[0];
  const variantRows = async (id: number) =>
    (await pool.query<Json>(`SELECT id::text, sent::int, delivered::int, undelivered::int, sent_failed::int, dlr_failed::int FROM campaigns.campaign_variant WHERE campaign_id = $1 ORDER BY id`, [id])).rows;
  const dispatchFinal = async (id: number) => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM dispatch.message WHERE campaign_id = $1 AND final_at IS NOT NULL`, [id])).rows[0].n);
  /** What the campaign's counters must say: the recipients' statuses counted once each, per variant too. */
  const expectCountedOnce = async (id: number, phones: string[], undelivered: Set<string>) => {
    const rows = await recipients(id);
    expect(rows).toHaveLength(phones.length);
    for (const r of rows) expect(r.status).toBe(undelivered.has(r.phone) ? 'undelivered' : 'delivered');
    const c = await campaignRow(id);
    expect(c).toMatchObject({ status: 7, sent: phones.length, delivered: phones.length - undelivered.size, undelivered: undelivered.size, sent_failed: 0, dlr_failed: 0 });
    for (const v of await variantRows(id)) {
      const mine = rows.filter((r) => r.variant === v.id);
      expect(mine.length).toBeGreaterThan(0);
      expect(v).toMatchObject({ sent: mine.length, delivered: mine.filter((r) => r.status === 'delivered').length, undelivered: mine.filter((r) => r.status === 'undelivered').length, sent_failed: 0, dlr_failed: 0 });
    }
  };

  let storageDir = '';
  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    peer = new SmppPeer({ undeliveredFor });
    const port = await peer.listen();
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-campaign-statuses-'));
    t = await createTestApp(() => ({
      imports: [
        ContactsModule.register({ storageDir, pollIntervalMs: 50, workers: 1 }),
        StreamsModule.register({ secret: 'integration-secret-of-streams', cacheTtlMs: 0 }),
        DispatchModule.register({
          realtimeIntervalMs: 20,
          dispatcher: { idleMs: 20, heartbeatMs: 200, staleAfterMs: 1000, unknownResendAfterMs: 50, retryBaseMs: 20 },
          seedVendors: [{ name: 'Local SMSC', serviceType: 'sms', adapter: 'smpp', config: { host: '127.0.0.1', port, systemId: 'dispatch', password: 'secret', reconnectMs: 50 } }],
        }),
        // a recipient without a final status 1 s after its request is asked about, every 200 ms
        CampaignsModule.register({ schedulerIntervalMs: 0, runner: { intervalMs: 50, statuses: { afterMs: 1000, intervalMs: 200, batch: 3, requestsPerSweep: 2 } } }),
      ],
      bus: new LossyBus(),
    }));
    reconciler = t.app.get(StatusReconciler);
    passed = recordPublished(t.bus);
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    pool.on('error', () => undefined); // an idle client ended by the outage test; the pool replaces it
    await publish(PriceChangedV1, { accountId: null, iso2: 'US', pricePerSegmentMicros: 50_000, currency: 'EUR' });
    await account(A);
    await account(B);
    const vendor = (await pool.query<{ id: string }>(`SELECT id::text FROM dispatch.vendor WHERE name = 'Local SMSC'`)).rows[0].id;
    expect((await call('PUT', '/service_type_manager/countries_mapping', A, { iso2: 'US', serviceType: 'sms', vendorIds: [vendor] })).status).toBe(200);
    await until(() => peer.binds > 0, 'the SMSC bound');
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    if (storageDir) fs.rmSync(storageDir, { recursive: true, force: true });
    await peer?.close();
    jest.restoreAllMocks();
  });

  it('finishes a campaign whose status events campaigns lost, every recipient final once, counted right per variant, a late event counting nothing', async () => {
    const phones = Array.from({ length: 8 }, phone);
    const undelivered = new Set([phones[1], phones[6]]);
    for (const p of undelivered) undeliveredFor.add(bare(p));
    // every status lost for three numbers (one undelivered), only the final one for two, held back for one (late)
    lose.set(phones[0], { hold: false });
    lose.set(phones[1], { hold: false });
    lose.set(phones[2], { hold: false, only: 'delivered' });
    lose.set(phones[3], { hold: false });
    lose.set(phones[4], { hold: true });
    lose.set(phones[5], { hold: false, only: 'delivered' });
    const recoveredBefore = await metric('recovered');
    const id = await campaign(A, phones);

    await until(async () => (await dispatchFinal(id)) === phones.length, 'dispatch has every status');
    await until(async () => (await campaignRow(id)).status === 7 && (await recipients(id)).every((r) => r.status && FINAL.includes(r.status)), 'the campaign finished, every recipient final');
    await expectCountedOnce(id, phones, undelivered);
    expect(await metric('recovered')).toBeGreaterThanOrEqual(recoveredBefore + 6);
    expect(peer.parts.filter((p) => phones.includes(`+${bare(p.destination)}`))).toHaveLength(phones.length);

    // the held events arrive late, and an answer is delivered again: nothing counts twice
    const late = held.splice(0);
    expect(late.length).toBeGreaterThan(0);
    for (const p of phones) lose.delete(p);
    await t.bus.publish(late.map((e) => ({ ...e, topic: Topics.Dispatch })));
    const answer = passed.find((e) => e.type === CampaignStatusesReconciledV1.type && (e.data as EventData<typeof CampaignStatusesReconciledV1>).campaignId === String(id));
    expect(answer).toBeDefined();
    await t.bus.publish([answer as OutgoingEvent]);
    await settle();
    await expectCountedOnce(id, phones, undelivered);
  }, 120_000);

  it("never moves another account's recipients for an answer or a request that names them", async () => {
    const theirs = phone();
    lose.set(theirs, { hold: false });
    muteAnswers.add(B); // B's own questions wait, so that only the answers below could move B's recipient
    const bCampaign = await campaign(B, [theirs, phone()]);
    await until(async () => (await dispatchFinal(bCampaign)) === 2, "dispatch has B's statuses");
    const bRows = await recipients(bCampaign);
    const bRecipient = bRows.find((r) => bare(r.phone) === bare(theirs));
    if (!bRecipient) throw new Error(`no recipient ${theirs} in ${JSON.stringify(bRows)}`);
    // B's recipient has its status only in dispatch; A's request for it is answered unknown, nothing of B's in it
    await publish(CampaignStatusesRequestedV1, { requestId: randomUUID(), accountId: A, campaignId: String(bCampaign), messageUuids: [bRecipient.uuid] }, A);
    // dispatch answers through its outbox: wait for the answer to be relayed (settle may run before dispatch wrote it)
    const toA = await until(() => {
      const answers = passed.filter((e) => e.type === CampaignStatusesReconciledV1.type && e.accountId === A && JSON.stringify(e.data).includes(bRecipient.uuid));
      return answers.length > 0 && answers;
    }, "dispatch's answer to A's request");
    expect(toA.map((e) => e.data)).toEqual([expect.objectContaining({ accountId: A, statuses: [], unknown: [bRecipient.uuid] })]);
    // answers naming B's campaign and recipient as delivered: under account A, and under B's data with A's envelope
    await publish(CampaignStatusesReconciledV1, { requestId: randomUUID(), accountId: A, campaignId: String(bCampaign), statuses: [{ messageUuid: bRecipient.uuid, status: 'delivered' }], unknown: [] }, A);
    await publish(CampaignStatusesReconciledV1, { requestId: randomUUID(), accountId: B, campaignId: String(bCampaign), statuses: [{ messageUuid: bRecipient.uuid, status: 'delivered' }], unknown: [] }, A);
    await settle();
    expect((await recipients(bCampaign)).find((r) => r.uuid === bRecipient.uuid)?.status).toBeNull();
    expect(await campaignRow(bCampaign)).toMatchObject({ delivered: 1 });
    lose.delete(theirs);
    muteAnswers.delete(B);
    // B's own question finds it
    await until(async () => (await campaignRow(bCampaign)).status === 7 && (await campaignRow(bCampaign)).delivered === 2, "B's campaign finished");
    expect((await recipients(bCampaign)).map((r) => r.status)).toEqual(['delivered', 'delivered']);
  }, 120_000);

  it('pauses while the database is down and resumes when it is back, the lost status counted once', async () => {
    const phones = [phone(), phone()];
    lose.set(phones[0], { hold: false });
    muteAnswers.add(A); // asked and not answered until the outage is over
    const askedBefore = reconciler.stats.asked;
    const id = await campaign(A, phones);
    await until(async () => (await dispatchFinal(id)) === 2 && (await recipients(id)).find((r) => r.phone === phones[1])?.status === 'delivered', 'the other recipient final');
    await until(() => reconciler.stats.asked > askedBefore, 'asked about the lost status');
    expect((await recipients(id)).find((r) => r.phone === phones[0])?.status).not.toBe('delivered');

    const admin = new Client({ connectionString: t.db.url.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    const failedBefore = reconciler.stats.failedSweeps;
    try {
      await admin.query(`ALTER DATABASE "${t.db.name}" ALLOW_CONNECTIONS false`);
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [t.db.name]);
      await until(() => reconciler.stats.failedSweeps >= failedBefore + 3, 'sweeps failing during the outage');
    } finally {
      await admin.query(`ALTER DATABASE "${t.db.name}" ALLOW_CONNECTIONS true`);
      await admin.end();
      muteAnswers.delete(A);
    }
    await until(async () => (await campaignRow(id).catch(() => undefined))?.status === 7, 'finished after the outage', 90_000);
    await expectCountedOnce(id, phones, new Set());
  }, 180_000);
});
