import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { ALL_PERMISSIONS, BalanceAdjustedV1, CustomerCreatedV1, PriceChangedV1, Topics, type EventDefinition } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus, ProviderSecrets } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { DispatchModule, DispatchOutboxRelay, TelegramPeer, TelegramPrivateAdapter, WhatsAppPeer, type DispatchModuleOptions, type TelegramLoginGateway } from '@switchboard/dispatch';
import { StreamsModule, StreamsOutboxRelay } from '@switchboard/streams';

/** Streams and dispatch booted together, as the embedded server runs them, to check their contract end to end. */
const FAST: DispatchModuleOptions['dispatcher'] = { idleMs: 20, heartbeatMs: 200, staleAfterMs: 1000, unknownResendAfterMs: 50, retryBaseMs: 20 };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

const ACC = '501';
const STREAM_TOKEN = 'EAAG-the-streams-own-token';
const PHONE_ID = '2222222222';
const BOT_TOKEN = '777000:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
/** streams seals provider secrets with it, dispatch opens them with it (PROVIDER_SECRETS_KEY of both). */
const PROVIDER_SECRETS_KEY = 'provider-secrets-of-the-platform-test';

/** Telegram's login answers (Telegram cannot be reached here): a code hash, SESSION_PASSWORD_NEEDED, a session. */
class FakeLogin implements TelegramLoginGateway {
  calls: string[] = [];
  async sendCode(phone: string) {
    this.calls.push(`sendCode ${phone}`);
    return { phoneCodeHash: 'hash-1', session: 's0' };
  }
  async signIn(_phone: string, _hash: string, code: string, session: string) {
    this.calls.push(`signIn ${code}`);
    if (code !== '12345') throw Object.assign(new Error('PHONE_CODE_INVALID'), { errorMessage: 'PHONE_CODE_INVALID' });
    return { passwordNeeded: true as const, session: `${session}+code` };
  }
  async signInWithPassword(password: string, session: string) {
    this.calls.push(`password ${password}`);
    return { session: `${session}+password` };
  }
  async sendMessage() {
    return { id: '1' };
  }
}

describe('streams and dispatch together: one stream channel contract, webhooks at the URL the console shows', () => {
  let wa: WhatsAppPeer;
  let tg: TelegramPeer;
  let t: TestApp;
  let pool: Pool;
  /** What dispatch published: its relay deletes the rows it published (docs/decisions/0096), so they are read off the bus. */
  const dispatched: string[] = [];
  const login = new FakeLogin();
  const token = () => t.token({ sub: 'u501', acc: ACC, perms: [...ALL_PERMISSIONS] });

  const settle = async () => {
    await t.app.get(StreamsOutboxRelay).relay.flush();
    await t.app.get(DispatchOutboxRelay).relay.flush();
    if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
  };
  const until = async <T>(probe: () => Promise<T | undefined | null | false>, what: string): Promise<T> => {
    for (let i = 0; i < 600; i++) {
      await settle();
      const v = await probe();
      if (v) return v;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`not reached: ${what}`);
  };
  const call = async (method: string, path: string, body?: unknown, auth = `Bearer ${token()}`): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}${path}`, { method, headers: { authorization: auth, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const publish = async <T>(def: EventDefinition<T>, data: T) => {
    await t.bus.publish([createEnvelope(def, data, { accountId: null, source: 'accounts' })]);
    await settle();
  };

  beforeAll(async () => {
    wa = new WhatsAppPeer('app-secret', new Set([STREAM_TOKEN]));
    wa.business('1111111111', STREAM_TOKEN, [PHONE_ID]);
    tg = new TelegramPeer(new Set([BOT_TOKEN]));
    const [waUrl, tgUrl] = [await wa.listen(), await tg.listen()];
    t = await createTestApp(() => ({
      imports: [
        StreamsModule.register({
          secret: 'integration-secret-of-streams',
          providerSecretsKey: PROVIDER_SECRETS_KEY,
          cacheTtlMs: 0,
          publicApiUrl: 'https://api.example.test',
          whatsappApiBaseUrl: waUrl,
          telegramApiBaseUrl: tgUrl,
        }),
        DispatchModule.register({
          providerSecretsKey: PROVIDER_SECRETS_KEY,
          publicUrl: 'https://api.example.test',
          telegram: { baseUrl: tgUrl, webhookSecretKey: 'tg-key' },
          realtimeIntervalMs: 20,
          dispatcher: FAST,
          telegramGateway: login,
          adapterFactory: (v) => (v.adapter === 'telegram_private' ? new TelegramPrivateAdapter(String(v.id), null, login) : null),
          seedVendors: [
            // The tech provider's system token is not accepted by the peer: sends must use the stream's own token.
            { name: 'WhatsApp Cloud', serviceType: 'whatsapp', adapter: 'whatsapp', config: { baseUrl: waUrl, apiVersion: 'v21.0', accessToken: 'system-token', appSecret: 'app-secret' } },
            { name: 'Telegram MTProto', serviceType: 'telegram_private', adapter: 'telegram_private' },
          ],
        }),
      ],
    }));
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    await t.bus.subscribe({ group: 'test.spy', topics: [Topics.Dispatch], handler: async (e) => void dispatched.push(JSON.stringify(e)) });
    await publish(CustomerCreatedV1, {
      accountId: ACC,
      name: 'Acme',
      shortName: null,
      status: 'active',
      active: 1,
      currency: 'EUR',
      tps: 100,
      dailyLimit: null,
      customSettings: { allow_whatsapp: true, allow_telegram_bot: true, allow_telegram_private: true },
      genSettings: {},
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    await publish(BalanceAdjustedV1, { accountId: ACC, adjustmentId: randomUUID(), amountMicros: 10_000_000, currency: 'EUR', reason: 'top-up' });
    await publish(PriceChangedV1, { accountId: null, iso2: 'DE', pricePerSegmentMicros: 50_000, currency: 'EUR' });
  });

  afterAll(async () => {
    await pool.end();
    await t.close();
    await wa.close();
    await tg.close();
  });

  it('sends a WhatsApp message with the stream credentials and takes statuses and replies at the console URL', async () => {
    const created = await call('POST', '/api/streams', { name: 'WhatsApp', streamType: 5, params: { auth_token: STREAM_TOKEN, business_id: '1111111111', phone_number: PHONE_ID } });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe(0);
    const streamId = String(created.body.id);
    const uid = String(created.body.streamUid);
    await until(async () => (await pool.query(`SELECT 1 FROM dispatch.stream_channel WHERE stream_id = $1 AND sender = $2`, [streamId, PHONE_ID])).rowCount, 'stream channel in dispatch');

    const streamToken = String((await call('GET', `/api/streams/token/${streamId}`)).body.token);
    const sent = await call('POST', '/api/streams/messages', { phone: '+4915112345678', message: 'Hello from the stream' }, streamToken);
    expect(sent.status).toBe(202);
    const uuid = String(sent.body.message_uuid);
    const out = await until(async () => wa.sends.find((s) => (s.body.text as { body?: string } | undefined)?.body === 'Hello from the stream'), 'send at the Cloud API');
    expect(out).toMatchObject({ phoneNumberId: PHONE_ID, token: STREAM_TOKEN, body: { to: '4915112345678', type: 'text' } });
    await until(async () => (await call('GET', `/api/streams/message_status?message_uuid=${uuid}`)).body.status === 'sent' || null, 'sent in streams');

    const hook = await call('GET', `/api/streams/webhooks/${streamId}`);
    expect(hook.body).toMatchObject({ channel: 'whatsapp', callbackUrl: `https://api.example.test/api/dispatch/webhooks/whatsapp/${uid}` });
    const url = `${t.url}${new URL(String(hook.body.callbackUrl)).pathname}`;
    const challenge = await fetch(`${url}?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(String(hook.body.verifyToken))}&hub.challenge=4242`);
    expect([challenge.status, await challenge.text()]).toEqual([200, '4242']);
    expect((await fetch(`${url}?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`)).status).toBe(403);

    const [{ id: wamid }] = (await pool.query<{ id: string }>(`SELECT provider_ids[1] AS id FROM dispatch.message WHERE uuid = $1`, [uuid])).rows;
    expect(await wa.deliver(url, WhatsAppPeer.notification(PHONE_ID, { statuses: [WhatsAppPeer.status(wamid, 'delivered')] }), 'not-the-app-secret')).toBe(401);
    expect(await wa.deliver(url, WhatsAppPeer.notification(PHONE_ID, { statuses: [WhatsAppPeer.status(wamid, 'delivered'), WhatsAppPeer.status(wamid, 'read')] }))).toBe(200);
    const status = await until(async () => {
      const s = await call('GET', `/api/streams/message_status?message_uuid=${uuid}`);
      return s.body.status === 'delivered' && s.body.outgoing_status === 'read' ? s.body : null;
    }, 'delivered and read in streams');
    expect(status).toMatchObject({ message_uuid: uuid, status: 'delivered', outgoing_status: 'read' });

    const inbound = { from: '4915112345678', id: 'wamid.INBOUND1', timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'Thanks!' } };
    expect(await wa.deliver(url, WhatsAppPeer.notification(PHONE_ID, { messages: [inbound], contacts: [{ wa_id: '4915112345678', profile: { name: 'Jo' } }] }))).toBe(200);
    const replies = await until(async () => {
      const r = await call('GET', '/api/message_responses');
      return r.body.total > 0 ? r.body : null;
    }, 'reply in message_responses');
    expect(replies.items[0]).toMatchObject({ streamUid: uid, channel: 'whatsapp', source: '+4915112345678', destination: PHONE_ID, contactName: 'Jo', message: 'Thanks!' });
  });

  it('keeps every provider token out of events and read models: sealed from streams to dispatch, opened only to call the provider', async () => {
    const bot = await call('POST', '/api/streams', { name: 'Bot', streamType: 7, params: { auth_token: BOT_TOKEN } });
    expect(bot.status).toBe(201);
    // dispatch opened the sealed token: it registered the bot's webhook with it
    await until(async () => tg.webhooks.get(BOT_TOKEN), 'setWebhook with the bot token');
    const wa = (await call('GET', '/api/streams?streamType=5')).body.items[0] as Json;
    const verifyToken = String((await call('GET', `/api/streams/webhooks/${wa.id}`)).body.verifyToken);
    await settle();
    const secrets = [STREAM_TOKEN, BOT_TOKEN, verifyToken];
    // every event either service wrote (the bus carries exactly these), and every row of every dispatch table
    expect(dispatched.length).toBeGreaterThan(0);
    const dumps: string[] = [...dispatched];
    for (const schema of ['streams', 'dispatch']) dumps.push(...(await pool.query(`SELECT payload::text || coalesce(packed, '') AS d FROM ${schema}.outbox`)).rows.map((r) => String(r.d)));
    const tables = (await pool.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'dispatch' AND table_type = 'BASE TABLE'`)).rows;
    for (const { table_name } of tables) dumps.push(...(await pool.query(`SELECT t::text AS d FROM dispatch."${table_name}" t`)).rows.map((r) => String(r.d)));
    expect(dumps.length).toBeGreaterThan(20);
    for (const secret of secrets) expect(dumps.filter((d) => d.includes(secret))).toEqual([]);
    expect(tables.map((r) => r.table_name)).toContain('stream_channel');
  });

  it('turns a Telegram private stream ready only when dispatch completes the login, showing errors on the stream', async () => {
    const created = await call('POST', '/api/streams', { name: 'Telegram me', streamType: 8, params: { phone_number: '+491701234567' } });
    expect(created.status).toBe(201);
    const id = String(created.body.id);
    const stream = async () => (await call('GET', `/api/streams/${id}`)).body;
    await until(async () => (await stream()).params.auth_status === 'code_requested' || null, 'code requested');
    expect(login.calls).toEqual(['sendCode +491701234567']);
    expect((await stream()).status).toBe(2);

    await call('PUT', `/api/streams/${id}`, { params: { otp_code: '99999' } });
    await until(async () => (await stream()).params.auth_error === 'PHONE_CODE_INVALID' || null, 'wrong code reported');
    expect((await stream()).status).toBe(2);

    await call('PUT', `/api/streams/${id}`, { params: { otp_code: '12345' } });
    await until(async () => (await stream()).params.auth_error === 'PASSWORD_NEEDED' || null, 'password asked for');
    expect(await stream()).toMatchObject({ status: 2, params: { auth_status: 'password_needed' } });

    await call('PUT', `/api/streams/${id}`, { params: { password: 'two-step' } });
    const ready = await until(async () => {
      const s = await stream();
      return s.status === 0 ? s : null;
    }, 'ready after the login');
    expect(ready.params).toMatchObject({ auth_status: 'authorised' });
    expect(ready.params.auth_error).toBeUndefined();
    expect(login.calls).toEqual(['sendCode +491701234567', 'signIn 99999', 'signIn 12345', 'password two-step']);
    const [{ auth_state }] = (await pool.query(`SELECT auth_state FROM dispatch.stream_channel WHERE stream_id = $1`, [id])).rows;
    // the session is stored sealed for the stream (docs/decisions/0021)
    expect(auth_state).toEqual({ authorised: true, sealedSession: expect.stringMatching(/^ps1:/) });
    expect(new ProviderSecrets(PROVIDER_SECRETS_KEY).open(ready.streamUid, auth_state.sealedSession)).toEqual({ session: 's0+code+password' });
  });
});
