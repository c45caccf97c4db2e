import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { ALL_PERMISSIONS, InboxConversationClosedV1, MemberChangedV1, MessageReceivedV1, StreamCreatedV1, StreamType, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { InboxModule, InboxOutboxRelay } from '@switchboard/inbox';
import { CLOSE_NOTES_GROUP, CloseNotesConsumer, IntegrationsModule } from '@switchboard/integrations';
import { HubSpotServer, PipedriveServer, plainContacts } from '@switchboard/integrations/testing';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are read field by field

/**
 * An agent closes an inbox conversation; the CRM contact with its number gets a note with the transcript summary
 * (decision 0065): inbox and integrations on one bus with real PostgreSQL, as the embedded server runs them, against
 * a local HubSpot and a local Pipedrive that check each vendor's documented note call.
 */
describe('a note on the CRM contact when an inbox conversation is closed', () => {
  let t: TestApp;
  let pool: Pool;
  let hs: HubSpotServer;
  let pd: PipedriveServer;
  const [ACC, OTHER] = ['81', '82'];
  const AGENT = '8101';
  const STREAM = { id: '8501', uid: randomUUID() };
  const OTHER_STREAM = { id: '8502', uid: randomUUID() };
  const published: EventEnvelope[] = [];
  const keys: Record<string, string> = {};
  let space = 0;

  const token = (acc: string, user = `${acc}01`) => t.token({ sub: user, acc, perms: [...ALL_PERMISSIONS] });
  const call = async (method: string, path: string, body?: unknown, acc = ACC): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${path}`, { method, headers: { authorization: `Bearer ${token(acc)}`, accept: 'application/json', 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const sql = async <R = Json>(text: string, values: unknown[] = []) => (await pool.query(text, values)).rows as R[];
  const bus = () => t.bus as InMemoryEventBus;
  /** Waits (relaying the inbox's outbox, draining the bus) until `ok`; answers the last value read. */
  const until = async <T>(read: () => T | Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> => {
    const deadline = Date.now() + 60_000;
    let v = await read();
    while (!ok(v)) {
      if (Date.now() > deadline) throw new Error(`waited 60 s for ${what}; last seen: ${JSON.stringify(v)}`);
      await t.app.get(InboxOutboxRelay).relay.flush();
      await bus().drain();
      await new Promise((r) => setTimeout(r, 50));
      v = await read();
    }
    return v;
  };
  const hsNotes = () => hs.notes.map((n) => ({ contact: String((n.associations as Array<{ to: { id: string } }>)[0].to.id), text: n.properties.hs_note_body, token: n.token }));
  const mirror = async (key: string, acc: string, externalId: string, phone: string) => {
    const [row] = await sql<{ id: string }>(`SELECT id FROM integrations.integration WHERE key = $1`, [key]);
    await sql(
      `INSERT INTO integrations.crm_contact (integration_id, account_id, external_id, phone, first_name, last_name, email, fields, hash, seen_sync, updated_at) VALUES ($1, $2, $3, $4, 'Max', 'Mustermann', NULL, '{}', 'h', NULL, now())`,
      [row.id, acc, externalId, phone],
    );
  };
  const receive = async (acc: string, stream: { id: string; uid: string }, from: string, body: string) => {
    await bus().publish([
      createEnvelope(
        MessageReceivedV1,
        { messageUuid: randomUUID(), accountId: acc, streamId: stream.id, streamUid: stream.uid, streamType: StreamType.TwoWay, channel: 'sms', accountPhone: '+4915100000009', contactPhone: from, contactName: null, messageType: 'text', body, media: null, receivedAt: new Date().toISOString() },
        { source: 'dispatch', accountId: acc },
      ),
    ]);
    await bus().drain();
  };
  const conversation = async (acc: string, phone: string) =>
    until(async () => (await sql<{ uuid: string }>(`SELECT uuid::text FROM inbox.conversation WHERE account_id = $1 AND contact_phone = $2`, [acc, phone]))[0], (c) => !!c, `the conversation with ${phone}`);
  const close = async (acc: string, uuid: string) => {
    const r = await call('POST', '/inbox/bulk_set_status', { conversation_uuids: [uuid], status: 'closed' }, acc);
    expect(r.status).toBe(200);
  };
  const closeNoteDeadLetters = () => sql(`SELECT event_id, error FROM integrations.dead_letter WHERE group_name = $1`, [CLOSE_NOTES_GROUP]);

  beforeAll(async () => {
    hs = await new HubSpotServer('hs-client', 'hs-secret-value', () => Date.now()).start();
    pd = await new PipedriveServer('pd-client', 'pd-client-secret', () => Date.now()).start();
    // the contacts the vendors know (their note calls refuse any other): HubSpot 1000 to 1029, Pipedrive 5000 to 5009
    hs.addContacts(30);
    pd.contacts = plainContacts(10, '2026-03-01T00:00:00.000Z');
    t = await createTestApp(() => ({
      imports: [
        InboxModule.register({}),
        IntegrationsModule.register({
          secret: 'close-notes-test-secret',
          appUrl: 'http://console.test',
          allowPrivateUrls: true,
          pollMs: 0,
          endpoints: { hubspot: { apiUrl: hs.url }, pipedrive: { apiUrl: pd.url, authorizeUrl: `${pd.url}/oauth/authorize`, tokenUrl: `${pd.url}/oauth/token` } },
        }),
      ],
    }));
    const original = bus().publish.bind(bus());
    bus().publish = async (events) => {
      published.push(...(events as EventEnvelope[]).filter((e) => e.type === InboxConversationClosedV1.type));
      return original(events);
    };
    pool = new Pool({ connectionString: t.db.url, max: 2 });
    const member = (acc: string, userId: string) =>
      createEnvelope(
        MemberChangedV1,
        { accountId: acc, userId, email: `u${userId}@example.com`, firstName: 'Ann', lastName: 'Agent', status: 1, platformRole: null, inboxRole: { id: '50', name: 'Inbox Admin' }, permissions: ALL_PERMISSIONS.filter((p) => p.startsWith('INBOX_')), removed: false },
        { source: 'auth', accountId: acc },
      );
    const stream = (acc: string, s: { id: string; uid: string }) =>
      createEnvelope(
        StreamCreatedV1,
        { streamId: s.id, accountId: acc, streamUid: s.uid, name: `stream ${s.id}`, streamType: StreamType.TwoWay, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: new Date().toISOString() },
        { source: 'streams', accountId: acc },
      );
    await bus().publish([member(ACC, AGENT), member(OTHER, `${OTHER}01`), stream(ACC, STREAM), stream(OTHER, OTHER_STREAM)]);
    await bus().drain();
    for (const [acc, s] of [[ACC, STREAM], [OTHER, OTHER_STREAM]] as const) {
      space = (await call('POST', '/spaces', { name: 'Support' }, acc)).body.id;
      await call('POST', '/teams', { name: 'Desk', space, agents: [Number(`${acc}01`)] }, acc);
      expect((await call('POST', '/incoming_routings', { name: 'all sms', stream: s.uid, senders: [], space }, acc)).status).toBe(201);
    }
    // account 81: HubSpot (notes on close, the default) and Pipedrive (switched off); account 82: HubSpot
    for (const [name, acc, body] of [
      ['hubspot', ACC, { type: 'hubspot', apiKey: 'pat-na1-valid' }],
      ['pipedrive', ACC, { type: 'pipedrive', apiKey: 'valid-key' }],
      ['other', OTHER, { type: 'hubspot', apiKey: 'pat-na1-valid' }],
    ] as const) {
      const r = await call('POST', '/integration_keys', body, acc);
      expect(r.status).toBe(201);
      keys[name] = r.body.key as string;
    }
    const off = await call('POST', `/integration_config/${keys.pipedrive}`, { import_users: { type: 'admins' }, note_on_close: false });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ note_on_close: false });
    expect((await call('GET', `/integration_config/${keys.hubspot}`)).body.data).toMatchObject({ note_on_close: true });
    // the mirrors: both of account 81's integrations synced +44 7922 000004 (HubSpot as two contacts); 82's HubSpot too
    await mirror(keys.hubspot, ACC, '1004', '+447922000004');
    await mirror(keys.hubspot, ACC, '1014', '+44 7922 000004');
    await mirror(keys.pipedrive, ACC, '5004', '+447922000004');
    await mirror(keys.other, OTHER, '1024', '+447922000004');
    await mirror(keys.hubspot, ACC, '1005', '+447922000005');
    await mirror(keys.hubspot, ACC, '1006', '+447922000006');
    await mirror(keys.hubspot, ACC, '1999', '+447922000006');
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await t?.close();
    await hs?.stop();
    await pd?.stop();
  }, 150_000);

  it('writes the transcript summary on every contact of that number in the integrations that synced it, once', async () => {
    await receive(ACC, STREAM, '+447922000004', 'Where is my parcel?');
    await receive(ACC, STREAM, '+447922000004', 'It was due on Monday.');
    const c = await conversation(ACC, '+447922000004');
    await close(ACC, c.uuid);
    const notes = await until(hsNotes, (n) => n.length >= 2, 'two HubSpot notes');
    expect(notes.map((n) => n.contact).sort()).toEqual(['1004', '1014']);
    for (const n of notes) {
      expect(n.token).toBe('pat-na1-valid');
      expect(n.text).toMatch(/^Inbox conversation closed by Ann Agent on \d{4}-\d\d-\d\d \d\d:\d\d UTC \(SMS, \+447922000004\)\.\nLast messages:\n/);
      expect(n.text).toMatch(/UTC Contact: Where is my parcel\?\n.* UTC Contact: It was due on Monday\.$/);
    }
    // HubSpot's documented note: hs_note_body, hs_timestamp, the note-to-contact association (the server checks the rest)
    expect(hs.notes[0].properties.hs_timestamp).toBe(published[0].data && (published[0].data as Json).closedAt);
    expect(published.map((e) => [e.accountId, (e.data as Json).conversationUuid, (e.data as Json).closedBy])).toEqual([[ACC, c.uuid, { userId: AGENT, name: 'Ann Agent' }]]);
    // Pipedrive's switch is off; the other account's HubSpot has the number too, and gets nothing
    expect(pd.notes).toEqual([]);
    expect(hsNotes().filter((n) => n.contact === '1024')).toEqual([]);
    await until(() => sql(`SELECT 1 FROM integrations.processed_events WHERE consumer = $1`, [CLOSE_NOTES_GROUP]), (r) => r.length === 1, 'the claimed event');

    // delivered again (a redelivery after a rebalance): nothing more
    await t.app.get(CloseNotesConsumer).handle(published[0]);
    expect(hsNotes().length).toBe(2);
    expect(await sql(`SELECT count(*)::int AS n FROM integrations.close_note`)).toEqual([{ n: 0 }]);
  }, 150_000);

  it('acts only for the event\'s own account: a forged envelope or another account\'s close writes nothing', async () => {
    const before = hsNotes().length;
    // another account closes a conversation with the same number: only its own integration (2004) is looked at
    await receive(OTHER, OTHER_STREAM, '+447922000004', 'Hello from 82');
    const c = await conversation(OTHER, '+447922000004');
    await close(OTHER, c.uuid);
    const mine = await until(hsNotes, (n) => n.length > before, 'account 82\'s note');
    expect(mine.slice(before).map((n) => n.contact)).toEqual(['1024']);
    // a forged event: 82's envelope naming 81's data, and the reverse; published and handled directly
    const data = { ...(published[0].data as Json), conversationUuid: randomUUID() };
    const forged = [createEnvelope(InboxConversationClosedV1, data as never, { source: 'inbox', accountId: OTHER }), createEnvelope(InboxConversationClosedV1, { ...data, accountId: OTHER } as never, { source: 'inbox', accountId: ACC })];
    for (const e of forged) await t.app.get(CloseNotesConsumer).handle(e);
    await bus().publish(forged);
    await bus().drain();
    expect(hsNotes().length).toBe(before + 1);
    expect(await closeNoteDeadLetters()).toEqual([]);
  }, 150_000);

  it('retries a vendor outage until the notes are written (a pause, no dead letter, no note twice)', async () => {
    const before = hsNotes().length;
    await receive(ACC, STREAM, '+447922000005', 'Are you open on Sunday?');
    const c = await conversation(ACC, '+447922000005');
    // more failures than the 4 attempts a failing event gets before its dead letter: only a pause outlasts them
    hs.failNext(6, 503);
    await close(ACC, c.uuid);
    const notes = await until(hsNotes, (n) => n.length > before, 'the note after the outage');
    expect(notes.slice(before).map((n) => n.contact)).toEqual(['1005']);
    expect(notes[notes.length - 1].text).toMatch(/Contact: Are you open on Sunday\?$/);
    await until(() => sql(`SELECT 1 FROM integrations.processed_events WHERE consumer = $1`, [CLOSE_NOTES_GROUP]), (r) => r.length === 3, 'the claimed event');
    expect(hsNotes().length).toBe(before + 1);
    expect(await closeNoteDeadLetters()).toEqual([]);
  }, 150_000);

  it('dead-letters a note the vendor refuses for good, after writing the others of the event once', async () => {
    const before = hsNotes().length;
    await receive(ACC, STREAM, '+447922000006', 'Please call me back.');
    const c = await conversation(ACC, '+447922000006');
    await close(ACC, c.uuid);
    // the mirror's 1999 is gone from HubSpot (its note call answers 400 "No contact with id 1999 exists")
    const dead = await until(closeNoteDeadLetters, (r) => r.length === 1, 'the dead letter');
    expect(dead[0].error).toMatch(/contact 1999: .* answered 400/);
    expect(dead[0].error).not.toMatch(/pat-na1|Bearer/);
    // 1006 has its note once, although the event was tried again before it was dead-lettered
    expect(hsNotes().slice(before).map((n) => n.contact)).toEqual(['1006']);
  }, 150_000);
});
