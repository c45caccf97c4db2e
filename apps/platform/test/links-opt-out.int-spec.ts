import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { ALL_PERMISSIONS, AudienceBatchPreparedV1, AudienceRequestedV1, ContactOptedOutV1, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { ContactsModule } from '@switchboard/contacts';
import { LinksModule, LinksOutboxRelay, MintConsumer, RedirectRoleService } from '@switchboard/links';

const ACCOUNT = '1';
const OTHER = '2';

/**
 * Links and contacts booted together, as the embedded server runs them: a recipient opens the `{optout}` link of a
 * campaign message, sees the confirm page, confirms (POST), and the contact is opted out in contacts, so the next
 * campaign's audience leaves them out. A preview fetch of the same link opts no one out.
 */
describe('opt-out through a campaign link', () => {
  let t: TestApp;
  let pg: Client;
  const seen: EventEnvelope[] = [];
  let token = '';

  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await t.app.get(LinksOutboxRelay).relay.flush();
      await (t.bus as InMemoryEventBus).drain();
    }
  };
  const call = async <T,>(method: string, p: string, body?: unknown, as = token): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${as}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T };
  };
  const hit = (host: string, p: string, method = 'GET', headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: t.app.get(RedirectRoleService).running!.port, path: p, method, headers: { host, 'user-agent': 'Mozilla/5.0 (Linux; Android 14) Mobile', ...headers } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      });
      req.on('error', reject);
      req.end();
    });
  const audience = async (contactListIds: string[]): Promise<string[]> => {
    const requestId = randomUUID();
    await t.bus.publish([createEnvelope(AudienceRequestedV1, { requestId, accountId: ACCOUNT, campaignId: '42', contactListIds, sendDuplicates: false, variableIds: null }, { accountId: ACCOUNT, source: 'campaigns' })]);
    for (let i = 0; i < 50; i++) {
      await settle();
      const batches = seen.filter((e) => e.type === AudienceBatchPreparedV1.type && (e.data as { requestId: string }).requestId === requestId).map((e) => AudienceBatchPreparedV1.schema.parse(e.data));
      if (batches.some((b) => b.last)) return batches.flatMap((b) => b.recipients.phone).sort();
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('no audience answer');
  };

  let storageDir = '';
  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-links-optout-'));
    t = await createTestApp(() => ({
      imports: [ContactsModule.register({ storageDir, pollIntervalMs: 50, workers: 1 }), LinksModule.register({ codeSecret: 'opt-out-test-code-secret', dnsPollMs: 0, redirect: { publicScheme: 'http' } })],
      bus: new InMemoryEventBus(),
    }));
    await t.bus.subscribe({ group: 'test.spy', topics: ['switchboard.contacts', 'switchboard.links'], handler: async (e) => void seen.push(e) });
    pg = new Client({ connectionString: t.db.url });
    await pg.connect();
    token = t.token({ sub: 'owner', acc: ACCOUNT, perms: [...ALL_PERMISSIONS] });
  }, 60_000);

  afterAll(async () => {
    await pg?.end();
    await t?.close();
    if (storageDir) fs.rmSync(storageDir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  it('opts the contact out on the confirm page POST, never on a GET or a preview, and the next campaign skips them', async () => {
    const list = await call<{ id: number }>('POST', '/contact_lists', { name: 'Customers' });
    expect(list.status).toBe(201);
    const listId = String(list.body.id);
    const phones = ['+447400000001', '+447400000002'];
    const contacts: string[] = [];
    for (const phone of phones) {
      const c = await call<{ id: number }>('POST', '/contacts', { phone, contactLists: [listId] });
      expect(c.status).toBe(201);
      contacts.push(String(c.body.id));
    }
    expect(await audience([listId])).toEqual(phones);

    // the domain as the admin role leaves it once DNS verified it; the campaign's batch gets its {optout} links
    const {
      rows: [d],
    } = await pg.query<{ id: string }>(`INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, 'stop.shop.test', 1, 'x', true, now(), now()) RETURNING id::text`, [ACCOUNT]);
    const answer = await t.app.get(MintConsumer).mint({
      batchId: 'optout-1',
      accountId: ACCOUNT,
      campaignId: '41',
      streamId: null,
      variables: [{ variable: 'optout', kind: 'optout', offerId: null, url: null, domainIds: [d.id], domainPoolId: null, expireInDays: null }],
      items: phones.map((phone, i) => ({ ref: `r${i}`, messageUuid: randomUUID(), contactId: contacts[i], destination: phone, vars: {}, variantId: null })),
    });
    expect(answer.outcome).toBe('minted');
    const u = new URL(answer.links.r0.optout);

    // opening it (and a WhatsApp preview of it) shows the confirm page and changes nothing
    const page = await hit(u.host, u.pathname);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post"');
    expect((await hit(u.host, u.pathname, 'GET', { 'user-agent': 'WhatsApp/2.23.20.0 A' })).status).toBe(200);
    await settle();
    expect(seen.filter((e) => e.type === ContactOptedOutV1.type)).toHaveLength(0);

    // another account's host never reaches this link
    await pg.query(`INSERT INTO links.domain (account_id, name, state, verification_token, claimed, created_at, updated_at) VALUES ($1, 'stop.other.test', 1, 'y', true, now(), now())`, [OTHER]);
    expect((await hit('stop.other.test', u.pathname, 'POST')).status).toBe(404);

    const done = await hit(u.host, u.pathname, 'POST');
    expect(done.status).toBe(200);
    expect(done.body).toContain('unsubscribed');
    // a second confirmation changes nothing more
    expect((await hit(u.host, u.pathname, 'POST')).status).toBe(200);
    for (let i = 0; i < 50 && !seen.some((e) => e.type === ContactOptedOutV1.type); i++) {
      await settle();
      await new Promise((r) => setTimeout(r, 20));
    }
    const optedOut = seen.filter((e) => e.type === ContactOptedOutV1.type).map((e) => e.data);
    expect(optedOut).toEqual([expect.objectContaining({ accountId: ACCOUNT, contactId: contacts[0], phone: phones[0], source: 'link' })]);
    const shown = await call<{ optedOutAt: string | null }>('GET', `/contacts/${contacts[0]}`);
    expect(shown.body.optedOutAt).not.toBeNull();

    // the next campaign's audience leaves them out
    expect(await audience([listId])).toEqual([phones[1]]);
  });
});
