import { randomUUID } from 'node:crypto';
import { MemberChangedV1, RoleChangedV1, StreamCreatedV1, StreamDeletedV1, StreamType } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { startInbox, type InboxTestApp } from './support';

const member = (accountId: string, userId: string, o: Partial<{ inboxRole: { id: string; name: string } | null; permissions: string[]; removed: boolean; firstName: string }> = {}) =>
  createEnvelope(
    MemberChangedV1,
    {
      accountId,
      userId,
      email: `u${userId}@example.com`,
      firstName: o.firstName ?? 'Ann',
      lastName: 'Lee',
      status: 1,
      platformRole: null,
      inboxRole: o.inboxRole === undefined ? { id: '50', name: 'Inbox Agent' } : o.inboxRole,
      permissions: o.permissions ?? ['INBOX_VIEW'],
      removed: o.removed ?? false,
    },
    { source: 'auth', accountId },
  );

/** The inbox's copies of auth's members and roles and of streams' streams, fed by their events. */
describe('inbox read models', () => {
  let app: InboxTestApp;

  beforeAll(async () => {
    app = await startInbox();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it('creates the schema with its outbox, processed events and dead letters', async () => {
    const tables = (await app.sql<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'inbox'`)).map((r) => r.table_name);
    expect(tables).toEqual(
      expect.arrayContaining([
        'space', 'team', 'team_agent', 'space_permission', 'agent', 'role', 'stream', 'conversation_tag', 'sender_profile', 'canned_template',
        'conversation_goal', 'conversation_goal_team', 'incoming_routing', 'contact', 'conversation', 'event', 'media', 'room_event', 'room_seq',
        'outbox', 'processed_events', 'dead_letter',
      ]),
    );
  });

  it('keeps agents as auth announces them, once per event, and a role change reaches its holders', async () => {
    const first = member('7', '11');
    await app.publish([first, member('7', '12', { firstName: 'Bob' }), member('8', '11')]);
    // the same event again changes nothing
    await app.publish([{ ...first, data: { ...first.data, firstName: 'Changed' } }]);
    let agents = await app.sql(`SELECT account_id::text, user_id::text, first_name, inbox_role_name, permissions FROM inbox.agent WHERE account_id = 7 ORDER BY user_id`);
    expect(agents).toEqual([
      { account_id: '7', user_id: '11', first_name: 'Ann', inbox_role_name: 'Inbox Agent', permissions: ['INBOX_VIEW'] },
      { account_id: '7', user_id: '12', first_name: 'Bob', inbox_role_name: 'Inbox Agent', permissions: ['INBOX_VIEW'] },
    ]);

    await app.publish([
      createEnvelope(RoleChangedV1, { roleId: '50', accountId: '7', name: 'Agents', roleType: 'inbox', permissions: ['INBOX_VIEW', 'INBOX_ASSIGN'], readOnly: false, isDeleted: false }, { source: 'auth', accountId: '7' }),
    ]);
    agents = await app.sql(`SELECT user_id::text, inbox_role_name, permissions FROM inbox.agent WHERE account_id = 7 ORDER BY user_id`);
    expect(agents.map((a) => [a.user_id, a.inbox_role_name, [...a.permissions].sort()])).toEqual([
      ['11', 'Agents', ['INBOX_ASSIGN', 'INBOX_VIEW']],
      ['12', 'Agents', ['INBOX_ASSIGN', 'INBOX_VIEW']],
    ]);
    // the other account's member with the same user id is untouched
    expect(await app.sql(`SELECT inbox_role_name FROM inbox.agent WHERE account_id = 8`)).toEqual([{ inbox_role_name: 'Inbox Agent' }]);

    await app.publish([member('7', '12', { removed: true })]);
    expect(await app.sql(`SELECT removed FROM inbox.agent WHERE account_id = 7 AND user_id = 12`)).toEqual([{ removed: true }]);
  });

  it('keeps streams, an older snapshot never overwriting a newer one, and marks deleted ones', async () => {
    const uid = randomUUID();
    const snap = (name: string, updatedAt: string) =>
      createEnvelope(
        StreamCreatedV1,
        { streamId: '31', accountId: '7', streamUid: uid, name, streamType: StreamType.WhatsApp, status: 0, staticServiceType: null, sender: '1555', enableSending: true, isDefault: false, tps: 0, updatedAt },
        { source: 'streams', accountId: '7' },
      );
    await app.publish([snap('WA new', '2026-01-02T00:00:00Z')]);
    await app.publish([snap('WA old', '2026-01-01T00:00:00Z')]);
    expect(await app.sql(`SELECT name, stream_type, deleted FROM inbox.stream WHERE stream_id = 31`)).toEqual([{ name: 'WA new', stream_type: StreamType.WhatsApp, deleted: false }]);
    await app.publish([createEnvelope(StreamDeletedV1, { streamId: '31', accountId: '7', streamUid: uid }, { source: 'streams', accountId: '7' })]);
    expect(await app.sql(`SELECT deleted, enable_sending FROM inbox.stream WHERE stream_id = 31`)).toEqual([{ deleted: true, enable_sending: false }]);
  });
});
