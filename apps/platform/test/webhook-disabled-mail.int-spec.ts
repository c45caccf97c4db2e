import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { ALL_PERMISSIONS, MessageStatusChangedV1, Permission, type EventData } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, type OutgoingEvent } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { AuthBootstrapService, AuthModule, MembershipStatus } from '@switchboard/auth';
import { DeliveryService, ManualClock, WebhooksModule, WebhooksOutboxRelay } from '@switchboard/webhooks';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

const URL_TOKEN = 'customer-url-token-7f3a';
const HEADER_TOKEN = 'customer-header-token-91c2';

/**
 * Webhooks and auth booted together, as the embedded server runs them: a webhook the webhooks service turns off
 * (410 Gone, or failing for days) becomes one `webhooks.webhook.disabled` event, and auth mails the account's admins
 * through the dev mailbox, once, without the webhook's secrets.
 */
describe('a disabled webhook is mailed to the account admins', () => {
  let t: TestApp;
  let pool: Pool;
  let receiver: Server;
  let base = '';
  let answer = 410;
  const clock = new ManualClock(Date.parse('2026-03-02T10:00:00Z'));
  let account = '';
  let other = '';
  let ownerToken = '';

  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await t.app.get(WebhooksOutboxRelay).relay.flush();
      if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
    }
  };
  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${path}`, { method, headers: { authorization: `Bearer ${ownerToken}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const status = (acc: string): EventData<typeof MessageStatusChangedV1> => ({
    messageUuid: randomUUID(),
    accountId: acc,
    streamId: '5',
    streamUid: '11111111-1111-4111-8111-111111111111',
    campaignId: null,
    sender: 'Acme',
    destination: '+14155552671',
    status: 'delivered',
    outgoingStatus: null,
    error: null,
    vendorId: '1',
    providerMessageId: 'p1',
    sentAt: '2026-03-02T10:00:00.000Z',
    deliveredAt: '2026-03-02T10:00:02.000Z',
    mcc: '310',
    mnc: '260',
    occurredAt: '2026-03-02T10:00:02.000Z',
  });
  const publishStatus = async (acc: string) => {
    await t.bus.publish([createEnvelope(MessageStatusChangedV1, status(acc), { accountId: acc, source: 'dispatch' })]);
    if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
  };
  const mailsTo = (to: string) => t.mailbox.list(200).filter((m) => m.to === to && /^Webhook ".*" was turned off$/.test(m.subject));

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(answer, { 'content-type': 'text/plain' });
        res.end(answer === 410 ? 'gone' : 'broken');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    t = await createTestApp(({ keys }) => ({
      imports: [
        AuthModule.register({ privateKey: keys.privateKey, captcha: 'none', appUrl: 'https://console.example.test' }),
        WebhooksModule.register({ secret: 'test-secret-of-the-webhooks-module', clock, allowLoopback: true, allowedPorts: 'any', pollMs: 0, random: () => 0.5, timeoutMs: 2000 }),
      ],
    }));
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    const seed = t.app.get(AuthBootstrapService);
    await seed.ensureSystemRoles();
    account = (await seed.createAccount({ name: 'Hooks Co' })).id;
    other = (await seed.createAccount({ name: 'Other Co' })).id;
    const admins = (await seed.createRole({ accountId: account, name: 'Integrations', permissions: [Permission.WebhookView, Permission.WebhookAddEdit] })).id;
    const viewers = (await seed.createRole({ accountId: account, name: 'Viewers', permissions: [Permission.WebhookView, Permission.WebhookRequestView] })).id;
    const member = async (email: string, accountId: string, status: number, platformRoleId?: string) => {
      const u = await seed.createUser({ email, password: 'a long enough password 1' });
      await seed.addMember({ userId: u.id, accountId, status: status as 0, platformRoleId });
      return u.id;
    };
    const owner = await member('owner@hooks.test', account, MembershipStatus.Owner);
    await member('integrator@hooks.test', account, MembershipStatus.Active, admins);
    await member('viewer@hooks.test', account, MembershipStatus.Active, viewers);
    await member('gone@hooks.test', account, MembershipStatus.Disabled, admins);
    await member('owner@other.test', other, MembershipStatus.Owner);
    ownerToken = t.token({ sub: owner, acc: account, perms: [...ALL_PERMISSIONS] });
  }, 60000);

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  });

  it('410 Gone: one event, one mail to each admin (owner and webhook editors), nothing secret in either', async () => {
    answer = 410;
    const hook = await call('POST', '/webhooks', { name: 'Order statuses', url: `${base}/hooks/sms?token=${URL_TOKEN}`, trigger: 'message_status_change', headers: { authorization: `Bearer ${HEADER_TOKEN}` } });
    expect(hook.status).toBe(201);
    // three deliveries in flight together, all answered 410: only the attempt that turned the webhook off tells anyone
    for (let i = 0; i < 3; i++) await publishStatus(account);
    await t.app.get(DeliveryService).runOnce();
    await settle();

    const events = await pool.query<{ payload: Json; text: string }>(`SELECT payload, payload::text AS text FROM webhooks.outbox WHERE type = 'webhooks.webhook.disabled'`);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].payload.data).toEqual({
      accountId: account,
      webhookId: String(hook.body.id),
      name: 'Order statuses',
      origin: base,
      trigger: 'message_status_change',
      reason: 'gone',
      failingSince: null,
      disabledAt: '2026-03-02T10:00:00.000Z',
    });
    for (const secret of [URL_TOKEN, HEADER_TOKEN, hook.body.secret as string, '/hooks/sms']) expect(events.rows[0].text).not.toContain(secret);

    for (const to of ['owner@hooks.test', 'integrator@hooks.test']) {
      const mails = mailsTo(to);
      expect(mails).toHaveLength(1);
      expect(mails[0].subject).toBe('Webhook "Order statuses" was turned off');
      expect(mails[0].text).toContain('410 Gone');
      expect(mails[0].text).toContain(base);
      expect(mails[0].text).toContain('https://console.example.test/webhooks');
      for (const secret of [URL_TOKEN, HEADER_TOKEN, hook.body.secret as string]) expect(mails[0].text).not.toContain(secret);
    }
    for (const to of ['viewer@hooks.test', 'gone@hooks.test', 'owner@other.test']) expect(mailsTo(to)).toEqual([]);
    expect((await call('GET', `/webhooks/${hook.body.id}`)).body).toMatchObject({ active: false, disabledReason: 'the receiver answered 410 Gone' });

    // the bus delivers the event again (at least once): nobody gets a second mail
    const [row] = (await pool.query<{ payload: OutgoingEvent }>(`SELECT payload FROM webhooks.outbox WHERE type = 'webhooks.webhook.disabled'`)).rows;
    await t.bus.publish([{ ...row.payload, topic: 'switchboard.webhooks' } as OutgoingEvent]);
    if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
    expect(mailsTo('owner@hooks.test')).toHaveLength(1);
    expect(mailsTo('integrator@hooks.test')).toHaveLength(1);
  });

  it('failing for days: disabled with the day it started failing, mailed once', async () => {
    answer = 500;
    const before = mailsTo('owner@hooks.test').length;
    const hook = await call('POST', '/webhooks', { name: 'EDR feed', url: `${base}/edr`, trigger: 'message_status_change' });
    expect(hook.status).toBe(201);
    await publishStatus(account);
    await t.app.get(DeliveryService).runOnce();
    const firstFailure = clock.now().toISOString();
    // retried along the schedule; still active while it has failed for less than five days
    clock.advance(6 * 3600_000);
    await t.app.get(DeliveryService).runOnce();
    await settle();
    expect(mailsTo('owner@hooks.test')).toHaveLength(before);
    expect((await call('GET', `/webhooks/${hook.body.id}`)).body.active).toBe(true);
    clock.advance(5 * 86400_000);
    await t.app.get(DeliveryService).runOnce();
    await settle();

    expect((await call('GET', `/webhooks/${hook.body.id}`)).body).toMatchObject({ active: false, disabledReason: `deliveries failed since ${firstFailure}` });
    const mails = mailsTo('owner@hooks.test');
    expect(mails).toHaveLength(before + 1);
    expect(mails[0]).toMatchObject({ subject: 'Webhook "EDR feed" was turned off' });
    expect(mails[0].text).toContain('failed for days');
    expect(mails[0].text).toContain(`failing since ${firstFailure}`);
    expect(mailsTo('integrator@hooks.test')).toHaveLength(2);
    expect(mailsTo('viewer@hooks.test')).toEqual([]);
  });
});
