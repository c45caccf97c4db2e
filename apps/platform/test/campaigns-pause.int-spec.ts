import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { ALL_PERMISSIONS, CampaignStatus, CampaignStatusChangedV1, ContactListReadyV1, Topics } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { SmppPeer } from '@switchboard/dispatch';
import { embeddedServiceModules } from '../src/embedded-server';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

/** Enough that streams is still accepting when the pause comes (at least 10 s at the TPS). */
const RECIPIENTS = 3000;
/** The campaigns of the tail tests: streams accepts all of them long before the carrier has taken them. */
const TAIL = 300;
const ABORTED = 200;
const TPS = 300;
/** The SMPP bind's window: what is already written when the pause is known (one bind, one replica) may still be answered. */
const WINDOW = 8;
/** Accepted messages waiting in dispatch before the first test pauses: about three seconds at the carrier's 150/s. */
const BACKLOG = 450;
/** The carrier's rate while the tail test pauses: what is left of the tail takes several seconds, longer than a pause takes to reach dispatch. */
const TAIL_RATE = 30;

/**
 * A pause at full speed, every module of the embedded platform (docs/decisions/0051): the campaign's messages that
 * streams already accepted wait in dispatch instead of going out, and play sends each of them exactly once.
 */
describe('a paused campaign stops sending promptly, and play sends the rest exactly once', () => {
  let t: TestApp;
  let smsc: SmppPeer;
  let pg: Client;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-campaign-pause-'));
  let account = '';
  const admin = () => t.token({ sub: '1', acc: account, perms: [...ALL_PERMISSIONS], sa: true });
  const call = async (method: string, p: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${admin()}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const until = async <T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, what: string, ms = 90_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await probe();
      if (v) return v;
      if (Date.now() > end) throw new Error(`not reached: ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  let streamId = 0;
  let senderId = 0;
  let listId = '';
  /** A list of `n` contacts in Germany, numbers from `first`, ready in contacts. */
  const listOf = async (name: string, n: number, first: number): Promise<string> => {
    const [{ id }] = (await pg.query<{ id: string }>(`INSERT INTO contacts.contact_list (account_id, name, type, status, num_of_contacts) VALUES ($1, $2, 'list', 2, $3) RETURNING id::text`, [account, name, n])).rows;
    let text = '';
    for (let i = 0; i < n; i++) {
      const phone = `+49151${String(first + i)}`;
      text += `${account}\t${phone}\t${phone}\tDE\tEurope/Berlin\tName${i}\t{${id}}\n`;
    }
    const s = pg.query(copyFrom('COPY contacts.contact (account_id, phone, normalized_phone, country, timezone, first_name, list_ids) FROM STDIN'));
    await new Promise<void>((resolve, reject) => {
      s.on('finish', () => resolve());
      s.on('error', reject);
      s.end(text);
    });
    await t.bus.publish([createEnvelope(ContactListReadyV1, { accountId: account, contactListId: id, name, type: 'list', numOfContacts: n, importListId: null, readyAt: new Date().toISOString() }, { accountId: account, source: 'contacts' })]);
    return id;
  };
  const campaignOn = async (list: string): Promise<number> => {
    const body = {
      name: 'Spring sale',
      stream: streamId,
      contactLists: [Number(list)],
      campaignVariants: [{ text: 'Hi {{firstName}}, {our|the} spring sale starts today!' }],
      campaignsSenders: [{ sender: senderId }],
      activityTime: { working_hours: { start: '00:00', end: '23:59' }, working_days: [1, 2, 3, 4, 5, 6, 7], timezone_mode: 'recipient' },
    };
    const id = await until(async () => {
      const r = await call('POST', '/campaigns', body);
      return r.status === 201 && (r.body.id as number);
    }, 'the campaign created (read models in)');
    expect((await call('POST', `/campaigns/${id}/start`)).status).toBe(200);
    return id;
  };
  /** Parts the SMSC took for numbers from `first` on (one list's). */
  const partsOf = (first: number, n: number) => smsc.parts.filter((p) => { const k = Number(p.destination.replace(/^\+?49151/, '')) - first; return k >= 0 && k < n; });
  /** Waits until nothing more reaches the SMSC for a second. */
  const quiet = async (what: string) => {
    let last = -1;
    await until(async () => {
      const now = smsc.parts.length;
      const still = now === last;
      last = now;
      if (!still) await new Promise((r) => setTimeout(r, 1000));
      return still;
    }, what);
  };
  /** SMSC parts of the list when each campaign's status changed, as the bus announced it (after its commit). */
  const partsAtStatus = new Map<string, number[]>();
  let watch: { campaignId: string; first: number; n: number } | null = null;

  beforeAll(async () => {
    // a carrier slower than the campaign's TPS: streams accepts faster than dispatch can send, so a backlog of accepted
    // (and charged) messages builds in dispatch, as at full speed against a real SMSC
    smsc = new SmppPeer({ systemId: 'acme', password: 'secret', receiptDelayMs: 50, throttleRate: 150 });
    const port = await smsc.listen();
    t = await createTestApp(({ keys }) => ({
      imports: embeddedServiceModules({ privateKey: keys.privateKey, dataDir, appUrl: 'http://127.0.0.1:3000' }),
      bus: new InMemoryEventBus({ ack: 'handled', partitions: 16 }),
    }));
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    account = String((await t.app.get(AccountsBootstrapService).seed({ demoAccountName: 'Demo account' })).demoAccountId);
    const vendor = await call('POST', '/service_type_manager/vendor', {
      name: 'Acme SMSC',
      service_type: 'sms',
      adapter: 'smpp',
      carrier: 'Acme',
      currency: 'EUR',
      config: { host: '127.0.0.1', port, systemId: 'acme', password: 'secret', window: WINDOW, connections: 1 },
    });
    expect(vendor.status).toBe(201);
    expect((await call('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    await call('POST', '/service_type_manager/refresh', {});
    const sender = await call('POST', '/senders', { name: 'Shop', value: 'SHOP', type: 'outbound-only' });
    senderId = sender.body.id as number;
    await call('PUT', `/senders/superadmin/${senderId}`, { approved: 1 });
    streamId = (await call('POST', '/streams', { name: 'Campaigns', streamType: 1, sender: 'SHOP' })).body.id as number;
    expect((await call('PUT', `/customers/${account}`, { tps: TPS, customSettings: { streams_max_messages_per_day: 10 * RECIPIENTS } })).status).toBe(200);
    expect((await call('POST', `/customers/${account}/balance`, { amount: '100000', reason: 'test' })).status).toBeLessThan(300);

    listId = await listOf('Spring', RECIPIENTS, 20_000_000);
    await t.bus.subscribe({
      group: 'test.campaign-statuses',
      topics: [Topics.Campaigns],
      types: [CampaignStatusChangedV1.type],
      handler: (e) => {
        const d = CampaignStatusChangedV1.schema.parse(e.data);
        if (watch && d.campaignId === watch.campaignId) partsAtStatus.set(`${d.campaignId}:${d.to}`, [...(partsAtStatus.get(`${d.campaignId}:${d.to}`) ?? []), partsOf(watch.first, watch.n).length]);
        return Promise.resolve();
      },
    });
    await until(() => smsc.binds > 0, 'the bind');
  }, 300_000);

  afterAll(async () => {
    await pg?.end();
    await t?.close();
    await smsc?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`sends at most one window (${WINDOW}) once dispatch knows the pause and one second of traffic after its answer, then each recipient once after play; another account's pause holds nothing`, async () => {
    const id = await campaignOn(listId);

    // at full speed: streams has accepted far more than has reached the SMSC
    // a backlog of several seconds at the carrier's rate, so that a pause slowed by a loaded machine still finds some
    await until(async () => smsc.parts.length >= 150 && (await call('GET', `/campaigns/${id}`)).body.stats.created >= smsc.parts.length + BACKLOG, 'the campaign at speed, with messages queued in dispatch');
    // a pause naming the campaign under another account holds nothing of it
    await t.bus.publish([
      createEnvelope(
        CampaignStatusChangedV1,
        { campaignId: String(id), accountId: '999999', from: 6, to: 3, action: 'pause', reason: null, haltReasonId: null, changedAt: new Date().toISOString() },
        { accountId: '999999', source: 'campaigns' },
      ),
    ]);
    const [{ n: heldByOther }] = (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM dispatch.message WHERE campaign_id = $1 AND send_state = 'held'`, [id])).rows;
    expect(heldByOther).toBe(0);
    const sentBefore = smsc.parts.length;
    await until(() => smsc.parts.length > sentBefore + 20, 'the campaign still sending');

    const pause = await call('POST', `/campaigns/${id}/pause`);
    // the answer's body names the status that refused it (409 campaignActionNotAllowed), should it ever be refused
    expect({ status: pause.status, body: pause.status === 200 ? null : pause.body }).toEqual({ status: 200, body: null });
    const atAnswer = smsc.parts.length;
    await until(async () => (await pg.query(`SELECT 1 FROM dispatch.campaign_hold WHERE campaign_id = $1 AND account_id = $2 AND held`, [id, account])).rowCount === 1, 'the hold in dispatch');
    const atHold = smsc.parts.length;
    // quiet: nothing more reaches the SMSC for a while (what the adapter held has gone out)
    await quiet('the SMSC quiet after the pause');
    const afterHold = smsc.parts.length - atHold;
    const afterAnswer = smsc.parts.length - atAnswer;
    const created = (await call('GET', `/campaigns/${id}`)).body.stats.created as number;
    expect({ afterHold: afterHold <= WINDOW, afterAnswer: afterAnswer <= WINDOW + TPS }).toEqual({ afterHold: true, afterAnswer: true });
    // streams had accepted (and charged) more than went out: those wait in dispatch, held
    const [{ held }] = (await pg.query<{ held: number }>(`SELECT count(*)::int AS held FROM dispatch.message WHERE campaign_id = $1 AND send_state = 'held'`, [id])).rows;
    expect(held).toBeGreaterThan(0);
    expect(smsc.parts.length).toBeLessThan(RECIPIENTS);
    expect(created).toBeGreaterThan(smsc.parts.length);

    expect((await call('POST', `/campaigns/${id}/play`)).status).toBe(200);
    // finished (it finishes once dispatch has sent its last message; the receipts may come after)
    const done = await until(async () => {
      const c = (await call('GET', `/campaigns/${id}`)).body;
      return c.stats.delivered >= RECIPIENTS && c.status === CampaignStatus.Finished && c;
    }, 'every recipient delivered after play, and the campaign finished');
    expect(done.status).toBe(7);
    const perNumber = new Map<string, number>();
    for (const p of smsc.parts) perNumber.set(p.destination, (perNumber.get(p.destination) ?? 0) + 1);
    expect(perNumber.size).toBe(RECIPIENTS);
    expect([...perNumber.values()].filter((n) => n !== 1)).toEqual([]);
    expect((await pg.query(`SELECT 1 FROM dispatch.message WHERE campaign_id = $1 AND send_state = 'held'`, [id])).rowCount).toBe(0);
  }, 300_000);
  it(`keeps a campaign whose ${TAIL} messages streams has all accepted sending while the carrier still takes them: pause holds that tail, play sends the rest once, and it finishes only after the last submission`, async () => {
    // a congested carrier: streams accepts the whole campaign long before the SMSC has taken it
    smsc.setThrottleRate(3, 1);
    const first = 30_000_000;
    const list = await listOf('Summer', TAIL, first);
    const id = await campaignOn(list);
    watch = { campaignId: String(id), first, n: TAIL };
    const accepted = await until(async () => {
      const c = (await call('GET', `/campaigns/${id}`)).body;
      return c.stats.created >= TAIL && c;
    }, 'streams accepted every recipient');
    const atAccepted = partsOf(first, TAIL).length;
    // not finished: most of it still waits in dispatch
    expect({ status: accepted.status, allSubmitted: atAccepted >= TAIL }).toEqual({ status: CampaignStatus.Sending, allSubmitted: false });

    smsc.setThrottleRate(TAIL_RATE);
    await until(() => partsOf(first, TAIL).length >= atAccepted + 20, 'the carrier taking the campaign again');
    const pause = await call('POST', `/campaigns/${id}/pause`);
    expect({ status: pause.status, body: pause.status === 200 ? null : pause.body }).toEqual({ status: 200, body: null });
    await until(async () => (await pg.query(`SELECT 1 FROM dispatch.campaign_hold WHERE campaign_id = $1 AND account_id = $2 AND held`, [id, account])).rowCount === 1, 'the hold in dispatch');
    await quiet('the SMSC quiet after the pause');
    const atPause = partsOf(first, TAIL).length;
    const [{ held }] = (await pg.query<{ held: number }>(`SELECT count(*)::int AS held FROM dispatch.message WHERE campaign_id = $1 AND send_state = 'held'`, [id])).rows;
    expect({ held: held > 0, rest: atPause < TAIL, status: (await call('GET', `/campaigns/${id}`)).body.status }).toEqual({ held: true, rest: true, status: CampaignStatus.Paused });

    smsc.setThrottleRate(100);
    expect((await call('POST', `/campaigns/${id}/play`)).status).toBe(200);
    const done = await until(async () => {
      const c = (await call('GET', `/campaigns/${id}`)).body;
      return c.status === CampaignStatus.Finished && c;
    }, 'the campaign finished after play');
    // when its finish was announced, the SMSC had every recipient's message: none finished before its last submission
    expect(partsAtStatus.get(`${id}:${CampaignStatus.Finished}`)).toEqual([TAIL]);
    const perNumber = new Map<string, number>();
    for (const p of partsOf(first, TAIL)) perNumber.set(p.destination, (perNumber.get(p.destination) ?? 0) + 1);
    expect({ numbers: perNumber.size, twice: [...perNumber.values()].filter((n) => n !== 1), created: done.stats.created }).toEqual({ numbers: TAIL, twice: [], created: TAIL });
    expect((await pg.query(`SELECT 1 FROM dispatch.message WHERE campaign_id = $1 AND send_state IN ('held', 'queued')`, [id])).rowCount).toBe(0);
  }, 300_000);

  it(`aborts a campaign whose ${ABORTED} messages still wait in dispatch: they never go out, each ends sent_failed and refunded, and the campaign counts them`, async () => {
    smsc.setThrottleRate(3, 1);
    const first = 40_000_000;
    const list = await listOf('Autumn', ABORTED, first);
    const id = await campaignOn(list);
    watch = { campaignId: String(id), first, n: ABORTED };
    await until(async () => (await call('GET', `/campaigns/${id}`)).body.stats.created >= ABORTED, 'streams accepted every recipient');
    const abort = await call('POST', `/campaigns/${id}/abort`);
    expect({ status: abort.status, body: abort.status === 200 ? null : abort.body }).toEqual({ status: 200, body: null });
    smsc.setThrottleRate(100);
    const done = await until(async () => {
      const c = (await call('GET', `/campaigns/${id}`)).body;
      return c.stats.sent + c.stats.sentFailed >= ABORTED && c;
    }, 'every message of the aborted campaign sent or dropped');
    await quiet('the SMSC quiet after the abort');
    const sent = partsOf(first, ABORTED).length;
    const { rows } = await pg.query<{ status: string; error: string | null; n: number }>(`SELECT status, error, count(*)::int AS n FROM dispatch.message WHERE campaign_id = $1 GROUP BY 1, 2 ORDER BY 1`, [id]);
    const dropped = rows.find((r) => r.error === 'campaign aborted')?.n ?? 0;
    expect({ status: done.status, dropped: dropped > 0, sentFailed: done.stats.sentFailed, reached: sent + dropped }).toEqual({ status: CampaignStatus.Aborted, dropped: true, sentFailed: dropped, reached: ABORTED });
    expect(rows.filter((r) => r.error === 'campaign aborted').map((r) => r.status)).toEqual(['sent_failed']);
    expect((await pg.query(`SELECT 1 FROM dispatch.message WHERE campaign_id = $1 AND send_state <> 'done' AND send_state <> 'submitted'`, [id])).rowCount).toBe(0);
    // each dropped message is refunded by accounts
    await until(async () => (await pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM accounts.balance_entry WHERE account_id = $1 AND kind = 'refund' AND reason = 'campaign_aborted'`, [account])).rows[0].n === dropped, 'a refund per dropped message');
  }, 300_000);
});
