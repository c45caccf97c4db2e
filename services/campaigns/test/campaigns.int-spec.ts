import { CAMPAIGN_ACTION_STATUSES, CAMPAIGN_STATUSES, CampaignStatusChangedV1, type CampaignDto } from '@switchboard/contracts';
import { customer, keywords, listReady, sender, startCampaigns, stream, streamEvent, type CampaignsTestApp } from './support';

/** Campaign CRUD, the status machine of spec 4 over HTTP, the spam review, stream events (docs/decisions/0031). */
describe('campaigns', () => {
  let app: CampaignsTestApp;
  let token: string;
  const ACC = '700';

  const campaignBody = (over: Record<string, unknown> = {}) => ({
    name: 'Black Friday',
    stream: 71,
    contactLists: [61],
    campaignVariants: [{ name: 'A', text: '{Hi|Hello} {{firstName}}, 20% off' }, { name: 'B', text: 'Hey {{firstName}}' }],
    campaignsSenders: [{ sender: 81 }],
    ...over,
  });

  const create = async (over: Record<string, unknown> = {}, t = token) => {
    const res = await app.call<CampaignDto>('POST', '/campaigns', { token: t, body: campaignBody(over) });
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
    return res.body;
  };

  beforeAll(async () => {
    app = await startCampaigns();
    token = app.token(ACC);
    await app.publish([customer(ACC), stream(ACC, '71', 'Marketing'), sender(ACC, '81', 'ACME'), sender(ACC, '82', 'SHOP'), listReady(ACC, '61', 100), streamEvent(ACC, '91', '71')]);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it('creates a draft with variants split evenly, senders, activity time and settings, and reads it back', async () => {
    const c = await create({
      activityTime: { working_hours: { start: '09:00', end: '18:00' }, working_days: [1, 2, 3, 4, 5], timezone_mode: 'selected', timezone: 'Asia/Kolkata' },
      campaignSettings: { auto_pause_after_messages: 500, ctr_indicators: [1, 3] },
    });
    expect(c).toMatchObject({
      status: 8,
      type: 0,
      stream: 71,
      contactLists: [61],
      unsubscribeAutoAdd: false,
      sendDuplicates: false,
      actions: { edit: true, delete: true, duplicate: false, analytics: false, pause: false, play: false, ratio: true, start: true, abort: false },
      activityTime: { working_hours: { start: '09:00', end: '18:00' }, working_days: [1, 2, 3, 4, 5], timezone: 'Asia/Kolkata', timezone_mode: 'selected' },
      campaignSettings: { auto_pause_after_messages: 500, ctr_indicators: [1, 3] },
    });
    expect(c.campaignVariants.map((v) => [v.name, v.ratio])).toEqual([['A', 50], ['B', 50]]);
    expect(c.campaignsSenders.map((s) => [s.sender, s.senderValue, s.ratio])).toEqual([[81, 'ACME', 100]]);
    const read = await app.call<CampaignDto>('GET', `/campaigns/${c.id}`, { token });
    expect(read.body).toEqual(c);
    const three = await create({ campaignVariants: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
    expect(three.campaignVariants.map((v) => [v.name, v.ratio])).toEqual([['Variant 1', 33], ['Variant 2', 33], ['Variant 3', 34]]);
  });

  it('sets variable links with the campaign (default value, missing rule, link params), keeps link params not given, and refuses a use-default rule without a default', async () => {
    const c = await create({ campaignVariables: [{ variable: 2, defaultValue: 'friend', missingRule: 1 }, { variable: 40, variableName: 'code', missingRule: 0 }] });
    const links = async () =>
      (await app.call<{ items: Array<{ variable: number; variableName: string; defaultValue: string | null; missingRule: number; params: Record<string, unknown> }> }>('GET', `/campaigns/${c.id}/variables`, { token })).body.items
        .map(({ variable, variableName, defaultValue, missingRule, params }) => ({ variable, variableName, defaultValue, missingRule, params }))
        .sort((a, b) => a.variable - b.variable);
    expect(await links()).toEqual([
      { variable: 2, variableName: 'firstName', defaultValue: 'friend', missingRule: 1, params: {} },
      { variable: 40, variableName: 'code', defaultValue: null, missingRule: 0, params: {} },
    ]);
    // a link variable's params (set through /campaigns_variables) survive an edit of the campaign's variables
    const link = await app.call('POST', '/campaigns_variables', { token, body: { campaign: c.id, variable: 7, params: { domain_pool: 3 } } });
    expect(link.status).toBe(201);
    const edited = await app.call('PUT', `/campaigns/${c.id}`, { token, body: { campaignVariables: [{ variable: 2, missingRule: 0 }, { variable: 7, variableName: 'shorturl' }] } });
    expect(edited.status).toBe(200);
    expect(await links()).toEqual([
      { variable: 2, variableName: 'firstName', defaultValue: null, missingRule: 0, params: {} },
      { variable: 7, variableName: 'shorturl', defaultValue: null, missingRule: 0, params: { domain_pool: 3 } },
      { variable: 40, variableName: 'code', defaultValue: null, missingRule: 0, params: {} },
    ]);
    // the wizard sets a short URL's params with the campaign (its domain pool and offer); a bad one changes nothing
    const withParams = await app.call('PUT', `/campaigns/${c.id}`, { token, body: { campaignVariables: [{ variable: 7, variableName: 'shorturl', params: { domain_pool: 5, offer: 9 } }] } });
    expect(withParams.status).toBe(200);
    expect((await links()).find((x) => x.variable === 7)?.params).toEqual({ domain_pool: 5, offer: 9 });
    const badParams = await app.call<{ violations: Array<{ propertyPath: string }> }>('PUT', `/campaigns/${c.id}`, { token, body: { campaignVariables: [{ variable: 7, variableName: 'shorturl', params: { domains: ['x'], pool: 1 } }] } });
    expect(badParams.status).toBe(400);
    expect(badParams.body.violations.map((x) => x.propertyPath).sort()).toEqual(['campaignVariables[0].params.domains', 'campaignVariables[0].params.pool']);
    expect((await links()).find((x) => x.variable === 7)?.params).toEqual({ domain_pool: 5, offer: 9 });
    const refused = await app.call<{ violations: Array<{ propertyPath: string; code?: string }> }>('PUT', `/campaigns/${c.id}`, { token, body: { name: 'renamed', campaignVariables: [{ variable: 2, defaultValue: '', missingRule: 1 }] } });
    expect(refused.status).toBe(400);
    expect(refused.body.violations).toEqual([expect.objectContaining({ propertyPath: 'campaignVariables[0].defaultValue', code: 'errors.client.required' })]);
    expect((await app.call<CampaignDto>('GET', `/campaigns/${c.id}`, { token })).body.name).toBe('Black Friday');
    expect(await links()).toHaveLength(3);
  });

  it('refuses bad variants, ratios, spintax and references with the spec codes and changes nothing', async () => {
    const before = await app.sql<{ n: number }>(`SELECT count(*)::int AS n FROM campaigns.campaign`);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ campaignVariants: [] }, 'campaignVariants', 'errors.client.oneVariant'],
      [{ campaignVariants: [{ text: 'a' }, { text: ' ' }] }, 'campaignVariants', 'errors.client.allVariants'],
      [{ campaignVariants: [{ text: 'a', ratio: 50 }, { text: 'b', ratio: 40 }] }, 'campaignVariants', 'errors.client.totalRatio'],
      [{ campaignVariants: [{ text: 'Hi {there|you' }] }, 'campaignVariants[0].text', 'spintax.unclosed_group'],
      [{ campaignVariants: [{ text: 'Buy [[nope]]' }] }, 'campaignVariants[0].text', 'spintax.unknown_word_list'],
      [{ campaignsSenders: [{ sender: 81, ratio: 60 }, { sender: 82, ratio: 60 }] }, 'campaignsSenders', 'errors.client.totalRatio'],
      [{ activityTime: { working_hours: { start: '10:00', end: '10:00' } } }, 'activityTime.working_hours', 'errors.client.notSameTime'],
      [{ campaignSettings: { ctr_indicators: [5, 2] } }, 'campaignSettings.ctr_indicators', 'errors.client.badMoreThanGood'],
      [{ name: '' }, 'name', 'errors.client.required'],
    ];
    for (const [over, path, code] of cases) {
      const res = await app.call<{ code: string; violations: Array<{ propertyPath: string; code?: string; message: string }> }>('POST', '/campaigns', { token, body: campaignBody(over) });
      expect({ over, status: res.status, code: res.body.code, v: res.body.violations?.find((x) => x.propertyPath === path)?.code }).toEqual({ over, status: 400, code: '0x1', v: code });
    }
    const spin = await app.call<{ violations: Array<{ message: string }> }>('POST', '/campaigns', { token, body: campaignBody({ campaignVariants: [{ text: 'Hi {there|you' }] }) });
    expect(spin.body.violations[0].message).toContain('at position 4');
    for (const [over, path] of [[{ stream: 999 }, 'stream'], [{ contactLists: [999] }, 'contactLists'], [{ campaignsSenders: [{ sender: 999 }] }, 'campaignsSenders'], [{ type: 2 }, 'type']] as const) {
      const res = await app.call<{ violations: Array<{ propertyPath: string }> }>('POST', '/campaigns', { token, body: campaignBody(over) });
      expect({ over, status: res.status, paths: res.body.violations.map((x) => x.propertyPath) }).toEqual({ over, status: 400, paths: [path] });
    }
    expect(await app.sql(`SELECT count(*)::int AS n FROM campaigns.campaign`)).toEqual(before);
  });

  it('starts a campaign: started with an event and a history row, scheduled with a future date; pause, play and abort follow spec 4', async () => {
    const c = await create();
    const started = await app.call<CampaignDto>('POST', `/campaigns/${c.id}/start`, { token });
    expect(started.body).toMatchObject({ status: 1, actions: { pause: true, play: false, edit: false } });
    expect(started.body.startedAt).not.toBeNull();
    expect((await app.call<CampaignDto>('POST', `/campaigns/${c.id}/pause`, { token })).body.status).toBe(3);
    expect((await app.call<CampaignDto>('POST', `/campaigns/${c.id}/play`, { token })).body.status).toBe(1);
    const again = await app.call<{ code: string; message: string }>('POST', `/campaigns/${c.id}/play`, { token });
    expect(again).toMatchObject({ status: 409, body: { code: 'CAMPAIGN_ACTION_NOT_ALLOWED', message: 'a campaign that is started (1) cannot play' } });
    expect((await app.call<CampaignDto>('POST', `/campaigns/${c.id}/abort`, { token })).body).toMatchObject({ status: 4 });
    expect(await app.sql(`SELECT from_status, to_status, action FROM campaigns.status_history WHERE campaign_id = $1 ORDER BY id`, [c.id])).toEqual([
      { from_status: 8, to_status: 1, action: 'start' },
      { from_status: 1, to_status: 3, action: 'pause' },
      { from_status: 3, to_status: 1, action: 'play' },
      { from_status: 1, to_status: 4, action: 'abort' },
    ]);
    const outbox = await app.sql<{ payload: { data: { from: number; to: number } } }>(`SELECT payload FROM campaigns.outbox WHERE type = $1 AND key = $2 ORDER BY id`, [CampaignStatusChangedV1.type, String(c.id)]);
    expect(outbox.map((o) => [o.payload.data.from, o.payload.data.to])).toEqual([[8, 1], [1, 3], [3, 1], [1, 4]]);

    const future = new Date(Date.now() + 86_400_000).toISOString();
    const s = await create({ activityTime: { dates: { scheduled: future } } });
    expect((await app.call<CampaignDto>('POST', `/campaigns/${s.id}/start`, { token })).body.status).toBe(0);
    // PUT with a status is the same action
    const p = await create();
    expect((await app.call<CampaignDto>('PUT', `/campaigns/${p.id}`, { token, body: { status: 1 } })).body.status).toBe(1);
    expect((await app.call<CampaignDto>('PUT', `/campaigns/${p.id}`, { token, body: { status: 3 } })).body.status).toBe(3);
    expect((await app.call('PUT', `/campaigns/${p.id}`, { token, body: { status: 7 } })).status).toBe(409);
  });

  it('lets one of many concurrent actions on a campaign win, the others refused with nothing changed', async () => {
    const c = await create();
    await app.call('POST', `/campaigns/${c.id}/start`, { token });
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => app.call('POST', `/campaigns/${c.id}/pause`, { token })),
      ...Array.from({ length: 6 }, () => app.call('POST', `/campaigns/${c.id}/abort`, { token })),
    ]);
    const ok = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 409).length;
    const history = await app.sql<{ action: string }>(`SELECT action FROM campaigns.status_history WHERE campaign_id = $1 AND action <> 'start' ORDER BY id`, [c.id]);
    // pause then abort may both pass (abort is allowed from paused); nothing else, and every change is in the history once
    expect(ok + refused).toBe(12);
    expect(history.length).toBe(ok);
    expect(history.length === 1 || (history.length === 2 && history[0].action === 'pause' && history[1].action === 'abort')).toBe(true);
    const [row] = await app.sql<{ status: number }>(`SELECT status FROM campaigns.campaign WHERE id = $1`, [c.id]);
    expect(row.status).toBe(history[history.length - 1].action === 'abort' ? 4 : 3);
  });

  it('refuses to start without what sending needs', async () => {
    const c = await create({ stream: null, contactLists: [] });
    const res = await app.call<{ code: string; violations: Array<{ propertyPath: string }> }>('POST', `/campaigns/${c.id}/start`, { token });
    expect(res.status).toBe(400);
    expect(res.body.violations.map((v) => v.propertyPath).sort()).toEqual(['contactLists', 'stream']);
    expect((await app.call<CampaignDto>('GET', `/campaigns/${c.id}`, { token })).body.status).toBe(8);
  });

  /** Spec 4, every console action against every status, answered by the server. */
  it('allows each action exactly in the statuses spec 4 lists, over HTTP', async () => {
    const base = await create();
    const variantId = base.campaignVariants[0].id;
    const setStatus = (id: number, status: number) => app.sql(`UPDATE campaigns.campaign SET status = $2, scheduled_at = NULL WHERE id = $1`, [id, status]);
    const oneVariant = async (id: number) => {
      await app.sql(`DELETE FROM campaigns.campaign_variant WHERE campaign_id = $1 AND id <> (SELECT min(id) FROM campaigns.campaign_variant WHERE campaign_id = $1)`, [id]);
      return (await app.sql<{ id: string }>(`SELECT id::text FROM campaigns.campaign_variant WHERE campaign_id = $1`, [id]))[0].id;
    };
    expect(variantId).toBeGreaterThan(0);
    const calls: Record<string, (id: number) => Promise<{ status: number; body: unknown }>> = {
      edit: (id) => app.call('PUT', `/campaigns/${id}`, { token, body: { description: 'edited' } }),
      delete: (id) => app.call('DELETE', `/campaigns/${id}`, { token }),
      duplicate: (id) => app.call('POST', '/campaigns/duplicate', { token, body: { id } }),
      analytics: (id) => app.call('GET', `/campaigns/${id}/analytics`, { token }),
      pause: (id) => app.call('POST', `/campaigns/${id}/pause`, { token }),
      play: (id) => app.call('POST', `/campaigns/${id}/play`, { token }),
      ratio: async (id) => app.call('PUT', `/campaigns/${id}/ratios`, { token, body: { campaignVariants: [{ id: Number(await oneVariant(id)), ratio: 100 }] } }),
      start: (id) => app.call('POST', `/campaigns/${id}/start`, { token }),
      abort: (id) => app.call('POST', `/campaigns/${id}/abort`, { token }),
    };
    const table: string[] = [];
    for (const [action, call] of Object.entries(calls)) {
      for (const status of CAMPAIGN_STATUSES) {
        const c = await create();
        await setStatus(c.id, status);
        const res = await call(c.id);
        const allowed = CAMPAIGN_ACTION_STATUSES[action as keyof typeof CAMPAIGN_ACTION_STATUSES].includes(status);
        const ok = res.status >= 200 && res.status < 300;
        if (ok !== allowed || (!ok && (res.status !== 409 || (res.body as { code: string }).code !== 'CAMPAIGN_ACTION_NOT_ALLOWED'))) table.push(`${action} in ${status}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        if (!ok) {
          const [row] = await app.sql<{ status: number; deleted: boolean }>(`SELECT status, deleted_at IS NOT NULL AS deleted FROM campaigns.campaign WHERE id = $1`, [c.id]);
          if (row.status !== status || row.deleted) table.push(`${action} in ${status}: refused but changed`);
        }
      }
    }
    expect(table).toEqual([]);
    // the spec's rows, literally
    expect(CAMPAIGN_ACTION_STATUSES.edit).toEqual([0, 8, 9, 11]);
    expect([...CAMPAIGN_ACTION_STATUSES.delete].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11]);
    expect([...CAMPAIGN_ACTION_STATUSES.duplicate].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 10]);
    expect([...CAMPAIGN_ACTION_STATUSES.analytics].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 9, 10, 11]);
    expect(CAMPAIGN_ACTION_STATUSES.pause).toEqual([1, 2, 5, 6, 10]);
    expect(CAMPAIGN_ACTION_STATUSES.play).toEqual([3]);
    expect([...CAMPAIGN_ACTION_STATUSES.ratio].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 5, 6, 8, 10]);
  }, 120_000);

  it('duplicates as a draft named "copy X" with variants, senders and tags', async () => {
    const c = await create();
    await app.sql(`UPDATE campaigns.campaign SET status = 7 WHERE id = $1`, [c.id]);
    const res = await app.call<CampaignDto>('POST', '/campaigns/duplicate', { token, body: { id: c.id } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'copy Black Friday', status: 8, stream: 71, contactLists: [61] });
    expect(res.body.campaignVariants.map((v) => v.text)).toEqual(c.campaignVariants.map((v) => v.text));
    expect(res.body.campaignsSenders.map((s) => s.sender)).toEqual([81]);
  });

  it('suspends a campaign of a spam-restricted account that hits a malicious keyword; a super admin approves or rejects it', async () => {
    await app.publish([customer('701', { enable_spam_restriction: true }), stream('701', '171'), sender('701', '181'), listReady('701', '161'), keywords(['casino', 'free money'])]);
    const t = app.token('701');
    const body = { name: 'Spin', stream: 171, contactLists: [161], campaignVariants: [{ text: '{Win|Get} {big|FREE MONEY} now' }] };
    const a = (await app.call<CampaignDto>('POST', '/campaigns', { token: t, body })).body;
    const started = await app.call<CampaignDto>('POST', `/campaigns/${a.id}/start`, { token: t });
    expect(started.body).toMatchObject({ status: 9, spamKeywords: ['free money'] });
    // a clean text starts
    const clean = (await app.call<CampaignDto>('POST', '/campaigns', { token: t, body: { ...body, campaignVariants: [{ text: 'Casinos? no: casinoX' }] } })).body;
    expect((await app.call<CampaignDto>('POST', `/campaigns/${clean.id}/start`, { token: t })).body.status).toBe(1);
    // the same text in an account without the restriction starts
    expect((await app.call<CampaignDto>('POST', `/campaigns/${(await create({ campaignVariants: [{ text: 'free money' }] })).id}/start`, { token })).body.status).toBe(1);

    const admin = app.token('1', [], true);
    const list = await app.call<{ items: Array<{ id: number; accountId: number }> }>('GET', '/campaigns/review', { token: admin });
    expect(list.body.items.filter((i) => i.accountId === 701).map((i) => i.id)).toEqual([a.id]);
    expect(list.body.items.every((i) => i.accountId !== 701 || i.id === a.id)).toBe(true);
    expect((await app.call('GET', '/campaigns/review', { token: t })).status).toBe(403);
    expect((await app.call('POST', `/campaigns/review/${a.id}/reject`, { token: admin, body: {} })).status).toBe(400);
    const rejected = await app.call<CampaignDto>('POST', `/campaigns/review/${a.id}/reject`, { token: admin, body: { reason: 'Gambling' } });
    expect(rejected.body).toMatchObject({ status: 11, declinedReason: 'Gambling' });
    expect((await app.call('POST', `/campaigns/review/${a.id}/approve`, { token: admin })).status).toBe(409);

    const b = (await app.call<CampaignDto>('POST', '/campaigns', { token: t, body })).body;
    await app.call('POST', `/campaigns/${b.id}/start`, { token: t });
    const approved = await app.call<CampaignDto>('POST', `/campaigns/review/${b.id}/approve`, { token: admin });
    expect(approved.body).toMatchObject({ status: 1 });
  });

  it('maps a WhatsApp stream event to a campaign as its one variant', async () => {
    const c = await create();
    const res = await app.call<CampaignDto>('POST', '/campaign/stream_events', { token, body: { campaign_id: c.id, stream_event_id: 91, variant: 'Shipping', variables_mapping: { '1': 'firstName' } } });
    expect(res.status).toBe(200);
    expect(res.body.campaignVariants.map((v) => [v.name, v.text, v.ratio, v.color])).toEqual([['Shipping', 'Your order {{1}} shipped', 100, '#ff9600']]);
    expect(await app.sql(`SELECT stream_event_id::text, variables_mapping FROM campaigns.campaign WHERE id = $1`, [c.id])).toEqual([{ stream_event_id: '91', variables_mapping: { '1': 'firstName' } }]);
    expect((await app.call('POST', '/campaign/stream_events', { token, body: { campaign_id: c.id, stream_event_id: 999 } })).status).toBe(400);
  });

  it('lists by filter tab, pinned first, and answers the dashboard with the 4 most recently started', async () => {
    const t = app.token('702');
    await app.publish([customer('702'), stream('702', '271'), listReady('702', '261')]);
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push((await app.call<CampaignDto>('POST', '/campaigns', { token: t, body: { name: `C${i}`, stream: 271, contactLists: [261], campaignVariants: [{ text: 'x' }] } })).body.id);
    for (const [i, id] of ids.entries()) {
      if (i === 5) continue;
      await app.sql(`UPDATE campaigns.campaign SET status = $2, started_at = now() - ($3 || ' minutes')::interval WHERE id = $1`, [id, [1, 3, 9, 11, 7][i], String(10 - i)]);
    }
    const tab = async (name: string) => (await app.call<{ items: CampaignDto[]; total: number }>('GET', `/campaigns?tab=${name}`, { token: t })).body.items.map((c) => c.id);
    expect(await tab('active')).toEqual([ids[1], ids[0]]);
    expect(await tab('pending')).toEqual([ids[2]]);
    expect(await tab('rejected')).toEqual([ids[3]]);
    expect(await tab('finished')).toEqual([ids[4]]);
    expect((await tab('all')).length).toBe(6);
    const pinned = await app.call<{ items: CampaignDto[] }>('GET', `/campaigns?pinned=${ids[2]}`, { token: t });
    expect(pinned.body.items[0].id).toBe(ids[2]);
    const dash = await app.call<{ items: CampaignDto[] }>('GET', '/campaigns/dashboard', { token: t });
    expect(dash.body.items.map((c) => c.id)).toEqual([ids[4], ids[3], ids[2], ids[1]]);
  });
});
