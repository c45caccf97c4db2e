import { InboundRouteChangedV1, StreamChannelConfiguredV1, TelegramCodeSubmittedV1 } from '@switchboard/contracts';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ProviderSecrets } from '@switchboard/platform';
import { InboundClaims1796100000000 } from '../src/migrations/1796100000000-inbound-claims';
import { InboundBackfillService } from '../src/services/inbound-backfill.service';
import { STREAMS_CONNECTION } from '../src/streams.options';
import { startStreams, TG_TOKEN, TG_TOKEN_B, TG_TOKEN_SAME_BOT, WA_BUSINESS, WA_BUSINESS_B, WA_PHONE_ID, WA_PHONE_ID_B, WA_TOKEN, WA_TOKEN_B, type Json, type StreamsTestApp } from './support';

const A = '701';
const B = '702';
const PROVIDER_KEY = 'provider-secrets-key-of-this-test';

/**
 * Inbound ownership (docs/decisions/0021): a two-way number, a WhatsApp phone number id and a Telegram bot belong to
 * one account at a time; provider secrets leave streams sealed only.
 */
describe('inbound claims: one account per number, WhatsApp number and bot', () => {
  let a: StreamsTestApp;

  beforeAll(async () => {
    a = await startStreams({ providerSecretsKey: PROVIDER_KEY });
    await a.account(A);
    await a.account(B);
  });

  afterAll(async () => {
    await a.close();
  });

  const create = (acc: string, body: Json) => a.call('POST', '/streams', { token: a.member(acc), body: { name: 'inbound', ...body } });
  const streamsOf = async (acc: string) => (await a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM streams.stream WHERE account_id = $1 AND deleted_at IS NULL`, [acc]))[0].n;
  const routes = async () => (await a.events()).filter((e) => e.type === InboundRouteChangedV1.type).map((e) => InboundRouteChangedV1.schema.parse(e.data));
  const refused = (res: { status: number; body: Json }, propertyPath: string) => {
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'CONFLICT', violations: [{ propertyPath, code: 'inboundClaimed' }] });
    expect(JSON.stringify(res.body)).not.toContain(A);
  };

  it('refuses a two-way number another account claimed, however it is written', async () => {
    const own = await create(A, { streamType: 4, sender: '+14155550100' });
    expect(own.status).toBe(201);
    expect((await routes()).filter((r) => r.address === '+14155550100')).toEqual([expect.objectContaining({ channel: 'sms', accountId: A, streamId: String(own.body.id) })]);
    // the same account may use its number on several streams
    expect((await create(A, { streamType: 4, sender: '14155550100' })).status).toBe(201);

    const before = await streamsOf(B);
    const eventsBefore = (await a.events()).length;
    refused(await create(B, { streamType: 4, sender: '14155550100' }), 'sender');
    refused(await create(B, { streamType: 4, sender: '0014155550100' }), 'sender');
    // a receiving sender in national form, read in its country
    refused(await a.call('POST', '/senders', { token: a.member(B), body: { name: 'ours', value: '4155550100', type: 'inbound-outbound', country: 'US' } }), 'value');
    expect(await streamsOf(B)).toBe(before);
    expect(await a.sql(`SELECT 1 FROM streams.sender WHERE account_id = $1`, [B])).toEqual([]);
    expect((await a.events()).length).toBe(eventsBefore);
    // an outbound-only sender receives nothing and claims nothing
    expect((await a.call('POST', '/senders', { token: a.member(B), body: { name: 'out', value: '4155550100', type: 'outbound-only', country: 'US' } })).status).toBe(201);
    // an existing stream of B moved onto the number is refused too, and keeps its sender
    const other = await create(B, { streamType: 4, sender: '+14155550199' });
    expect(other.status).toBe(201);
    refused(await a.call('PUT', `/streams/${other.body.id}`, { token: a.member(B), body: { sender: '0014155550100' } }), 'sender');
    expect((await a.call('GET', `/streams/${other.body.id}`, { token: a.member(B) })).body.sender).toBe('+14155550199');
  });

  it('releases a number with its last stream, and then another account may claim it', async () => {
    const one = await create(A, { streamType: 4, sender: '+14155550101' });
    const two = await create(A, { streamType: 4, sender: '+14155550101' });
    expect((await a.call('DELETE', `/streams/${one.body.id}`, { token: a.member(A) })).status).toBe(204);
    refused(await create(B, { streamType: 4, sender: '+14155550101' }), 'sender');
    // the claim moved to the remaining stream
    expect((await routes()).filter((r) => r.address === '+14155550101').at(-1)).toMatchObject({ accountId: A, streamId: String(two.body.id) });
    expect((await a.call('DELETE', `/streams/${two.body.id}`, { token: a.member(A) })).status).toBe(204);
    expect((await routes()).filter((r) => r.address === '+14155550101').at(-1)).toMatchObject({ accountId: null, streamId: null });
    const taken = await create(B, { streamType: 4, sender: '14155550101' });
    expect(taken.status).toBe(201);
    expect((await routes()).filter((r) => r.address === '+14155550101').at(-1)).toMatchObject({ accountId: B, streamId: String(taken.body.id) });
  });

  it('releases a receiving sender when it is deleted', async () => {
    const sender = await a.call('POST', '/senders', { token: a.member(A), body: { name: 'in', value: '+14155550102', type: 'inbound-only', country: 'US' } });
    expect(sender.status).toBe(201);
    refused(await create(B, { streamType: 4, sender: '+14155550102' }), 'sender');
    expect((await a.call('DELETE', `/senders/${sender.body.id}`, { token: a.member(A) })).status).toBe(204);
    expect((await create(B, { streamType: 4, sender: '+14155550102' })).status).toBe(201);
  });

  it("checks a WhatsApp phone number id against the token's business account, and refuses one another account claimed", async () => {
    const own = await create(A, { streamType: 5, sender: null, params: { auth_token: WA_TOKEN, business_id: WA_BUSINESS, phone_number: WA_PHONE_ID } });
    expect(own.status).toBe(201);
    expect((await routes()).filter((r) => r.channel === 'whatsapp')).toEqual([expect.objectContaining({ address: WA_PHONE_ID, accountId: A })]);
    // B's own token and business do not own A's number
    const foreign = await create(B, { streamType: 5, sender: null, params: { auth_token: WA_TOKEN_B, business_id: WA_BUSINESS_B, phone_number: WA_PHONE_ID } });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ code: 'E-0158', violations: [{ propertyPath: 'params.phone_number' }] });
    // with A's token (leaked or shared) the provider says yes, and the claim says no
    refused(await create(B, { streamType: 5, sender: null, params: { auth_token: WA_TOKEN, business_id: WA_BUSINESS, phone_number: WA_PHONE_ID } }), 'params.phone_number');
    // B's own number is B's
    expect((await create(B, { streamType: 5, sender: null, params: { auth_token: WA_TOKEN_B, business_id: WA_BUSINESS_B, phone_number: WA_PHONE_ID_B } })).status).toBe(201);
  });

  it('refuses a Telegram bot another account claimed, even through another token of the same bot', async () => {
    expect((await create(A, { streamType: 7, sender: null, params: { auth_token: TG_TOKEN } })).status).toBe(201);
    expect((await routes()).filter((r) => r.channel === 'telegram')).toEqual([expect.objectContaining({ address: '123456', accountId: A })]);
    refused(await create(B, { streamType: 7, sender: null, params: { auth_token: TG_TOKEN_SAME_BOT } }), 'params.auth_token');
    const bad = await create(B, { streamType: 7, sender: null, params: { auth_token: '999:not-a-bot' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('E-0160');
    expect((await create(B, { streamType: 7, sender: null, params: { auth_token: TG_TOKEN_B } })).status).toBe(201);
  });

  it('claims for streams and senders from before claims existed at start, oldest first, and sends their provider settings again sealed', async () => {
    const first = await create(A, { streamType: 4, sender: '+14155550160' });
    const second = await create(B, { streamType: 4, sender: '+14155550161' });
    // the state the migration finds: both accounts on one number (the old code allowed it), no claims yet
    await a.sql(`DELETE FROM streams.inbound_claim WHERE address IN ('+14155550160', '+14155550161')`);
    await a.sql(`UPDATE streams.stream SET sender = CASE WHEN id = $1 THEN '14155550160' ELSE '+1 4155550160' END, provider_backfill = true WHERE id IN ($1, $2)`, [first.body.id, second.body.id]);
    const before = (await a.events()).length;
    await a.t.app.get(InboundBackfillService).run();
    expect(await a.sql(`SELECT account_id::text, stream_id::text FROM streams.inbound_claim WHERE address = '+14155550160'`)).toEqual([{ account_id: A, stream_id: String(first.body.id) }]);
    expect(await a.sql(`SELECT holder FROM streams.inbound_claim_holder WHERE address = '+14155550160'`)).toEqual([{ holder: `stream:${first.body.id}` }]);
    expect(await a.sql(`SELECT count(*)::int AS n FROM streams.stream WHERE provider_backfill`)).toEqual([{ n: 0 }]);
    const after = (await a.events()).slice(before);
    expect(after.filter((e) => e.type === InboundRouteChangedV1.type).map((e) => e.data)).toEqual([expect.objectContaining({ address: '+14155550160', accountId: A })]);
    expect(after.filter((e) => e.type === StreamChannelConfiguredV1.type).map((e) => (e.data as Json).streamId).sort()).toEqual([String(first.body.id), String(second.body.id)].sort());
    // the stream left without a claim can still be renamed and disabled, and claims a number of its own
    expect((await a.call('PUT', `/streams/${second.body.id}`, { token: a.member(B), body: { name: 'renamed', status: -1 } })).status).toBe(200);
    refused(await a.call('PUT', `/streams/${second.body.id}`, { token: a.member(B), body: { sender: '+14155550160' } }), 'sender');
    expect((await a.call('PUT', `/streams/${second.body.id}`, { token: a.member(B), body: { sender: '+14155550162' } })).status).toBe(200);
    expect(await a.sql(`SELECT account_id::text FROM streams.inbound_claim WHERE address = '+14155550162'`)).toEqual([{ account_id: B }]);
  });

  it('sends provider secrets to dispatch sealed: no token in any event, only a sealed value that opens for its stream', async () => {
    const tg = await create(A, { streamType: 8, sender: null, params: { phone_number: '+14155550177' } });
    await a.call('PUT', `/streams/${tg.body.id}`, { token: a.member(A), body: { params: { otp_code: '24680', password: 'two-step-secret' } } });
    await a.events();
    const payloads = (await a.sql<{ payload: unknown; packed: string | null }>(`SELECT payload, packed FROM streams.outbox`)).map((r) => JSON.stringify(r.payload) + (r.packed ?? ''));
    const all = payloads.join('\n');
    for (const secret of [WA_TOKEN, WA_TOKEN_B, TG_TOKEN, TG_TOKEN_B, '24680', 'two-step-secret']) expect(all).not.toContain(secret);

    const box = new ProviderSecrets(PROVIDER_KEY);
    const configured = (await a.events()).filter((e) => e.type === StreamChannelConfiguredV1.type).map((e) => StreamChannelConfiguredV1.schema.parse(e.data));
    const wa = configured.find((c) => c.channel === 'whatsapp' && c.accountId === A)!;
    expect(wa.credentials).toEqual({ businessId: WA_BUSINESS });
    expect(box.open(wa.streamUid, wa.sealedCredentials!)).toMatchObject({ accessToken: WA_TOKEN, verifyToken: expect.any(String) });
    // bound to its stream: it does not open as another stream's
    expect(() => box.open(configured.find((c) => c.streamUid !== wa.streamUid)!.streamUid, wa.sealedCredentials!)).toThrow();
    const login = (await a.events()).filter((e) => e.type === TelegramCodeSubmittedV1.type).map((e) => TelegramCodeSubmittedV1.schema.parse(e.data));
    expect(login).toHaveLength(1);
    expect(login[0]).toMatchObject({ code: '', password: null });
    expect(box.open(login[0].streamUid, login[0].sealed!)).toEqual({ code: '24680', password: 'two-step-secret' });
  });

  it('clears provider secrets from events still waiting in the outbox when it migrates', async () => {
    const ds = a.t.app.get<DataSource>(getDataSourceToken(STREAMS_CONNECTION));
    const qr = ds.createQueryRunner();
    try {
      const migration = new InboundClaims1796100000000();
      await migration.down(qr);
      const payload = { id: 'e1', type: 'streams.stream.channel_configured', data: { streamId: '1', credentials: { accessToken: 'EAA-waiting-in-the-outbox', businessId: '9' } } };
      const login = { id: 'e2', type: 'streams.telegram_auth.code_submitted', data: { streamId: '2', code: '13579', password: 'waiting-password' } };
      await qr.query(`INSERT INTO streams.outbox (event_id, topic, key, type, payload, published_at) VALUES (gen_random_uuid(), 'x', '1', $1, $2, now()), (gen_random_uuid(), 'x', '2', $3, $4, now())`, [payload.type, payload, login.type, login]);
      await migration.up(qr);
      const dump = JSON.stringify(await qr.query(`SELECT payload FROM streams.outbox WHERE key IN ('1', '2') AND topic = 'x'`));
      for (const secret of ['EAA-waiting-in-the-outbox', '13579', 'waiting-password']) expect(dump).not.toContain(secret);
    } finally {
      await qr.release();
    }
  });
});
