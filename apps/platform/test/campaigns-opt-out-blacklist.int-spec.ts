import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ALL_PERMISSIONS, BlacklistChangedV1, CustomerCreatedV1, LinkOptOutConfirmedV1, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { ContactsModule } from '@switchboard/contacts';
import { CampaignsModule } from '@switchboard/campaigns';

const ACCOUNT = '31';
const OTHER = '32';

/**
 * `unsubscribeAutoAdd` (docs/decisions/0043), campaigns and contacts booted together as the embedded server runs them:
 * a recipient confirming the opt-out link of a campaign that adds opt-outs to the blocked numbers lands on the
 * account's blacklist (visible at GET /black_lists, announced by `contacts.black_list.changed`); the same confirmation
 * for a campaign without the setting, or naming another account's campaign, blacklists nothing.
 */
describe('opt-outs of a campaign added to the blocked numbers', () => {
  let t: TestApp;
  const seen: EventEnvelope[] = [];
  const tokens: Record<string, string> = {};

  const call = async <T,>(method: string, p: string, acc: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${tokens[acc]}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
  };
  const settle = async () => {
    for (let i = 0; i < 10; i++) {
      await (t.bus as InMemoryEventBus).drain();
      await new Promise((r) => setTimeout(r, 30));
    }
  };
  const confirm = (accountId: string, campaignId: string, destination: string) =>
    createEnvelope(LinkOptOutConfirmedV1, { accountId, contactId: null, destination, campaignId, messageUuid: randomUUID(), optedOutAt: new Date().toISOString() }, { accountId, source: 'links' });
  const blacklisted = async (acc: string) => (await call<{ items: Array<{ phone: string }> }>('GET', '/black_lists?itemsPerPage=100', acc)).body.items.map((b) => b.phone).sort();
  const campaign = async (acc: string, unsubscribeAutoAdd: boolean) => {
    const res = await call<{ id: number; unsubscribeAutoAdd: boolean }>('POST', '/campaigns', acc, { name: `auto-add ${unsubscribeAutoAdd}`, unsubscribeAutoAdd, campaignVariants: [{ text: 'Sale {{optout}}' }] });
    expect(res.status).toBe(201);
    expect(res.body.unsubscribeAutoAdd).toBe(unsubscribeAutoAdd);
    return String(res.body.id);
  };

  let storageDir = '';
  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-campaign-optout-'));
    t = await createTestApp(() => ({
      imports: [ContactsModule.register({ storageDir, pollIntervalMs: 50, workers: 1 }), CampaignsModule.register({ schedulerIntervalMs: 0, runner: { intervalMs: 0 } })],
      bus: new InMemoryEventBus(),
    }));
    await t.bus.subscribe({ group: 'test.spy', topics: ['switchboard.contacts'], handler: async (e) => void seen.push(e) });
    for (const acc of [ACCOUNT, OTHER]) {
      tokens[acc] = t.token({ sub: `owner-${acc}`, acc, perms: [...ALL_PERMISSIONS] });
      await t.bus.publish([
        createEnvelope(
          CustomerCreatedV1,
          { accountId: acc, name: `Account ${acc}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings: {}, genSettings: {}, createdAt: new Date().toISOString() },
          { accountId: acc, source: 'accounts' },
        ),
      ]);
    }
    await settle();
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (storageDir) fs.rmSync(storageDir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  it('blacklists the number of an opt-out only for a campaign with unsubscribeAutoAdd, of the same account, once', async () => {
    const autoAdd = await campaign(ACCOUNT, true);
    const plain = await campaign(ACCOUNT, false);
    const othersAutoAdd = await campaign(OTHER, true);
    const contact = await call<{ id: number }>('POST', '/contacts', ACCOUNT, { phone: '+447400000101' });
    expect(contact.status).toBe(201);

    const first = confirm(ACCOUNT, autoAdd, '+447400000101');
    await t.bus.publish([
      first,
      first, // delivered twice
      confirm(ACCOUNT, plain, '+447400000102'),
      // an event of one account naming another account's campaign changes nothing
      confirm(ACCOUNT, othersAutoAdd, '+447400000103'),
    ]);
    await settle();

    expect(await blacklisted(ACCOUNT)).toEqual(['+447400000101']);
    expect(await blacklisted(OTHER)).toEqual([]);
    const changes = seen.filter((e) => e.type === BlacklistChangedV1.type).map((e) => e.data);
    expect(changes).toEqual([expect.objectContaining({ accountId: ACCOUNT, added: ['+447400000101'], removed: [] })]);
    // the contact is blocked: the next audiences (and the list counts) leave it out
    const shown = await call<{ blocked: boolean }>('GET', `/contacts/${contact.body.id}`, ACCOUNT);
    expect(shown).toMatchObject({ status: 200, body: { blocked: true } });
  });
});
