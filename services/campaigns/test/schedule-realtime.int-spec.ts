import { realtimeSubject, type CampaignDto, type RealtimeMessage } from '@switchboard/contracts';
import { ManualClock } from '@switchboard/platform';
import { CampaignStatusService } from '../src';
import { customer, listReady, startCampaigns, stream, type CampaignsTestApp } from './support';

/** Scheduled campaigns start when their date comes; every change reaches the account's `campaigns` realtime topic only. */
describe('campaign schedule and live updates', () => {
  let app: CampaignsTestApp;
  const clock = new ManualClock(new Date('2026-11-20T10:00:00Z'));
  const A = '950';
  const B = '951';

  beforeAll(async () => {
    app = await startCampaigns({ clock });
    await app.publish([customer(A), customer(B), stream(A, '9571'), listReady(A, '9561')]);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it('starts a scheduled campaign once its date comes, not before', async () => {
    const token = app.token(A);
    const body = { name: 'Later', stream: 9571, contactLists: [9561], campaignVariants: [{ text: 'x' }], activityTime: { dates: { scheduled: '2026-11-20T12:00:00Z' } } };
    const c = (await app.call<CampaignDto>('POST', '/campaigns', { token, body })).body;
    expect((await app.call<CampaignDto>('POST', `/campaigns/${c.id}/start`, { token })).body.status).toBe(0);
    const status = app.t.app.get(CampaignStatusService);
    clock.set(new Date('2026-11-20T11:59:59Z'));
    expect(await status.fireDue()).toEqual([]);
    clock.set(new Date('2026-11-20T12:00:00Z'));
    expect(await status.fireDue()).toEqual([{ accountId: A, campaignId: String(c.id) }]);
    expect(await status.fireDue()).toEqual([]);
    expect((await app.call<CampaignDto>('GET', `/campaigns/${c.id}`, { token })).body).toMatchObject({ status: 1, startedAt: '2026-11-20T12:00:00.000Z' });
    // paused before its time: not fired
    const p = (await app.call<CampaignDto>('POST', '/campaigns', { token, body: { ...body, activityTime: { dates: { scheduled: '2026-11-21T12:00:00Z' } } } })).body;
    await app.call('POST', `/campaigns/${p.id}/start`, { token });
    await app.call('DELETE', `/campaigns/${p.id}`, { token });
    clock.set(new Date('2026-11-22T00:00:00Z'));
    expect(await status.fireDue()).toEqual([]);
  });

  it("publishes each campaign change on the account's campaigns topic after it commits, never on another account's", async () => {
    const got: Record<string, Array<RealtimeMessage<{ id: number; status: number }>>> = { [A]: [], [B]: [] };
    const offs = await Promise.all([A, B].map((acc) => app.t.realtime.subscribe(`${realtimeSubject(acc, 'campaigns')}`, (m) => void got[acc].push(m as RealtimeMessage<{ id: number; status: number }>))));
    const token = app.token(A);
    const c = (await app.call<CampaignDto>('POST', '/campaigns', { token, body: { name: 'Live', stream: 9571, contactLists: [9561], campaignVariants: [{ text: 'x' }] } })).body;
    await app.call('POST', `/campaigns/${c.id}/start`, { token });
    await app.call('POST', `/campaigns/${c.id}/pause`, { token });
    // a refused action publishes nothing
    await app.call('POST', `/campaigns/${c.id}/pause`, { token });
    for (const off of offs) await off();
    expect(got[A].map((m) => [m.type, m.data.id, m.data.status])).toEqual([
      ['campaign.updated', c.id, 8],
      ['campaign.status_changed', c.id, 1],
      ['campaign.status_changed', c.id, 3],
    ]);
    expect(got[A].every((m) => m.accountId === A && m.topic === 'campaigns')).toBe(true);
    expect(got[B]).toEqual([]);
  });
});
