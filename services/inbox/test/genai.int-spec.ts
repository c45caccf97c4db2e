import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { genAiContextBinding, InboxSpaceAccessChangedV1, StreamType, type GenAiConversationContext } from '@switchboard/contracts';
import { ProviderSecrets } from '@switchboard/platform';
import { ManualClock } from '../src';
import { SpaceAccess1797350000000 } from '../src/migrations/1797350000000-space-access';
import { fakeStreams, INBOX_PERMISSIONS, memberEvent, received, startInbox, streamEvent, type InboxTestApp, type Json } from './support';

const KEY = 'genai-context-key-for-tests';

/**
 * The inbox's side of generative AI (docs/decisions/0041): the sealed conversation context for `inbox/respond` and
 * `genai/team_goals`, with their permission and isolation matrices.
 */
describe('inbox generative AI hand-over', () => {
  let app: InboxTestApp;
  const clock = new ManualClock(new Date('2026-11-25T10:00:00Z'));
  const uid = randomUUID();
  const uid2 = randomUUID();
  let admin: string;
  let space = 0;
  let teamA = 0;
  let goalA = 0;
  let goalB = 0;
  let goalAll = 0;
  let goalOther = 0;
  let convA = '';
  let convOther = '';
  const open = (accountId: string, conv: string, sealed: string): GenAiConversationContext => JSON.parse(new ProviderSecrets(KEY).open(genAiContextBinding(accountId, conv), sealed).ctx);
  const AGENT = ['INBOX_VIEW', 'INBOX_AI_ASSISTANT'];

  beforeAll(async () => {
    app = await startInbox({ clock, sendWaitMs: 2000, genAiContextKey: KEY });
    await fakeStreams(app.bus, { fn: () => ({ outcome: 'accepted' }) });
    admin = app.token('1', '100', INBOX_PERMISSIONS);
    await app.publish([memberEvent('1', '11'), memberEvent('1', '12'), memberEvent('1', '100'), memberEvent('2', '200'), streamEvent('1', '501', StreamType.TwoWay, { uid }), streamEvent('2', '601', StreamType.TwoWay, { uid: uid2 })]);
    const post = (p: string, body: unknown, token = admin) => app.call('POST', p, { body, token });
    space = (await post('/spaces', { name: 'Support' })).body.id;
    teamA = (await post('/teams', { name: 'A', space, agents: [11] })).body.id;
    const teamB = (await post('/teams', { name: 'B', space, agents: [12] })).body.id;
    await post('/incoming_routings', { name: 'all', stream: uid, team: teamA, space });
    goalA = (await post('/conversation_goals', { name: 'Upsell', text: 'Offer the yearly plan', teams: [`/api/teams/${teamA}`], space })).body.id;
    goalB = (await post('/conversation_goals', { name: 'Retain', text: 'Keep them', teams: [`/api/teams/${teamB}`], space })).body.id;
    goalAll = (await post('/conversation_goals', { name: 'Book', text: 'Book a call', space })).body.id;
    const admin2 = app.token('2', '200', INBOX_PERMISSIONS);
    const space2 = (await post('/spaces', { name: 'Other' }, admin2)).body.id;
    await post('/teams', { name: 'X', space: space2, agents: [200] }, admin2);
    await post('/incoming_routings', { name: 'all', stream: uid2, space: space2 }, admin2);
    goalOther = (await post('/conversation_goals', { name: 'Theirs', text: 'secret goal', space: space2 }, admin2)).body.id;

    const msgs = [];
    for (let i = 1; i <= 14; i++) msgs.push(received({ accountId: '1', streamId: '501', streamUid: uid, streamType: StreamType.TwoWay, channel: 'sms', to: '+4915100000009', from: '+4917600000001', body: `message ${i}`, name: 'Anna Secret', at: new Date(clock.now().getTime() + i * 1000) }));
    msgs.push(received({ accountId: '2', streamId: '601', streamUid: uid2, streamType: StreamType.TwoWay, channel: 'sms', to: '+4915100000010', from: '+4917600000002', body: 'other account', at: clock.now() }));
    await app.publish(msgs);
    convA = (await app.sql(`SELECT uuid::text FROM inbox.conversation WHERE account_id = 1`))[0].uuid;
    convOther = (await app.sql(`SELECT uuid::text FROM inbox.conversation WHERE account_id = 2`))[0].uuid;
    clock.set(new Date('2026-11-25T10:01:00Z'));
    expect((await app.call('POST', `/inbox/simple_send/${convA}`, { body: { messages: [{ text: 'How can I help?' }] }, token: app.token('1', '11', ['INBOX_VIEW', 'INBOX_INCOMING_RESPONSE', 'MESSAGE_INCOMING_RESPONSE']) })).status).toBeLessThan(300);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it('hands over the goal and the last messages as text only, sealed to the account and conversation', async () => {
    const r = await app.call('POST', `/inbox/ai_context/${convA}`, { body: { conversation_goal_id: goalA }, token: app.token('1', '11', AGENT) });
    expect(r.status).toBe(200);
    expect(r.body.context).not.toContain('message');
    const ctx = open('1', convA, r.body.context);
    // and the conversation's space, where the integrations service checks the assistant again at every call (0063)
    expect(ctx).toMatchObject({ accountId: '1', conversationUuid: convA, goalId: goalA, goalName: 'Upsell', goalText: 'Offer the yearly plan', spaceId: String(space) });
    expect(ctx.messages).toHaveLength(12);
    // oldest first, ending with the agent's reply; no name or phone of the contact anywhere
    expect(ctx.messages[10]).toEqual({ from: 'contact', text: 'message 14' });
    expect(ctx.messages[11]).toEqual({ from: 'agent', text: 'How can I help?' });
    expect(JSON.stringify(ctx)).not.toMatch(/Anna|4917600000001/);
    expect(ctx.expiresAt).toBe(new Date('2026-11-25T10:03:00Z').getTime());
    // bound: it does not open for another conversation or account
    expect(() => open('2', convA, r.body.context)).toThrow();
    expect(() => open('1', convOther, r.body.context)).toThrow();
    // a goal for everyone works too
    expect((await app.call('POST', `/inbox/ai_context/${convA}`, { body: { conversation_goal_id: `/api/conversation_goals/${goalAll}` }, token: app.token('1', '11', AGENT) })).status).toBe(200);
  });

  it('refuses goals of other teams and accounts, conversations the agent does not see, and callers without the AI permission', async () => {
    const ctx = (token: string, conv: string, goal: unknown) => app.call('POST', `/inbox/ai_context/${conv}`, { body: { conversation_goal_id: goal }, token });
    const a11 = app.token('1', '11', AGENT);
    expect((await ctx(a11, convA, goalB)).body).toMatchObject({ code: '0x1', violations: [{ propertyPath: 'conversation_goal_id' }] });
    expect((await ctx(a11, convA, goalOther)).status).toBe(400);
    expect((await ctx(a11, convA, 'x')).status).toBe(400);
    // agent 12 is not in team A: the conversation does not exist for them
    expect((await ctx(app.token('1', '12', AGENT), convA, goalAll)).status).toBe(404);
    // another account's conversation
    expect((await ctx(a11, convOther, goalAll)).status).toBe(404);
    expect((await ctx(app.token('2', '200', INBOX_PERMISSIONS), convA, goalAll)).status).toBe(404);
    // the permission: missing in the role, or taken away in the space
    expect((await ctx(app.token('1', '11', ['INBOX_VIEW']), convA, goalA)).status).toBe(403);
    await app.call('PUT', `/inbox/space/${space}`, { body: { update_permissions: { '11': { INBOX_AI_ASSISTANT: false } } }, token: admin });
    const taken = await ctx(a11, convA, goalA);
    await app.call('PUT', `/inbox/space/${space}`, { body: { update_permissions: { '11': { INBOX_AI_ASSISTANT: true } } }, token: admin });
    expect(taken.status).toBe(403);
    expect((await ctx(a11, convA, goalA)).status).toBe(200);
    // no token at all
    expect((await app.call('POST', `/inbox/ai_context/${convA}`, { body: { conversation_goal_id: goalA } })).status).toBe(401);
  });

  it('lists the goals an agent may aim at on genai/team_goals, and creates goals with the goals permission', async () => {
    const names = (r: { body: Json }) => (r.body.items as Json[]).map((g) => g.name).sort();
    expect(names(await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('1', '11', AGENT) }))).toEqual(['Book', 'Upsell']);
    expect(names(await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('1', '12', AGENT) }))).toEqual(['Book', 'Retain']);
    // the assistant's goals are for callers holding the assistant in the space: not in the role, or taken away there
    expect((await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('1', '11', ['INBOX_VIEW']) })).status).toBe(403);
    await app.call('PUT', `/inbox/space/${space}`, { body: { update_permissions: { '11': { INBOX_AI_ASSISTANT: false } } }, token: admin });
    const taken = await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('1', '11', AGENT) });
    await app.call('PUT', `/inbox/space/${space}`, { body: { update_permissions: { '11': [] } }, token: admin });
    expect(taken.body).toMatchObject({ status: 403, message: 'missing permission in this space: INBOX_AI_ASSISTANT' });
    expect((await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('1', '12', AGENT) })).status).toBe(200);
    expect(names(await app.call('GET', `/genai/team_goals?space=${space}`, { token: admin }))).toEqual(['Book', 'Retain', 'Upsell']);
    // another account's space is not found; no INBOX_VIEW is 403
    expect((await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('2', '200', INBOX_PERMISSIONS) })).status).toBe(404);
    expect((await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('1', '11', ['INBOX_AI_ASSISTANT']) })).status).toBe(403);
    const body = { name: 'Renew', text: 'Ask about renewal', teams: [`/api/teams/${teamA}`], space };
    expect((await app.call('POST', '/genai/team_goals', { body, token: app.token('1', '11', ['INBOX_VIEW']) })).status).toBe(403);
    const made = await app.call('POST', '/genai/team_goals', { body, token: admin });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'Renew', teams: [`/api/teams/${teamA}`] });
    expect(names(await app.call('GET', `/genai/team_goals?space=${space}`, { token: app.token('1', '11', AGENT) }))).toEqual(['Book', 'Renew', 'Upsell']);
  });

  it('publishes who may use the assistant in which space on every change of spaces, team members and space permissions', async () => {
    const latest = async (accountId: string) =>
      (await app.sql(`SELECT payload FROM inbox.outbox WHERE type = 'inbox.space_access.changed' AND key = $1 ORDER BY id DESC LIMIT 1`, [accountId]))[0]?.payload as Json;
    const spaceOf = (p: Json, id: number) => (p.data.spaces as Json[]).find((x) => x.spaceId === String(id));
    expect(spaceOf(await latest('1'), space)).toEqual({ spaceId: String(space), members: ['11', '12'], aiRefused: [] });
    expect((await latest('1')).accountId).toBe('1');
    await app.call('PUT', `/inbox/space/${space}`, { body: { update_permissions: { '12': { INBOX_AI_ASSISTANT: false, INBOX_ASSIGN: true } } }, token: admin });
    expect(spaceOf(await latest('1'), space)).toMatchObject({ aiRefused: ['12'] });
    const extra = (await app.call('POST', '/spaces', { body: { name: 'Sales' }, token: admin })).body.id as number;
    const team = (await app.call('POST', '/teams', { body: { name: 'S', space: extra, agents: [11] }, token: admin })).body.id as number;
    expect(spaceOf(await latest('1'), extra)).toEqual({ spaceId: String(extra), members: ['11'], aiRefused: [] });
    await app.call('DELETE', `/teams/${team}`, { token: admin });
    expect(spaceOf(await latest('1'), extra)).toEqual({ spaceId: String(extra), members: [], aiRefused: [] });
    await app.call('DELETE', `/spaces/${extra}`, { token: admin });
    expect(spaceOf(await latest('1'), extra)).toBeUndefined();
    // a member removed from the account leaves the spaces
    await app.publish([memberEvent('1', '12', { removed: true })]);
    expect(spaceOf(await latest('1'), space)).toMatchObject({ members: ['11'] });
    // each account's snapshot holds its own spaces only
    expect(((await latest('2')).data.spaces as Json[]).map((x) => x.spaceId)).not.toContain(String(space));
    await app.publish([memberEvent('1', '12')]);
    await app.call('PUT', `/inbox/space/${space}`, { body: { update_permissions: { '12': [] } }, token: admin });

    // the migration publishes the first snapshot of accounts that had spaces before: the same shape, valid envelopes
    const published: Record<string, Json> = { '1': (await latest('1')).data, '2': (await latest('2')).data };
    const before = Number((await app.sql(`SELECT max(id) AS id FROM inbox.outbox`))[0].id);
    await new SpaceAccess1797350000000().up({ query: (q: string) => app.sql(q) } as unknown as QueryRunner);
    const made = (await app.sql(`SELECT key, payload FROM inbox.outbox WHERE id > $1 ORDER BY key`, [before])) as Json[];
    expect(made.map((r) => r.key)).toEqual(['1', '2']);
    for (const r of made) {
      expect(r.payload).toMatchObject({ type: InboxSpaceAccessChangedV1.type, version: 1, source: 'inbox', accountId: r.key, key: r.key });
      expect(InboxSpaceAccessChangedV1.schema.parse(r.payload.data)).toEqual(published[r.key as string]);
    }
  });

  it('says so when the installation has no context key', async () => {
    const bare = await startInbox({});
    try {
      await bare.publish([memberEvent('1', '100')]);
      const tok = bare.token('1', '100', INBOX_PERMISSIONS);
      const sp = (await bare.call('POST', '/spaces', { body: { name: 'S' }, token: tok })).body.id;
      await bare.call('POST', '/teams', { body: { name: 'T', space: sp, agents: [100] }, token: tok });
      await bare.publish([streamEvent('1', '501', StreamType.TwoWay, { uid })]);
      await bare.call('POST', '/incoming_routings', { body: { name: 'all', stream: uid, space: sp }, token: tok });
      await bare.publish([received({ accountId: '1', streamId: '501', streamUid: uid, streamType: StreamType.TwoWay, channel: 'sms', to: '+4915100000009', from: '+4917600000001', body: 'hi' })]);
      const conv = (await bare.sql(`SELECT uuid::text FROM inbox.conversation`))[0].uuid;
      const g = (await bare.call('POST', '/conversation_goals', { body: { name: 'G', text: 'g', space: sp }, token: tok })).body.id;
      const r = await bare.call('POST', `/inbox/ai_context/${conv}`, { body: { conversation_goal_id: g }, token: tok });
      expect(r.body).toMatchObject({ code: 'E-GENAI_NOT_CONFIGURED', status: 503 });
    } finally {
      await bare.close();
    }
  });
});
