import { randomUUID } from 'node:crypto';
import { StreamType } from '@switchboard/contracts';
import { ManualClock } from '../src';
import { fakeStreams, INBOX_PERMISSIONS, memberEvent, received, startInbox, streamEvent, type InboxTestApp, type Json } from './support';

/** The statistics boards: counters, messages, statuses, channels, costs, tags, teams and agents, with their permissions. */
describe('inbox reports', () => {
  let app: InboxTestApp;
  let admin: string;
  const clock = new ManualClock(new Date('2026-11-10T10:00:00Z'));
  const sms = randomUUID();
  const wa = randomUUID();
  let space = 0;
  let teamA = 0;
  let tag = 0;
  const range = 'start=2026-11-01T00:00:00Z&end=2026-12-01T00:00:00Z';

  beforeAll(async () => {
    app = await startInbox({ clock, sendWaitMs: 2000 });
    await fakeStreams(app.bus, { fn: () => ({ outcome: 'accepted' }) });
    admin = app.token('1', '100', INBOX_PERMISSIONS);
    await app.publish([memberEvent('1', '11', { firstName: 'Ann' }), memberEvent('1', '100'), streamEvent('1', '501', StreamType.TwoWay, { uid: sms, name: 'SMS' }), streamEvent('1', '502', StreamType.WhatsApp, { uid: wa, name: 'WA' })]);
    const post = async (p: string, body: unknown) => (await app.call('POST', p, { body, token: admin })).body;
    space = (await post('/spaces', { name: 'S' })).id;
    teamA = (await post('/teams', { name: 'A', space, agents: [11, 100] })).id;
    tag = (await post('/conversation_tags', { name: 'Lead', space })).id;
    await post('/incoming_routings', { name: 'sms', stream: sms, team: teamA, space });
    await post('/incoming_routings', { name: 'wa', stream: wa, team: teamA, space });
    const at = (h: number) => new Date(Date.UTC(2026, 10, 10, h));
    const mk = (uid: string, id: string, type: number, channel: 'sms' | 'whatsapp', from: string, h: number) => received({ accountId: '1', streamId: id, streamUid: uid, streamType: type, channel, to: '+4915100000009', from, body: 'hi', at: at(h) });
    await app.publish([mk(sms, '501', StreamType.TwoWay, 'sms', '+4917600000001', 10), mk(sms, '501', StreamType.TwoWay, 'sms', '+4917600000002', 11), mk(wa, '502', StreamType.WhatsApp, 'whatsapp', '+4917600000003', 12)]);
    const convs = (await app.sql(`SELECT uuid::text, contact_phone FROM inbox.conversation ORDER BY contact_phone`)) as Json[];
    // Ann answers the first one 10 minutes later and tags it; the admin closes the second
    clock.set(new Date(at(10).getTime() + 600_000));
    const ann = app.token('1', '11', ['INBOX_VIEW', 'INBOX_ASSIGN', 'INBOX_ASSIGN_TAGS']);
    await app.call('POST', `/inbox/metadata/${convs[0].uuid as string}`, { body: { metadata: { agent: [11], tags: [tag] } }, token: ann });
    expect((await app.call('POST', `/inbox/simple_send/${convs[0].uuid as string}`, { body: { messages: [{ text: 'hello' }] }, token: ann })).body.code).toBe('OK');
    await app.call('POST', '/inbox/bulk_set_status', { body: { conversation_uuids: [convs[1].uuid], status: 'closed' }, token: admin });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const get = (p: string, token = admin) => app.call('GET', `/inbox/${p}?${range}`, { token });

  it('counts conversations, messages, cost and the response rate of the space', async () => {
    expect((await get(`space_reports/${space}/counters`)).body).toEqual({ conversations: 3, cost: 0.05, response_rate: 33.33, outbound: 1, incoming: 3 });
    expect((await get(`space_reports/${space}/messages`)).body.items).toEqual([{ date: '2026-11-10', incoming: 3, outbound: 1 }]);
    expect((await get(`space_reports/${space}/conversations_per_status`)).body.items).toEqual([
      { conversation_status: 'active', items: 1 },
      { conversation_status: 'closed', items: 1 },
      { conversation_status: 'unanswered', items: 1 },
    ]);
    expect((await get(`space_reports/${space}/conversations_per_channel`)).body.items).toEqual([
      { stream_uuid: sms, stream_name: 'SMS', stream_type: 4, items: 2, response_rate: 50, total_cost: 0.05 },
      { stream_uuid: wa, stream_name: 'WA', stream_type: 5, items: 1, response_rate: 0, total_cost: 0 },
    ]);
    expect((await get(`space_reports/${space}/conversion_statuses_per_tag`)).body.items).toEqual([{ tag, tag_name: 'Lead', conversation_status: 'active', items: 1 }]);
    expect((await get(`space_reports/${space}/teams_performance_conversions_summary`)).body.items).toEqual([
      { team: teamA, team_name: 'A', conversations: 3, active: 1, unanswered: 1, closed: 1, response_rate: 33.33, median_response_seconds: 600 },
    ]);
    expect((await get(`space_reports/${space}/agents_performance_summary`)).body.items).toEqual([
      { agent: 11, agent_name: 'Ann Lee', conversations: 1, closed: 0, outbound: 1, response_rate: 100, median_response_seconds: 600 },
    ]);
    // a period without conversations
    expect((await app.call('GET', `/inbox/space_reports/${space}/counters?start=2026-10-01T00:00:00Z&end=2026-10-31T00:00:00Z`, { token: admin })).body.conversations).toBe(0);
  });

  it("narrows to a team's, an agent's and one's own conversations, and checks the permissions", async () => {
    expect((await get(`team_reports/${space}/${teamA}/counters`)).body.conversations).toBe(3);
    expect((await get(`agent_reports/${space}/11/counters`)).body.conversations).toBe(1);
    const ann = app.token('1', '11', ['INBOX_VIEW']);
    expect((await get(`my_reports/${space}/counters`, ann)).body).toMatchObject({ conversations: 1, outbound: 1 });
    expect((await get(`space_reports/${space}/counters`, ann)).status).toBe(403);
    expect((await get(`agent_reports/${space}/11/counters`, app.token('1', '11', ['INBOX_VIEW', 'INBOX_STATISTICS']))).status).toBe(403);
    expect((await get(`space_reports/${space}/counters`, app.token('2', '21', INBOX_PERMISSIONS))).status).toBe(404);
    expect((await get(`space_reports/${space}/nonsense`)).status).toBe(404);
    expect((await app.call('GET', `/inbox/space_reports/${space}/counters?start=yesterday`, { token: admin })).status).toBe(400);
  });
});
