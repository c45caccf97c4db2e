import type { CampaignDto, CampaignVariableDto, TemplateDto, WordListDto } from '@switchboard/contracts';
import { customer, listReady, sender, startCampaigns, stream, type CampaignsTestApp } from './support';

/** Templates and variants, word lists, tags, campaign variables, senders and variants, the spintax tools (docs/decisions/0031). */
describe('templates, word lists, tags and campaign parts', () => {
  let app: CampaignsTestApp;
  let token: string;
  const ACC = '800';

  beforeAll(async () => {
    app = await startCampaigns();
    token = app.token(ACC);
    await app.publish([customer(ACC), stream(ACC, '871'), sender(ACC, '881', 'ACME'), sender(ACC, '882', 'SHOP'), listReady(ACC, '861')]);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  const newCampaign = async () =>
    (await app.call<CampaignDto>('POST', '/campaigns', { token, body: { name: 'Parts', stream: 871, contactLists: [861], campaignVariants: [{ text: 'Hi {{firstName}}' }] } })).body;

  it('keeps templates with variants split evenly, copies one as "copy X", and edits variants one by one', async () => {
    const created = await app.call<TemplateDto>('POST', '/templates', { token, body: { name: 'Welcome', variants: [{ text: '{Hi|Hello}' }, { text: 'Hey', color: '#00FF00' }, { name: 'Last', text: 'Yo' }] } });
    expect(created.status).toBe(201);
    expect(created.body.variants.map((v) => [v.name, v.ratio, v.color])).toEqual([['Variant 1', 33, '#ff9600'], ['Variant 2', 33, '#00ff00'], ['Last', 34, '#22c55e']]);
    const copy = await app.call<TemplateDto>('POST', `/templates/${created.body.id}/copy`, { token });
    expect(copy.body).toMatchObject({ name: 'copy Welcome' });
    expect(copy.body.variants.map((v) => v.text)).toEqual(['{Hi|Hello}', 'Hey', 'Yo']);
    const vs = await app.call<{ items: Array<{ id: number }>; total: number }>('GET', `/templates/${created.body.id}/variants`, { token });
    expect(vs.body.total).toBe(3);
    const added = await app.call<{ id: number; name: string; ratio: number }>('POST', '/variants', { token, body: { template: created.body.id, text: 'Fourth', ratio: 0 } });
    expect(added.body).toMatchObject({ name: 'Variant 4', ratio: 0 });
    expect((await app.call('PUT', `/variants/${added.body.id}`, { token, body: { text: 'bad {' } })).status).toBe(400);
    expect((await app.call<{ text: string }>('PUT', `/variants/${added.body.id}`, { token, body: { text: 'Fine' } })).body.text).toBe('Fine');
    expect((await app.call('DELETE', `/variants/${added.body.id}`, { token })).status).toBe(204);
    expect((await app.call('POST', '/templates', { token, body: { name: 'x', variants: [{ text: 'a', ratio: 60 }, { text: 'b', ratio: 60 }] } })).body).toMatchObject({ code: '0x1', violations: [{ propertyPath: 'variants', code: 'errors.client.totalRatio' }] });
    expect((await app.call('DELETE', `/templates/${created.body.id}`, { token })).status).toBe(204);
    expect((await app.call('GET', `/variants/${vs.body.items[0].id}`, { token })).status).toBe(404);
  });

  it('keeps word lists that spintax refers to by name, and previews texts with them', async () => {
    const wl = await app.call<WordListDto>('POST', '/word_lists', { token, body: { name: 'Greetings', words: ['cheers', 'thanks'] } });
    expect(wl.body.words.map((w) => w.value)).toEqual(['cheers', 'thanks']);
    expect((await app.call('POST', '/word_lists', { token, body: { name: 'greetings' } })).status).toBe(400);
    expect((await app.call('POST', '/word_lists', { token, body: { name: 'a|b' } })).status).toBe(400);
    const w = await app.call<{ id: number; value: string }>('POST', '/words', { token, body: { wordList: wl.body.id, value: 'ta' } });
    expect(w.status).toBe(201);
    const preview = await app.call<{ samples: string[]; combinations: number; variables: string[]; maxLength: number; segments: number }>('POST', '/campaigns/spintax_preview', {
      token,
      body: { text: '{Hi|Hello} {{firstName}}, [[greetings]]', samples: 20 },
    });
    expect(preview.body.combinations).toBe(6);
    expect(preview.body.variables).toEqual(['firstName']);
    expect(new Set(preview.body.samples.map((s) => s.split(', ')[1]))).toEqual(new Set(['cheers', 'thanks', 'ta']));
    expect(preview.body.maxLength).toBe('Hello '.length + 20 + ', '.length + 'cheers'.length);
    const again = await app.call<{ samples: string[] }>('POST', '/campaigns/spintax_preview', { token, body: { text: '{Hi|Hello} {{firstName}}, [[greetings]]', samples: 20 } });
    expect(again.body.samples).toEqual(preview.body.samples);
    const bad = await app.call<{ code: string; violations: Array<{ message: string; code: string }> }>('POST', '/campaigns/spintax_preview', { token, body: { text: 'Hi {a|b' } });
    expect(bad.body).toMatchObject({ code: '0x1', violations: [{ code: 'spintax.unclosed_group', message: 'Invalid spintax: unclosed "{" (expected "}") at position 4.' }] });
    const unknown = await app.call<{ violations: Array<{ code: string }> }>('POST', '/campaigns/spintax_preview', { token, body: { text: '[[colors]]' } });
    expect(unknown.body.violations[0].code).toBe('spintax.unknown_word_list');
    // another account's word list is not there
    const other = await app.call<{ violations: Array<{ code: string }> }>('POST', '/campaigns/spintax_preview', { token: app.token('801'), body: { text: '[[greetings]]' } });
    expect(other.body.violations[0].code).toBe('spintax.unknown_word_list');
  });

  it('refuses to delete or rename a word list a campaign still to send refers to', async () => {
    const wl = (await app.call<WordListDto>('POST', '/word_lists', { token, body: { name: 'Sizes', words: ['S', 'M'] } })).body;
    const c = (await app.call<CampaignDto>('POST', '/campaigns', { token, body: { name: 'Sized', campaignVariants: [{ text: 'Size {[[ sizes ]]|any}' }] } })).body;
    const del = await app.call<{ code: string; message: string }>('DELETE', `/word_lists/${wl.id}`, { token });
    expect(del).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(del.body.message).toContain(String(c.id));
    expect((await app.call('PUT', `/word_lists/${wl.id}`, { token, body: { name: 'Dimensions' } })).status).toBe(409);
    expect((await app.call<WordListDto>('PUT', `/word_lists/${wl.id}`, { token, body: { name: 'SIZES', words: ['L'] } })).body).toMatchObject({ name: 'SIZES', words: [{ value: 'L' }] });
    await app.sql(`UPDATE campaigns.campaign SET status = 7 WHERE id = $1`, [c.id]);
    expect((await app.call('DELETE', `/word_lists/${wl.id}`, { token })).status).toBe(204);
  });

  it('counts the longest message of each variant in characters and segments', async () => {
    const c = (await app.call<CampaignDto>('POST', '/campaigns', { token, body: { name: 'Len', campaignVariants: [{ text: `{${'a'.repeat(150)}|b} {{firstName}}` }, { text: 'Привет {{custom}}' }] } })).body;
    await app.call('POST', '/campaigns_variables', { token, body: { campaign: c.id, variable: 99, variableName: 'custom', defaultValue: 'x'.repeat(40), missingRule: 1 } });
    const res = await app.call<{ items: Array<{ maxLength: number; encoding: string; segments: number }>; variables: Record<string, number>; segments: number }>('GET', `/campaigns/get_vars_max_length?campaign=${c.id}`, { token });
    expect(res.body.items).toEqual([
      { variant: c.campaignVariants[0].id, name: 'Variant 1', maxLength: 171, encoding: 'GSM7', segments: 2 },
      { variant: c.campaignVariants[1].id, name: 'Variant 2', maxLength: 47, encoding: 'UCS2', segments: 1 },
    ]);
    expect(res.body.variables).toEqual({ firstName: 20, custom: 40 });
    expect((await app.call<{ items: Array<{ encoding: string }> }>('GET', `/campaigns/get_vars_max_length?text=${encodeURIComponent('{hi|€}')}`, { token })).body.items[0].encoding).toBe('GSM7');
    expect((await app.call<{ items: Array<{ encoding: string }> }>('GET', `/campaigns/get_vars_max_length?text=${encodeURIComponent('{hi|ж}')}`, { token })).body.items[0].encoding).toBe('UCS2');
  });

  it('tags campaigns; the dropdown answers every tag and a repeated value answers the same tag', async () => {
    const a = await app.call<{ id: number }>('POST', '/campaign_tags', { token, body: { value: 'Black Friday' } });
    const b = await app.call<{ id: number }>('POST', '/campaign_tags', { token, body: { value: 'black friday' } });
    expect(b.body.id).toBe(a.body.id);
    expect((await app.call('POST', '/campaign_tags', { token, body: { value: 'x'.repeat(65) } })).body).toMatchObject({ violations: [{ code: 'errors.client.charLimit' }] });
    await app.call('POST', '/campaign_tags', { token, body: { value: 'Autumn' } });
    const dd = await app.call<{ items: Array<{ value: string }> }>('GET', '/campaign_tags/dropdown', { token });
    expect(dd.body.items.map((t) => t.value)).toEqual(['Autumn', 'Black Friday']);
    const c = (await app.call<CampaignDto>('POST', '/campaigns', { token, body: { name: 'Tagged', campaignTags: [a.body.id] } })).body;
    expect(c.campaignTags).toEqual([{ id: a.body.id, value: 'Black Friday' }]);
    expect((await app.call<{ items: CampaignDto[] }>('GET', `/campaigns?tag=${a.body.id}`, { token })).body.items.map((x) => x.id)).toEqual([c.id]);
  });

  it('links variables with a missing rule and link params, only while the campaign may be edited', async () => {
    const c = await newCampaign();
    const v = await app.call<CampaignVariableDto>('POST', '/campaigns_variables', { token, body: { campaign: c.id, variable: 2, defaultValue: 'friend', missingRule: 1 } });
    expect(v.body).toMatchObject({ variable: 2, variableName: 'firstName', defaultValue: 'friend', missingRule: 1, params: {} });
    const link = await app.call<CampaignVariableDto>('POST', '/campaigns_variables', { token, body: { campaign: c.id, variable: 7, params: { domains: [1, 2], expired: 30, offer: 4 } } });
    expect(link.body).toMatchObject({ variableName: 'shorturl', missingRule: 0, params: { domains: [1, 2], expired: 30, offer: 4 } });
    expect((await app.call('POST', '/campaigns_variables', { token, body: { campaign: c.id, variable: 3, missingRule: 1 } })).body).toMatchObject({ violations: [{ propertyPath: 'defaultValue' }] });
    expect((await app.call('POST', '/campaigns_variables', { token, body: { campaign: c.id, variable: 2 } })).status).toBe(400);
    expect((await app.call('POST', '/campaigns_variables', { token, body: { campaign: c.id, variable: 7, params: { evil: 1 } } })).status).toBe(400);
    const list = await app.call<{ items: CampaignVariableDto[] }>('GET', `/campaigns/${c.id}/variables`, { token });
    expect(list.body.items.map((x) => x.variableName)).toEqual(['firstName', 'shorturl']);
    await app.call('POST', `/campaigns/${c.id}/start`, { token });
    const refused = await app.call<{ code: string }>('PUT', `/campaigns_variables/${v.body.id}`, { token, body: { defaultValue: 'pal' } });
    expect(refused).toMatchObject({ status: 409, body: { code: 'CAMPAIGN_ACTION_NOT_ALLOWED' } });
    expect((await app.call('DELETE', `/campaigns_variables/${v.body.id}`, { token })).status).toBe(409);
  });

  it('adds senders and variants one by one with the rest of 100; a running campaign changes ratios only', async () => {
    const c = await newCampaign();
    const s1 = await app.call<{ id: number; ratio: number }>('POST', '/campaigns_senders', { token, body: { campaign: c.id, sender: 881, ratio: 70 } });
    const s2 = await app.call<{ id: number; ratio: number; senderValue: string }>('POST', '/campaigns_senders', { token, body: { campaign: c.id, sender: 882 } });
    expect([s1.body.ratio, s2.body.ratio, s2.body.senderValue]).toEqual([70, 30, 'SHOP']);
    expect((await app.call('POST', '/campaigns_senders', { token, body: { campaign: c.id, sender: 882 } })).status).toBe(400);
    const v2 = await app.call<{ id: number; ratio: number; name: string }>('POST', '/campaign_variants', { token, body: { campaign: c.id, text: 'Second', ratio: 40 } });
    expect(v2.body).toMatchObject({ name: 'Variant 2', ratio: 40 });
    // the ratios total 140 now: start refuses until they total 100
    expect((await app.call('POST', `/campaigns/${c.id}/start`, { token })).body).toMatchObject({ violations: [{ propertyPath: 'campaignVariants', code: 'errors.client.totalRatio' }] });
    await app.call('PUT', `/campaign_variants/${c.campaignVariants[0].id}`, { token, body: { ratio: 60 } });
    expect((await app.call<CampaignDto>('POST', `/campaigns/${c.id}/start`, { token })).body.status).toBe(1);
    expect((await app.call('PUT', `/campaign_variants/${v2.body.id}`, { token, body: { ratio: 10 } })).status).toBe(409);
    expect((await app.call('DELETE', `/campaigns_senders/${s1.body.id}`, { token })).status).toBe(409);
    const ratios = await app.call<CampaignDto>('PUT', `/campaigns/${c.id}/ratios`, { token, body: { campaignVariants: [{ id: c.campaignVariants[0].id, ratio: 90 }, { id: v2.body.id, ratio: 10 }], campaignsSenders: [{ id: s1.body.id, ratio: 50 }, { id: s2.body.id, ratio: 50 }] } });
    expect(ratios.body.campaignVariants.map((v) => v.ratio)).toEqual([90, 10]);
    expect(ratios.body.campaignsSenders.map((s) => s.ratio)).toEqual([50, 50]);
    expect((await app.call('PUT', `/campaigns/${c.id}/ratios`, { token, body: { campaignVariants: [{ id: c.campaignVariants[0].id, ratio: 90 }] } })).body).toMatchObject({ violations: [{ code: 'errors.client.totalRatio' }] });
  });
});
