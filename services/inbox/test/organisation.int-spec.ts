import { randomUUID } from 'node:crypto';
import { StreamType } from '@switchboard/contracts';
import { INBOX_PERMISSIONS, memberEvent, startInbox, streamEvent, type InboxTestApp, type Json } from './support';

/**
 * The organisation (spec 3 and 6): spaces, teams, agents, tags, sender profiles, canned templates, goals and incoming
 * routing; switching space; agents see only their own spaces and teams; every route checks its permission and the
 * tenant.
 */
describe('inbox organisation', () => {
  let app: InboxTestApp;
  let admin: string;
  const streamUid = randomUUID();

  beforeAll(async () => {
    app = await startInbox();
    admin = app.token('1', '100', INBOX_PERMISSIONS);
    await app.publish([memberEvent('1', '11'), memberEvent('1', '12'), memberEvent('1', '13'), memberEvent('2', '21'), streamEvent('1', '501', StreamType.TwoWay, { uid: streamUid }), streamEvent('2', '601', StreamType.TwoWay)]);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const post = (path: string, body: unknown, token = admin) => app.call('POST', path, { body, token });

  it('sets up a space with teams, tags, profiles, templates, goals and routing, and switching space returns them', async () => {
    const space = await post('/spaces', { name: 'Support', description: 'Customer care' });
    expect(space.status).toBe(201);
    expect(space.body).toMatchObject({ key: 'support', name: 'Support', settings: { configured: false, configuredRequired: true }, teams: [] });
    const sid = space.body.id as number;
    const team = await post('/teams', { name: 'First line', space: `/api/spaces/${sid}`, agents: ['/api/agents/11', '/api/agents/12'], managers: ['/api/agents/12'] });
    expect(team.status).toBe(201);
    expect(team.body).toMatchObject({ key: 'first-line', agents: ['/api/agents/11', '/api/agents/12'], managers: [12], space: `/api/spaces/${sid}` });
    const other = await post('/teams', { name: 'Second line', space: sid, agents: ['/api/agents/13'] });
    expect(other.status).toBe(201);
    expect((await post('/conversation_tags', { name: 'VIP', space: sid })).status).toBe(201);
    expect((await post('/sender_profiles', { name: 'Main', stream: streamUid, senders: ['+4915100000000'], space: sid })).body).toMatchObject({ stream: streamUid, senders: ['+4915100000000'] });
    expect((await post('/canned_templates', { name: 'Greeting', templateKey: 'greeting', text: 'Hello {name}', space: sid })).status).toBe(201);
    expect((await post('/conversation_goals', { name: 'Upsell', text: 'Offer the yearly plan', teams: [`/api/teams/${team.body.id}`] })).body).toMatchObject({ goalKey: 'upsell', space: `/api/spaces/${sid}`, teams: [`/api/teams/${team.body.id}`] });
    expect((await post('/incoming_routings', { name: 'Two-way', stream: streamUid, team: `/api/teams/${team.body.id}`, senders: [], space: sid })).body).toMatchObject({ stream: streamUid, team: `/api/teams/${team.body.id}` });

    const switched = await post('/inbox/space', { space: `/api/spaces/${sid}` });
    expect(switched.status).toBe(200);
    expect(switched.body.room).toBe(`space:${sid}`);
    expect((switched.body.teams as Json[]).map((t) => t.name).sort()).toEqual(['First line', 'Second line']);
    expect((switched.body.agents as Json[]).map((a) => a.id).sort()).toEqual([11, 12, 13]);
    expect(switched.body.conversation_tags).toEqual([expect.objectContaining({ name: 'VIP' })]);
    expect(switched.body.sender_profiles).toHaveLength(1);
    expect(switched.body.canned_templates).toEqual([expect.objectContaining({ templateKey: 'greeting' })]);
    expect(switched.body.conversation_goals).toHaveLength(1);
    expect(switched.body.update_permissions).toEqual({});
    expect((await app.call('GET', `/spaces/${sid}`, { token: admin })).body.teams).toHaveLength(2);
  });

  it('shows an agent only their own spaces and teams, and a space they are not in is refused', async () => {
    const a = await post('/spaces', { name: 'Sales' });
    const b = await post('/spaces', { name: 'Billing' });
    const ta = await post('/teams', { name: 'Sellers', space: a.body.id, agents: [11] });
    await post('/teams', { name: 'Billers', space: b.body.id, agents: [13] });
    const agent11 = app.token('1', '11', ['INBOX_VIEW']);
    const spaces = await app.call('GET', '/spaces', { token: agent11 });
    expect((spaces.body.items as Json[]).map((s) => s.name)).toContain('Sales');
    expect((spaces.body.items as Json[]).map((s) => s.name)).not.toContain('Billing');
    const teams = await app.call('GET', `/teams?space=${a.body.id}`, { token: agent11 });
    expect((teams.body.items as Json[]).map((t) => t.id)).toEqual([ta.body.id]);
    expect((await post('/inbox/space', { space: b.body.id }, agent11)).status).toBe(403);
    expect((await app.call('GET', `/spaces/${b.body.id}`, { token: agent11 })).status).toBe(403);
    // with the team view permission an agent sees every team of their spaces, still not other spaces
    const viewer = app.token('1', '11', ['INBOX_VIEW', 'INBOX_TEAM_VIEW']);
    expect((await app.call('GET', `/teams?space=${b.body.id}`, { token: viewer })).body.items).toEqual([]);
  });

  it('honours per-space update_permissions: a permission taken away in a space is refused there only', async () => {
    const s = await post('/spaces', { name: 'Restricted' });
    await post('/teams', { name: 'R', space: s.body.id, agents: [12] });
    const put = await app.call('PUT', `/inbox/space/${s.body.id}`, { body: { update_permissions: { '12': { INBOX_ASSIGN: false } } }, token: admin });
    expect(put.status).toBe(200);
    const agent = app.token('1', '12', ['INBOX_VIEW', 'INBOX_ASSIGN']);
    expect((await post('/inbox/space', { space: s.body.id }, agent)).body.update_permissions).toEqual({ INBOX_ASSIGN: false });
    // spec 6: an empty array means an empty object
    await app.call('PUT', `/inbox/space/${s.body.id}`, { body: { update_permissions: { '12': [] } }, token: admin });
    expect((await post('/inbox/space', { space: s.body.id }, agent)).body.update_permissions).toEqual({});
  });

  it('refuses bad input with 0x1 and changes nothing: tag names over 64, invalid keys, duplicate keys, unknown agents, foreign streams', async () => {
    const s = await post('/spaces', { name: 'Checks' });
    const sid = s.body.id as number;
    const before = await app.sql(`SELECT count(*)::int AS n FROM inbox.conversation_tag`);
    const long = await post('/conversation_tags', { name: 'x'.repeat(65), space: sid });
    expect(long.status).toBe(400);
    expect(long.body.code).toBe('0x1');
    expect((await post('/conversation_tags', { name: 'x'.repeat(64), space: sid })).status).toBe(201);
    expect((await post('/conversation_tags', { name: 'X'.repeat(64), space: sid })).body.violations).toEqual([expect.objectContaining({ propertyPath: 'name', message: 'sameKey' })]);
    expect((await app.sql(`SELECT count(*)::int AS n FROM inbox.conversation_tag`))[0].n).toBe(before[0].n + 1);
    expect((await post('/canned_templates', { name: 'T', templateKey: 'bad key!', text: 'x', space: sid })).body.violations).toEqual([expect.objectContaining({ propertyPath: 'templateKey', message: 'invalidKey' })]);
    await post('/canned_templates', { name: 'T', templateKey: 'k', text: 'x', space: sid });
    expect((await post('/canned_templates', { name: 'T2', templateKey: 'k', text: 'y', space: sid })).status).toBe(400);
    const t = await post('/teams', { name: 'Ghosts', space: sid, agents: [999] });
    expect(t.status).toBe(400);
    expect(t.body.message).toContain('invalid');
    expect((await app.sql(`SELECT count(*)::int AS n FROM inbox.team WHERE name = 'Ghosts'`))[0].n).toBe(0);
    // account 2's stream is no stream of account 1
    const foreign = (await app.sql(`SELECT stream_uid::text AS uid FROM inbox.stream WHERE account_id = 2`))[0].uid as string;
    expect((await post('/incoming_routings', { name: 'x', stream: foreign, space: sid })).status).toBe(400);
    expect((await post('/spaces', { name: 'Nameless', unknown: 1 })).status).toBe(400);
    expect((await post('/teams', { name: 'No space' })).status).toBe(400);
  });

  /** Every organisation route: without its permission 403, from another account 404 (never the row). */
  it('checks the permission of every route and keeps accounts apart', async () => {
    const s = await post('/spaces', { name: 'Matrix' });
    const sid = String(s.body.id);
    const team = String((await post('/teams', { name: 'M', space: sid, agents: [11] })).body.id);
    const tag = String((await post('/conversation_tags', { name: 'M', space: sid })).body.id);
    const profile = String((await post('/sender_profiles', { name: 'M', stream: streamUid, space: sid })).body.id);
    const canned = String((await post('/canned_templates', { name: 'M', templateKey: 'm', text: 'm', space: sid })).body.id);
    const goal = String((await post('/conversation_goals', { name: 'M', text: 'm', space: sid })).body.id);
    const routing = String((await post('/incoming_routings', { name: 'M', stream: streamUid, space: sid })).body.id);
    const routes: Array<[string, string, string, unknown?]> = [
      ['GET', '/spaces', 'INBOX_VIEW'],
      ['GET', `/spaces/${sid}`, 'INBOX_VIEW'],
      ['POST', '/spaces', 'INBOX_ADMIN', { name: 'New' }],
      ['PUT', `/spaces/${sid}`, 'INBOX_ADMIN', { name: 'Matrix 2' }],
      ['DELETE', `/spaces/${sid}`, 'INBOX_ADMIN'],
      ['POST', '/inbox/space', 'INBOX_VIEW', { space: sid }],
      ['PUT', `/inbox/space/${sid}`, 'INBOX_ADMIN', { settings: { configured: true } }],
      ['GET', '/teams', 'INBOX_VIEW'],
      ['GET', `/teams/${team}`, 'INBOX_VIEW'],
      ['GET', `/teams/${team}/agents`, 'INBOX_VIEW'],
      ['POST', '/teams', 'INBOX_TEAM_MANAGEMENT', { name: 'T', space: sid }],
      ['PUT', `/teams/${team}`, 'INBOX_TEAM_MANAGEMENT', { name: 'T2' }],
      ['DELETE', `/teams/${team}`, 'INBOX_TEAM_MANAGEMENT'],
      ['GET', '/agents/manager', 'INBOX_VIEW'],
      ['GET', `/conversation_tags/${tag}`, 'INBOX_VIEW'],
      ['POST', '/conversation_tags', 'INBOX_CONVERSATION_TAGS', { name: 'T', space: sid }],
      ['PUT', `/conversation_tags/${tag}`, 'INBOX_CONVERSATION_TAGS', { name: 'T2' }],
      ['DELETE', `/conversation_tags/${tag}`, 'INBOX_CONVERSATION_TAGS'],
      ['GET', `/sender_profiles/${profile}`, 'INBOX_VIEW'],
      ['POST', '/sender_profiles', 'INBOX_SENDER_PROFILE', { name: 'P', stream: streamUid, space: sid }],
      ['PUT', `/sender_profiles/${profile}`, 'INBOX_SENDER_PROFILE', { name: 'P2' }],
      ['DELETE', `/sender_profiles/${profile}`, 'INBOX_SENDER_PROFILE'],
      ['GET', `/canned_templates/${canned}`, 'INBOX_VIEW'],
      ['POST', '/canned_templates', 'INBOX_CANNED_TEMPLATES', { name: 'C', templateKey: 'c', text: 'c', space: sid }],
      ['PUT', `/canned_templates/${canned}`, 'INBOX_CANNED_TEMPLATES', { text: 'c2' }],
      ['DELETE', `/canned_templates/${canned}`, 'INBOX_CANNED_TEMPLATES'],
      ['GET', `/conversation_goals/${goal}`, 'INBOX_VIEW'],
      ['POST', '/conversation_goals', 'INBOX_CONVERSATION_GOALS', { name: 'G', text: 'g', space: sid }],
      ['PUT', `/conversation_goals/${goal}`, 'INBOX_CONVERSATION_GOALS', { text: 'g2' }],
      ['DELETE', `/conversation_goals/${goal}`, 'INBOX_CONVERSATION_GOALS'],
      ['GET', '/incoming_routings', 'INBOX_INCOMING_ROUTING'],
      ['GET', `/incoming_routings/${routing}`, 'INBOX_INCOMING_ROUTING'],
      ['POST', '/incoming_routings', 'INBOX_INCOMING_ROUTING', { name: 'R', stream: streamUid, space: sid }],
      ['PUT', `/incoming_routings/${routing}`, 'INBOX_INCOMING_ROUTING', { name: 'R2' }],
      ['DELETE', `/incoming_routings/${routing}`, 'INBOX_INCOMING_ROUTING'],
    ];
    const found: string[] = [];
    const expected: string[] = [];
    for (const [method, path, perm, body] of routes) {
      const without = app.token('1', '100', INBOX_PERMISSIONS.filter((p) => p !== perm && p !== 'INBOX_ADMIN'));
      const res = await app.call(method, path, { body, token: without });
      found.push(`${method} ${path} without ${perm}: ${res.status}`);
      expected.push(`${method} ${path} without ${perm}: 403`);
    }
    // another account's admin: rows of account 1 are not found, writes into its space refused alike
    const stranger = app.token('2', '21', INBOX_PERMISSIONS);
    for (const [method, path, , body] of routes.filter(([, p]) => /\d+$/.test(p) || (p === '/inbox/space'))) {
      const res = await app.call(method, path, { body, token: stranger });
      found.push(`${method} ${path} from account 2: ${res.status}`);
      expected.push(`${method} ${path} from account 2: 404`);
    }
    for (const [method, path, , body] of routes.filter(([m, p, , b]) => m === 'POST' && b && (b as Json).space && p !== '/inbox/space')) {
      const res = await app.call(method, path, { body, token: stranger });
      found.push(`${method} ${path} into account 1's space from account 2: ${res.status}`);
      expected.push(`${method} ${path} into account 1's space from account 2: 404`);
    }
    expect(found).toEqual(expected);
    // account 2 lists see nothing of account 1
    for (const path of ['/spaces', '/teams', '/conversation_tags', '/sender_profiles', '/canned_templates', '/conversation_goals', '/incoming_routings']) {
      expect({ path, items: (await app.call('GET', path, { token: stranger })).body.items }).toEqual({ path, items: [] });
    }
    expect(((await app.call('GET', '/agents/manager', { token: stranger })).body.items as Json[]).map((a) => a.id)).toEqual([21]);
    // and account 1's rows are all still there
    expect((await app.call('GET', `/teams/${team}`, { token: admin })).status).toBe(200);
    expect((await app.call('GET', `/incoming_routings/${routing}`, { token: admin })).status).toBe(200);
  });
});
