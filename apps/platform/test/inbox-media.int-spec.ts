import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { ALL_PERMISSIONS, BalanceAdjustedV1, CustomerCreatedV1, Topics, type EventDefinition } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { DispatchModule, DispatchOutboxRelay, TelegramPeer, WhatsAppPeer } from '@switchboard/dispatch';
import { StreamsModule, StreamsOutboxRelay } from '@switchboard/streams';
import { InboxModule } from '@switchboard/inbox';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

const ACC = '601';
const STREAM_TOKEN = 'EAAG-media-test-stream-token';
const PHONE_ID = '3333333333';
const BOT_TOKEN = '888000:MediaBotTokenAAbbCCddEEffGGhh';
const PROVIDER_SECRETS_KEY = 'provider-secrets-of-the-media-test';

/** Real file signatures: what the inbox's own sniffer must find in the bytes. */
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(2000, 7)]);
const OGG = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(3000, 1)]);
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(1500, 32)]);
const HTML = Buffer.from('<html><script>alert(1)</script></html>');
/** The most kept bytes in total in this test's dispatch. */
const MAX_KEPT = 256 * 1024;

/**
 * Inbound media (docs/decisions/0045): a customer's image on WhatsApp and voice note on Telegram, sent through the local
 * Cloud API and Bot API peers, are fetched by dispatch with the stream's token when the inbox first reads them, checked
 * by the inbox's own sniffer and size limits, and kept like uploads. The peers misbehave: slow, gone, an expired URL,
 * an understated size, bytes of another type. No token reaches an event, a row, an answer or the log.
 */
describe('inbound WhatsApp and Telegram media in the inbox', () => {
  let wa: WhatsAppPeer;
  let tg: TelegramPeer;
  let t: TestApp;
  let pool: Pool;
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-inbox-media-'));
  const admin = () => t.token({ sub: '1', acc: ACC, perms: [...ALL_PERMISSIONS] });
  let space = 0;
  let waHook = '';
  let botUid = '';
  const logged: string[] = [];
  const dispatched: string[] = [];
  let restoreLog: () => void = () => undefined;

  const settle = async () => {
    await t.app.get(StreamsOutboxRelay).relay.flush();
    await t.app.get(DispatchOutboxRelay).relay.flush();
    if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
  };
  const until = async <T>(probe: () => Promise<T | undefined | null | false>, what: string): Promise<T> => {
    for (let i = 0; i < 400; i++) {
      await settle();
      const v = await probe();
      if (v) return v;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`not reached: ${what}`);
  };
  const call = async (method: string, p: string, body?: unknown, token = admin()): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const media = async (id: string, token = admin()) => {
    const res = await fetch(`${t.url}/api/stream_media/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get('content-type'), bytes, text: bytes.toString('utf8') };
  };
  const publish = async <T>(def: EventDefinition<T>, data: T) => {
    await t.bus.publish([createEnvelope(def, data, { accountId: null, source: 'accounts' })]);
    await settle();
  };
  /** The inbound message's timeline event in the inbox, once it is there. */
  const inboxEvent = (messageUuid: string) =>
    until(async () => (await pool.query(`SELECT content FROM inbox.event WHERE message_uuid = $1`, [messageUuid])).rows[0]?.content as Json | undefined, 'the message in the inbox');
  /** The provider's media requests for one media id (other tests' background keepers may still be asking for theirs). */
  const askedFor = (id: string) => wa.mediaRequests.filter((r) => r.path.endsWith(id)).length;
  const mediaState = (uuid: string) =>
    pool.query(`SELECT media_state, media_attempts FROM dispatch.inbound_message WHERE uuid = $1`, [uuid]).then((r) => r.rows[0] as { media_state: string; media_attempts: number });
  const waImage = async (mediaId: string, wamid: string, type = 'image') => {
    const m = { from: '4915112340000', id: wamid, timestamp: String(Math.floor(Date.now() / 1000)), type, [type]: { id: mediaId, mime_type: 'image/jpeg', sha256: 'x', caption: 'my parcel' } };
    expect(await wa.deliver(waHook, WhatsAppPeer.notification(PHONE_ID, { messages: [m], contacts: [{ wa_id: '4915112340000', profile: { name: 'Jo' } }] }))).toBe(200);
    const uuid = await until(async () => (await pool.query(`SELECT uuid::text FROM dispatch.inbound_message WHERE provider_message_id = $1`, [wamid])).rows[0]?.uuid as string | undefined, 'stored by dispatch');
    await inboxEvent(uuid);
    return uuid;
  };
  let tgSeq = 1;
  const tgMessage = async (field: string, value: unknown) => {
    const id = ++tgSeq;
    expect(await tg.update(BOT_TOKEN, { update_id: id, message: { message_id: id, date: Math.floor(Date.now() / 1000), chat: { id: 4242, type: 'private' }, from: { first_name: 'Tanja' }, [field]: value } }, { baseUrl: t.url })).toBe(200);
    const uuid = await until(async () => (await pool.query(`SELECT uuid::text FROM dispatch.inbound_message WHERE provider_message_id = $1`, [`4242:${id}`])).rows[0]?.uuid as string | undefined, 'stored by dispatch');
    await inboxEvent(uuid);
    return uuid;
  };

  beforeAll(async () => {
    wa = new WhatsAppPeer('app-secret', new Set([STREAM_TOKEN]));
    wa.business('1111111111', STREAM_TOKEN, [PHONE_ID]);
    tg = new TelegramPeer(new Set([BOT_TOKEN]));
    const [waUrl, tgUrl] = [await wa.listen(), await tg.listen()];
    t = await createTestApp(() => ({
      imports: [
        StreamsModule.register({ secret: 'media-test-secret-of-streams', providerSecretsKey: PROVIDER_SECRETS_KEY, cacheTtlMs: 0, publicApiUrl: 'https://api.example.test', whatsappApiBaseUrl: waUrl, telegramApiBaseUrl: tgUrl }),
        DispatchModule.register({
          providerSecretsKey: PROVIDER_SECRETS_KEY,
          publicUrl: 'https://api.example.test',
          telegram: { baseUrl: tgUrl, webhookSecretKey: 'tg-key' },
          realtimeIntervalMs: 20,
          // the peers listen on 127.0.0.1; kept bytes stay a day and 256 KB in total, checked every 50 ms
          inboundMedia: { timeoutMs: 3000, keepRetryMs: 100, keepPollMs: 50, keepConcurrency: 2, allowLoopback: true, keepForMs: 86_400_000, maxTotalBytes: MAX_KEPT, pruneEveryMs: 50 },
          seedVendors: [{ name: 'WhatsApp Cloud', serviceType: 'whatsapp', adapter: 'whatsapp', config: { baseUrl: waUrl, apiVersion: 'v21.0', appSecret: 'app-secret' } }],
        }),
        InboxModule.register({ media: { dir: mediaDir } }),
      ],
    }));
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    // what dispatch publishes: its relay deletes the rows it published (docs/decisions/0096), so they are read off the bus
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
      customSettings: { allow_whatsapp: true, allow_telegram_bot: true },
      genSettings: {},
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    await publish(BalanceAdjustedV1, { accountId: ACC, adjustmentId: randomUUID(), amountMicros: 10_000_000, currency: 'EUR', reason: 'top-up' });
    const waStream = await call('POST', '/streams', { name: 'WhatsApp', streamType: 5, params: { auth_token: STREAM_TOKEN, business_id: '1111111111', phone_number: PHONE_ID } });
    expect(waStream.status).toBe(201);
    const bot = await call('POST', '/streams', { name: 'Bot', streamType: 7, params: { auth_token: BOT_TOKEN } });
    expect(bot.status).toBe(201);
    botUid = String(bot.body.streamUid);
    waHook = `${t.url}/api/dispatch/webhooks/whatsapp/${String(waStream.body.streamUid)}`;
    await until(async () => tg.webhooks.get(BOT_TOKEN), 'the bot webhook set');
    await until(async () => (await pool.query(`SELECT 1 FROM dispatch.stream_channel WHERE stream_uid = $1`, [waStream.body.streamUid])).rowCount, 'the WhatsApp stream in dispatch');
    space = (await call('POST', '/spaces', { name: 'Support' })).body.id as number;
    expect(space).toBeGreaterThan(0);
    // everything the processes log from here on, to look for tokens
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((c: string | Uint8Array, ...a: never[]) => (logged.push(String(c)), out(c, ...a))) as typeof process.stdout.write;
    process.stderr.write = ((c: string | Uint8Array, ...a: never[]) => (logged.push(String(c)), err(c, ...a))) as typeof process.stderr.write;
    restoreLog = () => {
      process.stdout.write = out;
      process.stderr.write = err;
    };
  }, 60_000);

  afterAll(async () => {
    restoreLog();
    await pool?.end();
    await t?.close();
    await wa?.close();
    await tg?.close();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  });

  it('fetches a WhatsApp image with the stream token at the first read, keeps it, and shows it in the timeline', async () => {
    wa.media.set('700001', { bytes: JPEG, mime: 'image/jpeg' });
    const uuid = await waImage('700001', 'wamid.MEDIA1');
    const conv = await until(async () => ((await call('GET', `/inbox/conversations?space=${space}`)).body.items as Json[]).find((c) => c.channel === 'whatsapp'), 'the conversation');
    let timeline = await call('GET', `/inbox/conversation/${conv.conversation_uuid as string}`);
    const pending = (timeline.body.items as Json[]).find((e) => e.message_uuid === uuid);
    expect(pending?.content).toMatchObject({ body: 'my parcel', media: { id: uuid, kind: 'image', pending: true, url: `/api/stream_media/${uuid}` } });

    const first = await media(uuid);
    expect([first.status, first.type]).toEqual([200, 'image/jpeg']);
    expect(first.bytes.equals(JPEG)).toBe(true);
    // the lookup and the download, each with the stream's own token
    expect(wa.mediaRequests.map((r) => [r.path.replace(/\d{6}$/, 'ID'), r.token])).toEqual([
      ['/v21.0/ID', STREAM_TOKEN],
      ['/whatsapp_business/attachments/ID', STREAM_TOKEN],
    ]);
    // kept: the next reads are the inbox's, the provider is not asked again
    expect((await media(uuid)).bytes.equals(JPEG)).toBe(true);
    expect(wa.mediaRequests).toHaveLength(2);
    expect((await call('GET', `/media_info/${uuid}`)).body).toEqual({ id: uuid, kind: 'image', mime: 'image/jpeg', size: JPEG.length, file_name: null, url: `/api/stream_media/${uuid}` });
    timeline = await call('GET', `/inbox/conversation/${conv.conversation_uuid as string}`);
    expect((timeline.body.items as Json[]).find((e) => e.message_uuid === uuid)?.content.media).toEqual({ id: uuid, kind: 'image', mime: 'image/jpeg', size: JPEG.length, file_name: null, url: `/api/stream_media/${uuid}` });
  });

  it('keeps a customer’s file in the background before anyone opens it, retrying through an outage, so it outlives the provider’s copy', async () => {
    const state = mediaState;
    // the Cloud API is down when the message comes: the keeper tries again, with a growing wait, and nobody has opened it
    wa.media.set('700101', { bytes: JPEG, mime: 'image/jpeg', behaviour: 'down' });
    const uuid = await waImage('700101', 'wamid.KEEP1');
    await until(async () => (await state(uuid)).media_attempts >= 2, 'two tries through the outage');
    expect((await state(uuid)).media_state).toBe('pending');
    wa.media.set('700101', { bytes: JPEG, mime: 'image/jpeg' });
    await until(async () => (await state(uuid)).media_state === 'kept', 'kept once the provider is back');
    // the provider's retention is over: its copy is gone, and the first read still gets the file
    wa.media.set('700101', { bytes: JPEG, mime: 'image/jpeg', behaviour: 'gone' });
    const asked = askedFor('700101');
    const first = await media(uuid);
    expect([first.status, first.type, first.bytes.equals(JPEG)]).toEqual([200, 'image/jpeg', true]);
    expect(askedFor('700101')).toBe(asked);

    // several at once: at most keepConcurrency (2) downloads in flight, every file kept
    const files = ['700111', '700112', '700113', '700114', '700115'];
    for (const id of files) wa.media.set(id, { bytes: JPEG, mime: 'image/jpeg', behaviour: 'slow', delayMs: 150 });
    const before = wa.mediaRequests.length;
    const uuids: string[] = [];
    for (const id of files) uuids.push(await waImage(id, `wamid.KEEP-${id}`));
    await until(async () => (await Promise.all(uuids.map(state))).every((r) => r.media_state === 'kept'), 'all kept');
    expect(wa.mediaRequests.slice(before).filter((r) => r.path.startsWith('/whatsapp_business/attachments/'))).toHaveLength(files.length);
    expect(wa.maxDownloadsInFlight).toBeLessThanOrEqual(2);
    // a file over its kind's limit is not downloaded, and marked so
    wa.media.set('700120', { bytes: Buffer.concat([JPEG, Buffer.alloc(5 * 1024 * 1024, 1)]), mime: 'image/jpeg' });
    const big = await waImage('700120', 'wamid.KEEP-BIG');
    await until(async () => (await state(big)).media_state === 'too_large', 'marked too large');
    expect(wa.mediaRequests.some((r) => r.path === '/whatsapp_business/attachments/700120')).toBe(false);
  });

  it('fetches Telegram voice notes, documents and the largest size of a photo through getFile', async () => {
    tg.files.set('voice1', { bytes: OGG });
    const voice = await tgMessage('voice', { file_id: 'voice1', file_unique_id: 'uv1', duration: 3, mime_type: 'audio/ogg', file_size: OGG.length });
    expect((await inboxEvent(voice)).media).toMatchObject({ kind: 'audio', pending: true, mime: 'audio/ogg', size: OGG.length });
    const v = await media(voice);
    expect([v.status, v.type, v.bytes.equals(OGG)]).toEqual([200, 'audio/ogg', true]);

    tg.files.set('doc1', { bytes: PDF });
    const doc = await tgMessage('document', { file_id: 'doc1', file_unique_id: 'ud1', file_name: 'invoice.pdf', mime_type: 'application/pdf', file_size: PDF.length });
    expect((await media(doc)).bytes.equals(PDF)).toBe(true);
    expect((await call('GET', `/media_info/${doc}`)).body).toMatchObject({ kind: 'document', mime: 'application/pdf', file_name: 'invoice.pdf' });

    tg.files.set('photo-small', { bytes: JPEG.subarray(0, 900) });
    tg.files.set('photo-large', { bytes: JPEG });
    const photo = await tgMessage('photo', [
      { file_id: 'photo-small', file_unique_id: 's', width: 90, height: 90, file_size: 900 },
      { file_id: 'photo-large', file_unique_id: 'l', width: 800, height: 800, file_size: JPEG.length },
    ]);
    expect((await media(photo)).bytes.equals(JPEG)).toBe(true);
  });

  it('answers 502 when the provider is too slow, keeps nothing, and fetches it on a later read', async () => {
    wa.media.set('700002', { bytes: JPEG, mime: 'image/jpeg', behaviour: 'slow', delayMs: 10_000 });
    const uuid = await waImage('700002', 'wamid.MEDIA2');
    const slow = await media(uuid);
    expect(slow.status).toBe(502);
    expect(JSON.parse(slow.text)).toMatchObject({ violations: [{ code: 'providerUnavailable' }] });
    expect((await pool.query(`SELECT 1 FROM inbox.media WHERE id = $1`, [uuid])).rowCount).toBe(0);
    expect((await inboxEvent(uuid)).media).toMatchObject({ pending: true });
    wa.media.set('700002', { bytes: JPEG, mime: 'image/jpeg' });
    expect((await media(uuid)).bytes.equals(JPEG)).toBe(true);
  });

  it('answers 404 mediaGone for media the provider no longer has (an unknown id, an expired URL) and does not ask again', async () => {
    wa.media.set('700003', { bytes: JPEG, mime: 'image/jpeg', behaviour: 'gone' });
    const gone = await waImage('700003', 'wamid.MEDIA3');
    const a = await media(gone);
    expect(a.status).toBe(404);
    expect(JSON.parse(a.text)).toMatchObject({ violations: [{ code: 'mediaGone' }] });
    // the background keeper may have asked for the same file at the same time: let it settle (it marks the file gone
    // too), then count this file's requests alone (other tests' keepers may still be retrying theirs)
    await until(async () => (await mediaState(gone)).media_state === 'gone', 'the keeper marks it gone');
    const asked = askedFor('700003');
    expect((await media(gone)).status).toBe(404);
    expect(askedFor('700003')).toBe(asked);
    expect((await inboxEvent(gone)).media).toMatchObject({ unavailable: 'mediaGone' });

    wa.media.set('700004', { bytes: JPEG, mime: 'image/jpeg', behaviour: 'missing' });
    expect((await media(await waImage('700004', 'wamid.MEDIA4'))).status).toBe(404);
    tg.files.set('voice-gone', { bytes: OGG, behaviour: 'gone' });
    expect((await media(await tgMessage('voice', { file_id: 'voice-gone', file_unique_id: 'g', duration: 1 }))).status).toBe(404);
  });

  it('refuses media over the kind’s limit, declared or counted, and bytes that are not the kind’s type; nothing is kept', async () => {
    const big = Buffer.concat([JPEG, Buffer.alloc(5 * 1024 * 1024, 1)]);
    // declared over 5 MB: refused before the download
    wa.media.set('700005', { bytes: big, mime: 'image/jpeg' });
    const declared = await waImage('700005', 'wamid.MEDIA5');
    const a = await media(declared);
    expect(a.status).toBe(413);
    expect(JSON.parse(a.text)).toMatchObject({ violations: [{ code: 'fileTooLarge' }] });
    // looked up (by the keeper or the read), never downloaded
    expect(wa.mediaRequests.filter((r) => r.path.endsWith('700005')).map((r) => r.path)).toContain('/v21.0/700005');
    expect(wa.mediaRequests.some((r) => r.path === '/whatsapp_business/attachments/700005')).toBe(false);
    // no size said and no Content-Length: counted while it comes (stickers: 500 KB at most)
    const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), Buffer.alloc(600 * 1024, 1)]);
    wa.media.set('700006', { bytes: webp, mime: 'image/webp', behaviour: 'understated' });
    const counted = await waImage('700006', 'wamid.MEDIA6', 'sticker');
    expect((await media(counted)).status).toBe(413);
    tg.files.set('big-sticker', { bytes: webp, behaviour: 'understated' });
    expect((await media(await tgMessage('sticker', { file_id: 'big-sticker', file_unique_id: 'b', width: 512, height: 512 }))).status).toBe(413);
    // markup sent as an image
    wa.media.set('700007', { bytes: HTML, mime: 'image/jpeg' });
    const html = await waImage('700007', 'wamid.MEDIA7');
    const b = await media(html);
    expect(b.status).toBe(400);
    expect(JSON.parse(b.text)).toMatchObject({ violations: [{ code: 'invalidMedia' }] });
    expect((await inboxEvent(html)).media).toMatchObject({ unavailable: 'invalidMedia' });
    expect((await pool.query(`SELECT id FROM inbox.media WHERE id = ANY($1::uuid[])`, [[declared, counted, html]])).rowCount).toBe(0);
    const kept = fs.readdirSync(path.join(mediaDir, ACC));
    for (const id of [declared, counted, html]) expect(kept.some((f) => f.includes(id))).toBe(false);
  });

  it('lets only those who see the conversation read it; another account gets 404 from the inbox and from dispatch', async () => {
    wa.media.set('700008', { bytes: JPEG, mime: 'image/jpeg' });
    const uuid = await waImage('700008', 'wamid.MEDIA8');
    // kept by dispatch before anyone reads it: the kept copy is served to its own account only
    await until(async () => (await mediaState(uuid)).media_state === 'kept', 'kept');
    const asked = askedFor('700008');
    // an agent of no team of the space, another account
    expect((await media(uuid, t.token({ sub: '2', acc: ACC, perms: ['INBOX_VIEW'] }))).status).toBe(404);
    expect((await media(uuid, t.token({ sub: '1', acc: '999', perms: [...ALL_PERMISSIONS] }))).status).toBe(404);
    const direct = await fetch(`${t.url}/api/dispatch/inbound_media/${uuid}`, { headers: { authorization: `Bearer ${t.token({ sub: '1', acc: '999', perms: [...ALL_PERMISSIONS] })}` } });
    expect(direct.status).toBe(404);
    expect((await fetch(`${t.url}/api/dispatch/inbound_media/${uuid}`)).status).toBe(401);
    expect(askedFor('700008')).toBe(asked);
    expect((await media(uuid)).status).toBe(200);
  });

  it('never fetches a media URL the provider hands over on a private, link-local or metadata address', async () => {
    wa.media.set('700301', { bytes: JPEG, mime: 'image/jpeg', url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' });
    const metadata = await waImage('700301', 'wamid.PRIVATE1');
    await until(async () => (await mediaState(metadata)).media_state === 'refused', 'refused by the keeper');
    const a = await media(metadata);
    expect(a.status).toBe(502);
    expect(JSON.parse(a.text)).toMatchObject({ violations: [{ code: 'providerUnavailable' }] });
    // a private address the keeper has not refused yet: the read refuses it as well, before any connection
    wa.media.set('700302', { bytes: JPEG, mime: 'image/jpeg', url: 'http://10.0.0.7:9000/bucket/file.jpg' });
    const internal = await waImage('700302', 'wamid.PRIVATE2');
    expect((await media(internal)).status).toBe(502);
    await until(async () => (await mediaState(internal)).media_state === 'refused', 'refused by the keeper');
    expect((await pool.query(`SELECT 1 FROM dispatch.inbound_media_kept WHERE message_uuid = ANY($1::uuid[])`, [[metadata, internal]])).rowCount).toBe(0);
  });

  it('prunes kept bytes past their retention, and the oldest past the total bound; a pruned file is asked of the provider again', async () => {
    const keptRow = (uuid: string) => pool.query(`SELECT size FROM dispatch.inbound_media_kept WHERE message_uuid = $1`, [uuid]).then((r) => r.rowCount);
    // kept two days ago, with one day of retention here
    wa.media.set('700201', { bytes: JPEG, mime: 'image/jpeg' });
    const old = await waImage('700201', 'wamid.PRUNE-OLD');
    await until(async () => (await mediaState(old)).media_state === 'kept', 'kept');
    await pool.query(`UPDATE dispatch.inbound_media_kept SET kept_at = now() - interval '2 days' WHERE message_uuid = $1`, [old]);
    await until(async () => (await mediaState(old)).media_state === 'pruned', 'pruned past its retention');
    expect(await keptRow(old)).toBe(0);
    // the provider still has it: the first read fetches it from there (lookup and download)
    const asked = askedFor('700201');
    const again = await media(old);
    expect([again.status, again.bytes.equals(JPEG)]).toEqual([200, true]);
    expect(askedFor('700201')).toBe(asked + 2);

    // five files of 82 KB against 256 KB in total: the newest three stay, the older ones (and everything before) go
    const file = Buffer.concat([JPEG, Buffer.alloc(80 * 1024, 3)]);
    const uuids: string[] = [];
    for (const id of ['700211', '700212', '700213', '700214', '700215']) {
      wa.media.set(id, { bytes: file, mime: 'image/jpeg' });
      const uuid = await waImage(id, `wamid.PRUNE-${id}`);
      await until(async () => ['kept', 'pruned'].includes((await mediaState(uuid)).media_state), 'kept');
      uuids.push(uuid);
    }
    const total = async () => Number((await pool.query(`SELECT coalesce(sum(size), 0) AS n FROM dispatch.inbound_media_kept`)).rows[0].n);
    await until(async () => (await total()) <= MAX_KEPT, 'within the bound');
    expect((await Promise.all(uuids.map(mediaState))).map((r) => r.media_state)).toEqual(['pruned', 'pruned', 'kept', 'kept', 'kept']);
    expect(await total()).toBe(3 * file.length);
    // a kept file is still served from the copy (the provider's is gone by now)
    wa.media.set('700215', { bytes: file, mime: 'image/jpeg', behaviour: 'gone' });
    const newest = await media(uuids[4]);
    expect([newest.status, newest.bytes.equals(file)]).toEqual([200, true]);
  });

  it('keeps the provider tokens out of events, rows, answers and the log', async () => {
    await settle();
    const dumps: string[] = [...logged, ...dispatched];
    expect(dispatched.length).toBeGreaterThan(5);
    for (const schema of ['inbox', 'dispatch']) dumps.push(...(await pool.query(`SELECT payload::text AS d FROM ${schema}.outbox`)).rows.map((r) => String(r.d)));
    dumps.push(...(await pool.query(`SELECT content::text AS d FROM inbox.event`)).rows.map((r) => String(r.d)));
    dumps.push(...(await pool.query(`SELECT t::text AS d FROM inbox.media t`)).rows.map((r) => String(r.d)));
    expect(dumps.length).toBeGreaterThan(10);
    for (const secret of [STREAM_TOKEN, BOT_TOKEN, BOT_TOKEN.split(':')[1]]) expect(dumps.filter((d) => d.includes(secret))).toEqual([]);
    expect(botUid).not.toBe('');
  });
});
