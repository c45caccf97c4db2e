import { ALL_PERMISSIONS, Permission, type CampaignDto, type TemplateDto, type WordListDto } from '@switchboard/contracts';
import { customer, listReady, sender, startCampaigns, stream, streamEvent, type CampaignsTestApp } from './support';

const P = Permission;

/**
 * Every campaigns route: refused (403 NO_PERMISSIONS) without the permission spec 6 gives it, whatever else the caller
 * holds; and another account's ids are not found (404), nor listed.
 */
describe('campaigns access: permission and isolation matrices', () => {
  let app: CampaignsTestApp;
  const A = '910';
  const B = '911';
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    app = await startCampaigns();
    await app.publish([customer(A), customer(B), stream(A, '9171'), sender(A, '9181'), listReady(A, '9161'), streamEvent(A, '9191', '9171')]);
    const t = app.token(A);
    const c = (await app.call<CampaignDto>('POST', '/campaigns', { token: t, body: { name: 'A', stream: 9171, contactLists: [9161], campaignVariants: [{ text: 'x' }], campaignsSenders: [{ sender: 9181 }] } })).body;
    ids.campaign = c.id;
    ids.campaignVariant = c.campaignVariants[0].id;
    ids.campaignSender = c.campaignsSenders[0].id;
    ids.variable = (await app.call<{ id: number }>('POST', '/campaigns_variables', { token: t, body: { campaign: c.id, variable: 2 } })).body.id;
    const tpl = (await app.call<TemplateDto>('POST', '/templates', { token: t, body: { name: 'T', variants: [{ text: 'y' }] } })).body;
    ids.template = tpl.id;
    ids.variant = tpl.variants[0].id;
    const wl = (await app.call<WordListDto>('POST', '/word_lists', { token: t, body: { name: 'W', words: ['w'] } })).body;
    ids.wordList = wl.id;
    ids.word = wl.words[0].id;
    ids.tag = (await app.call<{ id: number }>('POST', '/campaign_tags', { token: t, body: { value: 'tag' } })).body.id;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  type Route = [method: string, path: () => string, permission: string, body?: () => unknown];
  const routes: Route[] = [
    ['GET', () => '/campaigns', P.CampaignView],
    ['GET', () => '/campaigns/dashboard', P.CampaignView],
    ['GET', () => '/campaigns/realtime', P.CampaignView],
    ['GET', () => `/campaigns/${ids.campaign}`, P.CampaignView],
    ['GET', () => `/campaigns/${ids.campaign}/analytics`, P.CampaignView],
    ['GET', () => `/campaigns/${ids.campaign}/variables`, P.CampaignView],
    ['GET', () => `/campaigns/get_vars_max_length?campaign=${ids.campaign}`, P.CampaignView],
    ['POST', () => '/campaigns/spintax_preview', P.CampaignView, () => ({ text: '{a|b}' })],
    ['POST', () => '/campaigns', P.CampaignAddEdit, () => ({ name: 'n' })],
    ['PUT', () => `/campaigns/${ids.campaign}`, P.CampaignAddEdit, () => ({ description: 'd' })],
    ['POST', () => '/campaigns/duplicate', P.CampaignAddEdit, () => ({ id: ids.campaign })],
    ['POST', () => `/campaigns/${ids.campaign}/start`, P.CampaignAddEdit],
    ['POST', () => `/campaigns/${ids.campaign}/pause`, P.CampaignAddEdit],
    ['POST', () => `/campaigns/${ids.campaign}/play`, P.CampaignAddEdit],
    ['POST', () => `/campaigns/${ids.campaign}/abort`, P.CampaignAddEdit],
    ['PUT', () => `/campaigns/${ids.campaign}/ratios`, P.CampaignAddEdit, () => ({ campaignVariants: [{ id: ids.campaignVariant, ratio: 100 }] })],
    ['DELETE', () => `/campaigns/${ids.campaign}`, P.CampaignRemove],
    ['POST', () => '/campaign/stream_events', P.CampaignAddEdit, () => ({ campaign_id: ids.campaign, stream_event_id: 9191 })],
    ['GET', () => '/campaigns_variables', P.CampaignView],
    ['GET', () => `/campaigns_variables/${ids.variable}`, P.CampaignView],
    ['POST', () => '/campaigns_variables', P.CampaignAddEdit, () => ({ campaign: ids.campaign, variable: 3 })],
    ['PUT', () => `/campaigns_variables/${ids.variable}`, P.CampaignAddEdit, () => ({ defaultValue: 'x' })],
    ['DELETE', () => `/campaigns_variables/${ids.variable}`, P.CampaignAddEdit],
    ['GET', () => '/campaigns_senders', P.CampaignView],
    ['GET', () => `/campaigns_senders/${ids.campaignSender}`, P.CampaignView],
    ['POST', () => '/campaigns_senders', P.CampaignAddEdit, () => ({ campaign: ids.campaign, sender: 9181 })],
    ['PUT', () => `/campaigns_senders/${ids.campaignSender}`, P.CampaignAddEdit, () => ({ ratio: 100 })],
    ['DELETE', () => `/campaigns_senders/${ids.campaignSender}`, P.CampaignAddEdit],
    ['GET', () => '/campaign_variants', P.CampaignView],
    ['GET', () => `/campaign_variants/${ids.campaignVariant}`, P.CampaignView],
    ['POST', () => '/campaign_variants', P.CampaignAddEdit, () => ({ campaign: ids.campaign, text: 't' })],
    ['PUT', () => `/campaign_variants/${ids.campaignVariant}`, P.CampaignAddEdit, () => ({ text: 't' })],
    ['DELETE', () => `/campaign_variants/${ids.campaignVariant}`, P.CampaignAddEdit],
    ['GET', () => '/campaign_tags', P.CampaignView],
    ['GET', () => '/campaign_tags/dropdown', P.CampaignView],
    ['GET', () => `/campaign_tags/${ids.tag}`, P.CampaignView],
    ['POST', () => '/campaign_tags', P.CampaignAddEdit, () => ({ value: 'v' })],
    ['PUT', () => `/campaign_tags/${ids.tag}`, P.CampaignAddEdit, () => ({ value: 'v2' })],
    ['DELETE', () => `/campaign_tags/${ids.tag}`, P.CampaignRemove],
    ['GET', () => '/templates', P.TemplateView],
    ['GET', () => `/templates/${ids.template}`, P.TemplateView],
    ['GET', () => `/templates/${ids.template}/variants`, P.TemplateView],
    ['POST', () => '/templates', P.TemplateAddEdit, () => ({ name: 'n' })],
    ['POST', () => `/templates/${ids.template}/copy`, P.TemplateAddEdit],
    ['PUT', () => `/templates/${ids.template}`, P.TemplateAddEdit, () => ({ name: 'n2' })],
    ['DELETE', () => `/templates/${ids.template}`, P.TemplateRemove],
    ['GET', () => '/variants', P.TemplateView],
    ['GET', () => `/variants/${ids.variant}`, P.TemplateView],
    ['POST', () => '/variants', P.TemplateAddEdit, () => ({ template: ids.template, text: 't' })],
    ['PUT', () => `/variants/${ids.variant}`, P.TemplateAddEdit, () => ({ text: 't' })],
    ['DELETE', () => `/variants/${ids.variant}`, P.TemplateRemove],
    ['GET', () => '/word_lists', P.TemplateView],
    ['GET', () => `/word_lists/${ids.wordList}`, P.TemplateView],
    ['POST', () => '/word_lists', P.TemplateAddEdit, () => ({ name: 'other' })],
    ['PUT', () => `/word_lists/${ids.wordList}`, P.TemplateAddEdit, () => ({ words: ['a'] })],
    ['DELETE', () => `/word_lists/${ids.wordList}`, P.TemplateRemove],
    ['GET', () => '/words', P.TemplateView],
    ['GET', () => `/words/${ids.word}`, P.TemplateView],
    ['POST', () => '/words', P.TemplateAddEdit, () => ({ wordList: ids.wordList, value: 'v' })],
    ['PUT', () => `/words/${ids.word}`, P.TemplateAddEdit, () => ({ value: 'v' })],
    ['DELETE', () => `/words/${ids.word}`, P.TemplateRemove],
  ];

  it('refuses every route without its permission, and changes nothing', async () => {
    const wrong: string[] = [];
    const before = await app.sql(`SELECT (SELECT count(*) FROM campaigns.campaign) c, (SELECT count(*) FROM campaigns.template) t, (SELECT count(*) FROM campaigns.tag) g`);
    for (const [method, path, permission, body] of routes) {
      const token = app.token(A, ALL_PERMISSIONS.filter((p) => p !== permission));
      const res = await app.call<{ code: string }>(method, path(), { token, body: body?.() });
      if (res.status !== 403 || res.body.code !== 'NO_PERMISSIONS') wrong.push(`${method} ${path()} without ${permission}: ${res.status}`);
    }
    expect(wrong).toEqual([]);
    expect(await app.sql(`SELECT (SELECT count(*) FROM campaigns.campaign) c, (SELECT count(*) FROM campaigns.template) t, (SELECT count(*) FROM campaigns.tag) g`)).toEqual(before);
  });

  it("never shows or changes another account's campaigns, templates, word lists, tags and parts", async () => {
    const token = app.token(B);
    const wrong: string[] = [];
    const snapshot = () =>
      app.sql(`SELECT (SELECT json_agg(c ORDER BY id) FROM (SELECT id, name, description, status, deleted_at FROM campaigns.campaign WHERE account_id = ${A}) c) cs,
                      (SELECT json_agg(t ORDER BY id) FROM campaigns.template t WHERE account_id = ${A}) ts,
                      (SELECT json_agg(w ORDER BY id) FROM campaigns.word w WHERE account_id = ${A}) ws,
                      (SELECT json_agg(g ORDER BY id) FROM campaigns.tag g WHERE account_id = ${A}) gs,
                      (SELECT json_agg(v ORDER BY id) FROM campaigns.campaign_variable v WHERE account_id = ${A}) vs,
                      (SELECT json_agg(s ORDER BY id) FROM campaigns.campaign_sender s WHERE account_id = ${A}) ss,
                      (SELECT json_agg(v ORDER BY id) FROM campaigns.campaign_variant v WHERE account_id = ${A}) cvs`);
    const before = await snapshot();
    for (const [method, path, , body] of routes) {
      const p = path();
      const res = await app.call<{ items?: Array<{ id: number }>; code?: string }>(method, p, { token, body: body?.() });
      const mentionsA = Object.values(ids).some((id) => p.includes(`/${id}`) || p.includes(`=${id}`)) || JSON.stringify(body?.() ?? {}).match(new RegExp(`:(${Object.values(ids).join('|')})\\b`));
      if (mentionsA) {
        // 404, or 400 for a reference in the body that is not in the caller's account
        if (![404, 400].includes(res.status)) wrong.push(`${method} ${p}: ${res.status}`);
      } else if (method === 'GET' && res.status === 200 && res.body.items) {
        if (res.body.items.some((i) => Object.values(ids).includes(i.id))) wrong.push(`${method} ${p} lists account ${A}'s rows`);
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    expect((await app.call<{ items: unknown[] }>('GET', '/campaigns', { token })).body.items.filter((c) => (c as { name: string }).name === 'A')).toEqual([]);
  });

  it('keeps the spam review to super administrators', async () => {
    const token = app.token(A);
    for (const [method, path] of [['GET', '/campaigns/review'], ['POST', `/campaigns/review/${ids.campaign}/approve`], ['POST', `/campaigns/review/${ids.campaign}/reject`]] as const) {
      expect({ path, status: (await app.call(method, path, { token, body: method === 'POST' ? { reason: 'x' } : undefined })).status }).toEqual({ path, status: 403 });
    }
  });
});
