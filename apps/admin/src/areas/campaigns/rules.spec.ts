import { describe, expect, it } from '@jest/globals';
import { CAMPAIGN_ACTION_STATUSES, CAMPAIGN_STATUSES } from '@switchboard/contracts/src/campaigns';
import type { RealtimeFrame } from '../contacts/types';
import { applyPatch, campaignPatch } from './live';
import { ctrError, ctrLevel, evenRatios, hoursError, parseSpintax, positiveOrEmpty, ratiosError, variantCount, variantsError } from './rules';
import { can, FILTER_TABS } from './status';
import type { Campaign } from './types';
import { changes, emptyLinkRow, emptyValues, fromCampaign, linkRows, rebalance, stepErrors, toInput, usedLinks, variableRows, withVariableRows } from './wizard/model';

describe('ratios (spec 5)', () => {
  it('splits 100 evenly with the remainder on the last item', () => {
    expect(evenRatios(1)).toEqual([100]);
    expect(evenRatios(3)).toEqual([33, 33, 34]);
    expect(evenRatios(7)).toEqual([14, 14, 14, 14, 14, 14, 16]);
    expect(rebalance([{ ratio: '100' }, { ratio: '0' }]).map((r) => r.ratio)).toEqual(['50', '50']);
  });

  it('names the broken variant rule: oneVariant, allVariants, totalRatio', () => {
    expect(variantsError([])).toBe('errors.client.oneVariant');
    expect(variantsError([{ text: 'Hi', ratio: 50 }, { text: '  ', ratio: 50 }])).toBe('errors.client.allVariants');
    expect(variantsError([{ text: 'Hi', ratio: 50 }, { text: 'Yo', ratio: 40 }])).toBe('errors.client.totalRatio');
    expect(variantsError([{ text: 'Hi', ratio: 50.5 }, { text: 'Yo', ratio: 49.5 }])).toBe('errors.client.totalRatio');
    expect(variantsError([{ text: 'Hi', ratio: 120 }, { text: 'Yo', ratio: -20 }])).toBe('errors.client.totalRatio');
    expect(variantsError([{ text: 'Hi', ratio: 34 }, { text: 'Yo', ratio: 66 }])).toBeUndefined();
    expect(ratiosError([100])).toBeUndefined();
  });
});

describe('schedule and settings rules (spec 5, 9)', () => {
  it('refuses equal sending hours (notSameTime)', () => {
    expect(hoursError('09:00', '09:00')).toBe('errors.client.notSameTime');
    expect(hoursError('22:00', '06:00')).toBeUndefined();
  });

  it('keeps CTR indicators within 0..100 and good not below bad', () => {
    expect(ctrError(3, 1)).toBe('errors.client.badMoreThanGood');
    expect(ctrError(-1, 3)).toBe('errors.client.ctrRange');
    expect(ctrError(1, 101)).toBe('errors.client.ctrRange');
    expect(ctrError(2, 2)).toBeUndefined();
  });

  it('rates a click rate bad at or below bad, good at or above good, else mid', () => {
    expect(ctrLevel(1, [1, 3])).toBe('bad');
    expect(ctrLevel(0.5, [1, 3])).toBe('bad');
    expect(ctrLevel(2, [1, 3])).toBe('mid');
    expect(ctrLevel(3, [1, 3])).toBe('good');
  });

  it('takes only positive whole numbers for auto-pause', () => {
    expect(positiveOrEmpty('')).toBeUndefined();
    expect(positiveOrEmpty('500')).toBeUndefined();
    expect(positiveOrEmpty('0')).toBe('errors.client.onlyPositive');
    expect(positiveOrEmpty('1.5')).toBe('errors.client.onlyPositive');
  });
});

describe('spintax and the live count', () => {
  it('parses nested alternatives and leaves {{variables}} as text', () => {
    const r = parseSpintax('{Hi|Hello {there|friend}}, {{firstName}}!');
    expect(r.ok).toBe(true);
    expect(variantCount('{a|bbb {c|dd}}').longest).toBe('bbb dd');
  });

  it('names the position of a brace that is not closed or not opened', () => {
    expect(parseSpintax('Hi {there|friend')).toEqual({ ok: false, position: 3 });
    expect(parseSpintax('Hi there}')).toEqual({ ok: false, position: 8 });
  });

  it('reads escapes as the character and [[list]] as one of the list’s words, as the service does', () => {
    expect(variantCount('\\{not a group\\}').longest).toBe('{not a group}');
    expect(variantCount('[[Greetings]] there', {}, { greetings: ['Hi', 'Hello'] }).longest).toBe('Hello there');
    expect(variantCount('[[greetings]]!', {}, { greetings: ['Hi', 'Good morning'] }).units).toBe(13);
  });

  it('counts GSM-7 in 160 / 153 and UCS-2 in 70 / 67 on the longest expansion', () => {
    expect(variantCount('a'.repeat(160))).toMatchObject({ encoding: 'GSM7', units: 160, segments: 1 });
    expect(variantCount('a'.repeat(161))).toMatchObject({ encoding: 'GSM7', segments: 2, perSegment: 153 });
    expect(variantCount('я'.repeat(70))).toMatchObject({ encoding: 'UCS2', segments: 1 });
    expect(variantCount('я'.repeat(71))).toMatchObject({ encoding: 'UCS2', segments: 2, perSegment: 67 });
    // the longest alternative counts, and a non-GSM alternative makes it UCS-2
    expect(variantCount(`${'a'.repeat(150)}{x|${'b'.repeat(11)}}`)).toMatchObject({ units: 161, segments: 2 });
    expect(variantCount('{hello|привет}')).toMatchObject({ encoding: 'UCS2' });
  });

  it('counts a variable at its longest value', () => {
    expect(variantCount('Hi {{firstName}}', { firstName: 20 }).units).toBe(23);
  });
});

describe('status tables from libs/contracts (spec 4)', () => {
  it('offers exactly the actions the contracts allow per status, unless the server says otherwise', () => {
    for (const status of CAMPAIGN_STATUSES) {
      for (const action of ['edit', 'delete', 'duplicate', 'pause', 'play', 'start', 'abort'] as const) {
        expect([status, action, can(action, { status })]).toEqual([status, action, CAMPAIGN_ACTION_STATUSES[action].includes(status)]);
      }
    }
    expect(can('pause', { status: 3, actions: { pause: true } as Campaign['actions'] })).toBe(true);
  });

  it('filters the tabs by the spec 4 statuses, "all" without a filter', () => {
    expect(FILTER_TABS.all).toBeNull();
    expect(FILTER_TABS.finished).toEqual([4, 7]);
    expect(FILTER_TABS.pending).toEqual([9]);
  });
});

const campaign = (over: Partial<Campaign> = {}): Campaign =>
  ({
    id: 7,
    name: 'Spring',
    description: null,
    type: 0,
    status: 1,
    actions: { edit: false, delete: true, duplicate: true, analytics: true, pause: true, play: false, ratio: true, start: false, abort: true },
    createdAt: '2026-11-25T10:00:00.000Z',
    updatedAt: '2026-11-25T10:00:00.000Z',
    startedAt: null,
    finishedAt: null,
    country: null,
    stream: 3,
    currency: 'EUR',
    cost: '0',
    hasShortURL: false,
    unsubscribeAutoAdd: false,
    sendDuplicates: false,
    contactLists: [5],
    campaignVariants: [{ id: 1, campaign: 7, name: 'name 1', text: 'Hi', color: '#4f46e5', ratio: 100 }],
    campaignsSenders: [],
    campaignTags: [{ id: 2, value: 'spring' }],
    activityTime: { working_hours: { start: '09:00', end: '20:00' }, working_days: [1, 2, 3, 4, 5], timezone: null, timezone_mode: 'recipient', dates: { start: null, end: null, scheduled: null } },
    campaignSettings: { max_domains_per_pool: null, auto_pause_after_messages: null, auto_pause_after_every_messages: null, ctr_indicators: [1, 3], metadata: { space: null, team: null, tags: [] } },
    declinedReason: null,
    haltReasonId: null,
    spamKeywords: [],
    stats: { total: 40, created: 40, sent: 10, delivered: 8, sentFailed: 0, undelivered: 0, dlrFailed: 0, optedOut: 0, clicked: 0, register: 0, ftd: 0, clickAvgTime: null, clickedPercentage: 0, optedOutPercentage: 0, ctr: 0, cost: '0.10' },
    ...over,
  }) as Campaign;

const frame = (data: unknown, accountId = '1'): RealtimeFrame => ({ id: '1-1', subject: `rt.${accountId}.campaigns`, accountId, topic: 'campaigns', type: 'campaign.updated', data: data as Record<string, unknown>, at: '' });

describe('live campaign messages (spec 4 "Live connections")', () => {
  it('takes a valid frame of the current account and moves the counters forward only', () => {
    const p = campaignPatch(frame({ campaign: { id: 7, status: 6, stats: { sent: 25, delivered: 20 } } }), 1);
    expect(p).toEqual({ id: 7, status: 6, stats: { sent: 25, delivered: 20 } });
    const c = applyPatch(campaign(), p!);
    expect([c.status, c.stats.sent, c.stats.delivered, c.stats.total]).toEqual([6, 25, 20, 40]);
    const late = applyPatch(c, campaignPatch(frame({ id: 7, stats: { sent: 12 } }), 1)!);
    expect(late.stats.sent).toBe(25);
  });

  it('reads the runner’s status changes, and takes a stats frame as "load it again"', () => {
    const changed = { ...frame({ campaignId: 7, from: 6, to: 10, haltReasonId: 6 }), type: 'campaign.status_changed' };
    expect(campaignPatch(changed, '1')).toEqual({ id: 7, status: 10, haltReasonId: 6 });
    // the old status's action flags are dropped: the shared table decides until the campaign is loaded again
    const halted = applyPatch(campaign({ status: 6 }), campaignPatch(changed, '1')!);
    expect([halted.status, halted.actions, can('play', halted), can('pause', halted)]).toEqual([10, undefined, false, true]);
    const stats = { ...frame({ campaignId: 7, status: 'delivered' }), type: 'campaign.stats' };
    expect(campaignPatch(stats, '1')).toEqual({ id: 7, refresh: true });
    expect(campaignPatch({ ...stats, data: { campaignId: 'x' } }, '1')).toBeNull();
  });

  it('ignores frames of another account and frames that break the schema', () => {
    expect(campaignPatch(frame({ id: 7, status: 6 }, '2'), 1)).toBeNull();
    expect(campaignPatch(frame({ id: 'seven', status: 6 }), 1)).toBeNull();
    expect(campaignPatch(frame({ id: 7, status: 'sending' }), 1)).toBeNull();
    expect(campaignPatch(frame({ id: 7, stats: { sent: '25' } }), 1)).toBeNull();
    expect(campaignPatch({ ...frame({ id: 7 }), topic: 'streams' }, 1)).toBeNull();
  });
});

describe('the wizard model', () => {
  it('checks each step with the spec 5 rules', () => {
    const v = emptyValues('name');
    expect(stepErrors('details', v)).toEqual({ name: 'errors.client.required', stream: 'errors.client.required' });
    expect(stepErrors('audience', v)).toEqual({ contactLists: 'errors.client.required' });
    expect(stepErrors('message', v)).toMatchObject({ variants: 'errors.client.allVariants' });
    expect(stepErrors('schedule', { ...v, hoursEnd: v.hoursStart })).toEqual({ hours: 'errors.client.notSameTime' });
    expect(stepErrors('settings', { ...v, ctrBad: '5', ctrGood: '2' })).toEqual({ ctr: 'errors.client.badMoreThanGood' });
  });

  it('round-trips a campaign and lists what an edit changed for the review popup', () => {
    const before = fromCampaign(campaign(), 'name');
    expect(toInput(before)).toMatchObject({ name: 'Spring', stream: 3, campaignTags: [2], contactLists: [5], sendDuplicates: false, campaignVariants: [{ id: 1, name: 'name 1', text: 'Hi', ratio: 100 }] });
    const after = { ...before, name: 'Spring sale', hoursEnd: '21:00', variants: [{ ...before.variants[0], text: 'Hello' }] };
    expect(changes(before, after, (_f, v) => (typeof v === 'string' ? v : JSON.stringify(v))).map((c) => c.field)).toEqual(['name', 'variants', 'hours']);
    expect(changes(before, { ...before }, String)).toEqual([]);
  });

  it('gives every contact variable the texts use a link (skip by default), saves its default value and rule, and needs a default to use one', () => {
    const known = [{ id: 2, name: 'firstName' }, { id: 40, name: 'code' }];
    const base = fromCampaign(campaign(), 'name');
    const shorturl = { name: 'shorturl' as const, offer: 5, source: 'pool' as const, domains: [], pool: 3, expired: '', rest: {} };
    const v = { ...base, variants: [{ ...base.variants[0], text: 'Hi {{firstName}}, {{code}} {{unknownOne}} {{shorturl}}' }], links: [shorturl] };
    const rows = withVariableRows(v, known);
    expect(rows).toEqual([
      { name: 'firstName', variable: 2, defaultValue: '', missingRule: 0 },
      { name: 'code', variable: 40, defaultValue: '', missingRule: 0 },
    ]);
    expect(withVariableRows({ ...v, variables: rows ?? [] }, known)).toBeNull();
    const edited = { ...v, variables: [{ name: 'firstName', variable: 2, defaultValue: '', missingRule: 1 as const }, { name: 'code', variable: 40, defaultValue: 'X1', missingRule: 0 as const }] };
    expect(stepErrors('message', edited)).toEqual({ 'variables.firstName.defaultValue': 'errors.client.required' });
    const fixed = { ...edited, variables: [{ ...edited.variables[0], defaultValue: 'friend' }, edited.variables[1]] };
    expect(stepErrors('message', fixed)).toEqual({});
    expect(toInput(fixed).campaignVariables).toEqual([
      { variable: 2, variableName: 'firstName', defaultValue: 'friend', missingRule: 1 },
      { variable: 40, variableName: 'code', defaultValue: 'X1', missingRule: 0 },
      { variable: 7, variableName: 'shorturl', defaultValue: null, missingRule: 0, params: { domains: [], domain_pool: 3, offer: 5, expired: null } },
    ]);
    // a variable no text uses any more is not sent; the review popup names the change
    expect(toInput({ ...fixed, variants: [{ ...fixed.variants[0], text: 'Hi {{code}}' }] }).campaignVariables).toEqual([{ variable: 40, variableName: 'code', defaultValue: 'X1', missingRule: 0 }]);
    expect(changes({ ...v, variables: rows ?? [] }, fixed, String).map((c) => c.field)).toEqual(['variables']);
  });

  it('needs a short link\'s offer and its domains or pool, saves them as the link params, and loads them back', () => {
    const base = fromCampaign(campaign(), 'name');
    const v = { ...base, variants: [{ ...base.variants[0], text: 'Sale {{shorturl}} stop: {{optout}}' }] };
    expect(usedLinks(v)).toEqual(['shorturl', 'optout']);
    // nothing chosen: the short URL needs its offer and domains; the opt-out link its domains (it has no offer)
    expect(stepErrors('message', v)).toEqual({ 'links.shorturl.offer': 'errors.client.required', 'links.shorturl.domains': 'errors.client.required', 'links.optout.domains': 'errors.client.required' });
    const chosen = {
      ...v,
      links: [
        { ...emptyLinkRow('shorturl'), offer: 9, source: 'pool' as const, pool: '' as const, expired: '0' },
        { ...emptyLinkRow('optout'), domains: [4, 6], rest: { section: 'footer' } },
      ],
    };
    expect(stepErrors('message', chosen)).toEqual({ 'links.shorturl.pool': 'errors.client.required', 'links.shorturl.expired': 'errors.client.onlyPositive' });
    const done = { ...chosen, links: [{ ...chosen.links[0], pool: 3, expired: '30' }, chosen.links[1]] };
    expect(stepErrors('message', done)).toEqual({});
    const sent = toInput(done).campaignVariables ?? [];
    expect(sent).toEqual([
      { variable: 7, variableName: 'shorturl', defaultValue: null, missingRule: 0, params: { domains: [], domain_pool: 3, offer: 9, expired: 30 } },
      { variable: 8, variableName: 'optout', defaultValue: null, missingRule: 0, params: { section: 'footer', domains: [4, 6], domain_pool: null, expired: null } },
    ]);
    // what the server answers for the campaign's variables reads back as the same rows
    const loaded = linkRows(sent.map((x) => ({ variableName: x.variableName, params: x.params ?? null })));
    expect(linkRows(toInput({ ...done, links: loaded }).campaignVariables?.map((x) => ({ variableName: x.variableName, params: x.params ?? null })) ?? [])).toEqual(loaded);
    expect(variableRows(sent.map((x) => ({ ...x, defaultValue: null })))).toEqual([]);
    expect(changes(v, done, String).map((c) => c.field)).toEqual(['links']);
  });
});
