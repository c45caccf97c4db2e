import { evenRatios, hoursError, ctrError, positiveOrEmpty, ratiosError, variantsError, parseRatio, variablesIn } from '../rules';
import { CAMPAIGN_DEFAULTS, type CampaignVariableLinkParams } from '@switchboard/contracts/src/campaigns';
import { CampaignType } from '../status';
import type { ActivityTime, Campaign, CampaignInput } from '../types';

/** Spec 9 defaults: CTR indicators good 3, bad 1; unsubscribeAutoAdd 0, sendDuplicates 0. */
export const DEFAULT_CTR = CAMPAIGN_DEFAULTS.ctrIndicators;
/** Colours given to new variants in turn. */
export const VARIANT_COLOURS = ['#4f46e5', '#ff9600', '#16a34a', '#0ea5e9', '#db2777', '#7c3aed', '#ca8a04', '#0d9488'];

export type TimezoneMode = ActivityTime['timezone_mode'];
export const TIMEZONE_MODES: TimezoneMode[] = ['recipient', 'local', 'selected'];

let keySeq = 0;
export const rowKey = (): string => `r${++keySeq}`;

export interface VariantRow {
  key: string;
  id?: number;
  name: string;
  text: string;
  color: string;
  ratio: string;
}
export interface SenderRow {
  key: string;
  sender: number | '';
  ratio: string;
}

/** A campaign variable link as the message step edits it (spec 3): what a recipient without a value gets. */
export interface VariableRow {
  name: string;
  /** The contact variable's id. */
  variable: number;
  defaultValue: string;
  /** 0: skip the recipient (the default); 1: use the default value. */
  missingRule: 0 | 1;
}

/** Placeholders that are not contact values: the phone is always there; links are made per recipient. */
export const NOT_CONTACT_VALUES = ['phone', 'shorturl', 'optout'];

/** The link variables (spec 3 special variables) and their standard variable ids. */
export const LINK_VARIABLES = { shorturl: 7, optout: 8 } as const;
export type LinkName = keyof typeof LINK_VARIABLES;

/**
 * A link variable's params as the message step edits them (spec 3 campaign variable link params): the offer (short
 * URL only), the domains or the pool the links are spread over, and the days after which a link expires.
 */
export interface LinkRow {
  name: LinkName;
  offer: number | '';
  source: 'domains' | 'pool';
  domains: number[];
  pool: number | '';
  expired: string;
  /** Params the wizard does not edit (section, id), kept as loaded. */
  rest: CampaignVariableLinkParams;
}

export interface WizardValues {
  name: string;
  description: string;
  type: number;
  stream: number | '';
  tags: number[];
  contactLists: number[];
  sendDuplicates: boolean;
  unsubscribeAutoAdd: boolean;
  variants: VariantRow[];
  senders: SenderRow[];
  /** Variable links edited or loaded; a variable the texts use without one is sent with the defaults (skip, no default). */
  variables: VariableRow[];
  /** The link variables' params ({{shorturl}}, {{optout}}); those the texts use are saved with the campaign. */
  links: LinkRow[];
  timezoneMode: TimezoneMode;
  timezone: string;
  workingDays: number[];
  hoursStart: string;
  hoursEnd: string;
  dateStart: string;
  dateEnd: string;
  scheduled: string;
  autoPauseAfter: string;
  autoPauseEvery: string;
  ctrBad: string;
  ctrGood: string;
}

export const STEPS = ['details', 'audience', 'message', 'senders', 'schedule', 'settings'] as const;
export type Step = (typeof STEPS)[number];

export function emptyValues(variantWord: string): WizardValues {
  return {
    name: '',
    description: '',
    type: CampaignType.outbound,
    stream: '',
    tags: [],
    contactLists: [],
    sendDuplicates: CAMPAIGN_DEFAULTS.sendDuplicates,
    unsubscribeAutoAdd: CAMPAIGN_DEFAULTS.unsubscribeAutoAdd,
    variants: [{ key: rowKey(), name: `${variantWord} 1`, text: '', color: VARIANT_COLOURS[0], ratio: '100' }],
    senders: [],
    variables: [],
    links: [],
    timezoneMode: 'recipient',
    timezone: '',
    workingDays: [1, 2, 3, 4, 5],
    hoursStart: '09:00',
    hoursEnd: '20:00',
    dateStart: '',
    dateEnd: '',
    scheduled: '',
    autoPauseAfter: '',
    autoPauseEvery: '',
    ctrBad: String(DEFAULT_CTR.bad),
    ctrGood: String(DEFAULT_CTR.good),
  };
}

/** `2026-11-25T10:00:00.000Z` to the `datetime-local` field's `2026-11-25T10:00` in the browser's time, and back. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function fromLocalInput(v: string): string | null {
  if (!v) return null;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function fromCampaign(c: Campaign, variantWord: string): WizardValues {
  const base = emptyValues(variantWord);
  const at = c.activityTime;
  const ctr = c.campaignSettings?.ctr_indicators ?? [DEFAULT_CTR.bad, DEFAULT_CTR.good];
  return {
    ...base,
    name: c.name,
    description: c.description ?? '',
    type: c.type,
    stream: c.stream ?? '',
    tags: (c.campaignTags ?? []).map((t) => t.id),
    contactLists: [...(c.contactLists ?? [])],
    sendDuplicates: !!c.sendDuplicates,
    unsubscribeAutoAdd: !!c.unsubscribeAutoAdd,
    variants: c.campaignVariants.length
      ? c.campaignVariants.map((v, i) => ({ key: rowKey(), id: v.id, name: v.name, text: v.text, color: v.color || VARIANT_COLOURS[i % VARIANT_COLOURS.length], ratio: String(v.ratio) }))
      : base.variants,
    senders: (c.campaignsSenders ?? []).map((s) => ({ key: rowKey(), sender: s.sender, ratio: String(s.ratio) })),
    timezoneMode: at?.timezone_mode ?? 'recipient',
    timezone: at?.timezone ?? '',
    workingDays: at?.working_days ?? base.workingDays,
    hoursStart: at?.working_hours?.start ?? base.hoursStart,
    hoursEnd: at?.working_hours?.end ?? base.hoursEnd,
    dateStart: toLocalInput(at?.dates?.start),
    dateEnd: toLocalInput(at?.dates?.end),
    scheduled: toLocalInput(at?.dates?.scheduled),
    autoPauseAfter: c.campaignSettings?.auto_pause_after_messages ? String(c.campaignSettings.auto_pause_after_messages) : '',
    autoPauseEvery: c.campaignSettings?.auto_pause_after_every_messages ? String(c.campaignSettings.auto_pause_after_every_messages) : '',
    ctrBad: String(ctr[0]),
    ctrGood: String(ctr[1]),
  };
}

/** The contact variables the texts use (`{{name}}`), in order of first use. */
export function usedVariables(v: Pick<WizardValues, 'variants'>): string[] {
  return [...new Set(v.variants.flatMap((x) => variablesIn(x.text)))].filter((n) => !NOT_CONTACT_VALUES.includes(n));
}

/**
 * The variables the texts use that have no link yet get one with spec 3's defaults (skip the recipient, no default
 * value), so what the message step shows is what is saved and what the runner does. Unknown names are left out.
 */
export function withVariableRows(v: Pick<WizardValues, 'variants' | 'variables'>, known: ReadonlyArray<{ id: number; name: string }>): VariableRow[] | null {
  const missing = usedVariables(v).filter((name) => !v.variables.some((x) => x.name === name));
  const added = missing.flatMap((name) => {
    const k = known.find((x) => x.name === name);
    return k ? [{ name, variable: k.id, defaultValue: '', missingRule: 0 as const }] : [];
  });
  return added.length ? [...v.variables, ...added] : null;
}

/** The campaign's variable links in the API's shape (`/campaigns/{id}/variables`). */
export function variableRows(links: ReadonlyArray<{ variable: number; variableName: string; defaultValue: string | null; missingRule: number }>): VariableRow[] {
  return links.filter((l) => !isLinkName(l.variableName)).map((l) => ({ name: l.variableName, variable: l.variable, defaultValue: l.defaultValue ?? '', missingRule: l.missingRule === 1 ? 1 : 0 }));
}

const isLinkName = (name: string): name is LinkName => name === 'shorturl' || name === 'optout';

/** A link variable with nothing chosen yet: its domains picked from the list. */
export const emptyLinkRow = (name: LinkName): LinkRow => ({ name, offer: '', source: 'domains', domains: [], pool: '', expired: '', rest: {} });

/** The link variables' params loaded with the campaign (`/campaigns/{id}/variables`). */
export function linkRows(links: ReadonlyArray<{ variableName: string; params: CampaignVariableLinkParams | null }>): LinkRow[] {
  return links.flatMap((l) => {
    if (!isLinkName(l.variableName)) return [];
    const { domains, domain_pool, offer, expired, ...rest } = l.params ?? {};
    const pool = typeof domain_pool === 'number' ? domain_pool : '';
    return [{ name: l.variableName, offer: typeof offer === 'number' ? offer : '', source: pool !== '' ? 'pool' : 'domains', domains: domains ?? [], pool, expired: typeof expired === 'number' ? String(expired) : '', rest }];
  });
}

/** The link variables the texts use ({{shorturl}}, {{optout}}), in a fixed order. */
export function usedLinks(v: Pick<WizardValues, 'variants'>): LinkName[] {
  const used = new Set(v.variants.flatMap((x) => variablesIn(x.text)));
  return (['shorturl', 'optout'] as const).filter((n) => used.has(n));
}

/** The params a link row saves: the domains or the pool (the other cleared), the offer for a short URL, the expiry. */
export function linkParams(r: LinkRow): CampaignVariableLinkParams {
  return {
    ...r.rest,
    domains: r.source === 'domains' ? r.domains : [],
    domain_pool: r.source === 'pool' && r.pool !== '' ? r.pool : null,
    ...(r.name === 'shorturl' ? { offer: r.offer === '' ? null : r.offer } : {}),
    expired: r.expired.trim() ? Number(r.expired) : null,
  };
}

export function activityTime(v: WizardValues): ActivityTime {
  return {
    working_hours: { start: v.hoursStart, end: v.hoursEnd },
    working_days: [...v.workingDays].sort((a, b) => a - b),
    timezone_mode: v.timezoneMode,
    timezone: v.timezoneMode === 'selected' ? v.timezone || null : null,
    dates: { start: fromLocalInput(v.dateStart), end: fromLocalInput(v.dateEnd), scheduled: fromLocalInput(v.scheduled) },
  };
}

/** The body of a create or update: the variable links are those of the variables the texts still use. */
export function toInput(v: WizardValues): CampaignInput {
  const used = usedVariables(v);
  return {
    name: v.name.trim(),
    description: v.description.trim() || null,
    type: v.type,
    stream: v.stream === '' ? null : v.stream,
    campaignTags: v.tags,
    contactLists: v.contactLists,
    sendDuplicates: v.sendDuplicates,
    unsubscribeAutoAdd: v.unsubscribeAutoAdd,
    campaignVariants: v.variants.map((x) => ({ ...(x.id ? { id: x.id } : {}), name: x.name.trim(), text: x.text, color: x.color, ratio: parseRatio(x.ratio) })),
    campaignsSenders: v.senders.filter((s) => s.sender !== '').map((s) => ({ sender: s.sender as number, ratio: parseRatio(s.ratio) })),
    campaignVariables: v.variables
      .filter((r) => used.includes(r.name))
      .map((r) => ({ variable: r.variable, variableName: r.name, defaultValue: r.defaultValue === '' ? null : r.defaultValue, missingRule: r.missingRule }))
      .concat(
        usedLinks(v).map((name) => {
          const row = v.links.find((r) => r.name === name) ?? emptyLinkRow(name);
          return { variable: LINK_VARIABLES[name], variableName: name, defaultValue: null, missingRule: 0 as const, params: linkParams(row) };
        }),
      ),
    activityTime: activityTime(v),
    campaignSettings: {
      auto_pause_after_messages: v.autoPauseAfter.trim() ? Number(v.autoPauseAfter) : null,
      auto_pause_after_every_messages: v.autoPauseEvery.trim() ? Number(v.autoPauseEvery) : null,
      ctr_indicators: [Number(v.ctrBad), Number(v.ctrGood)],
    },
  };
}

/** Errors of one step, keyed by field (translation keys). */
export function stepErrors(step: Step, v: WizardValues): Record<string, string> {
  const e: Record<string, string> = {};
  switch (step) {
    case 'details':
      if (!v.name.trim()) e.name = 'errors.client.required';
      if (v.stream === '') e.stream = 'errors.client.required';
      break;
    case 'audience':
      if (v.contactLists.length === 0) e.contactLists = 'errors.client.required';
      break;
    case 'message': {
      const err = variantsError(v.variants.map((x) => ({ text: x.text, ratio: parseRatio(x.ratio) })));
      if (err) e.variants = err;
      v.variants.forEach((x, i) => {
        if (!x.text.trim()) e[`variants.${i}.text`] = 'errors.client.required';
        if (Number.isNaN(parseRatio(x.ratio))) e[`variants.${i}.ratio`] = 'errors.client.digits';
      });
      for (const name of usedVariables(v)) {
        const r = v.variables.find((x) => x.name === name);
        if (r?.missingRule === 1 && !r.defaultValue.trim()) e[`variables.${name}.defaultValue`] = 'errors.client.required';
      }
      // a link variable needs where its links go: the offer (short URL), and domains or a pool
      for (const name of usedLinks(v)) {
        const r = v.links.find((x) => x.name === name) ?? emptyLinkRow(name);
        if (name === 'shorturl' && r.offer === '') e[`links.${name}.offer`] = 'errors.client.required';
        if (r.source === 'domains' && r.domains.length === 0) e[`links.${name}.domains`] = 'errors.client.required';
        if (r.source === 'pool' && r.pool === '') e[`links.${name}.pool`] = 'errors.client.required';
        const x = positiveOrEmpty(r.expired);
        if (x) e[`links.${name}.expired`] = x;
      }
      break;
    }
    case 'senders': {
      const rows = v.senders.filter((s) => s.sender !== '');
      if (rows.length) {
        const err = ratiosError(rows.map((s) => parseRatio(s.ratio)));
        if (err) e.senders = err;
      }
      const seen = new Set<number>();
      v.senders.forEach((s, i) => {
        if (s.sender === '') e[`senders.${i}.sender`] = 'errors.client.required';
        else if (seen.has(s.sender)) e[`senders.${i}.sender`] = 'errors.client.duplicateSender';
        else seen.add(s.sender);
        if (Number.isNaN(parseRatio(s.ratio))) e[`senders.${i}.ratio`] = 'errors.client.digits';
      });
      break;
    }
    case 'schedule': {
      const h = hoursError(v.hoursStart, v.hoursEnd);
      if (h) e.hours = h;
      if (v.workingDays.length === 0) e.workingDays = 'errors.client.required';
      if (v.timezoneMode === 'selected' && !v.timezone) e.timezone = 'errors.client.required';
      const s = fromLocalInput(v.dateStart);
      const end = fromLocalInput(v.dateEnd);
      if (s && end && end <= s) e.dateEnd = 'errors.client.endBeforeStart';
      break;
    }
    case 'settings': {
      const a = positiveOrEmpty(v.autoPauseAfter);
      if (a) e.autoPauseAfter = a;
      const b = positiveOrEmpty(v.autoPauseEvery);
      if (b) e.autoPauseEvery = b;
      const c = ctrError(Number(v.ctrBad.trim() === '' ? Number.NaN : v.ctrBad), Number(v.ctrGood.trim() === '' ? Number.NaN : v.ctrGood));
      if (c) e.ctr = c;
      break;
    }
  }
  return e;
}

/** Splits the ratios evenly again (spec 5: an even split, the remainder on the last). */
export function rebalance<T extends { ratio: string }>(rows: T[]): T[] {
  const r = evenRatios(rows.length);
  return rows.map((row, i) => ({ ...row, ratio: String(r[i]) }));
}

export interface Change {
  field: string;
  before: string;
  after: string;
}

/**
 * The changes-review popup (spec 2): every field whose value an edit changes, as text before and after. `describe`
 * names ids (lists, senders, tags, the stream) for people.
 */
export function changes(before: WizardValues, after: WizardValues, describe: (field: string, value: unknown) => string): Change[] {
  const out: Change[] = [];
  const fields: Array<[string, (v: WizardValues) => unknown]> = [
    ['name', (v) => v.name.trim()],
    ['description', (v) => v.description.trim()],
    ['stream', (v) => v.stream],
    ['tags', (v) => [...v.tags].sort((a, b) => a - b)],
    ['contactLists', (v) => [...v.contactLists].sort((a, b) => a - b)],
    ['sendDuplicates', (v) => v.sendDuplicates],
    ['unsubscribeAutoAdd', (v) => v.unsubscribeAutoAdd],
    ['variants', (v) => v.variants.map((x) => ({ name: x.name.trim(), text: x.text, ratio: x.ratio, color: x.color }))],
    ['senders', (v) => v.senders.map((s) => ({ sender: s.sender, ratio: s.ratio }))],
    ['variables', (v) => v.variables.filter((x) => usedVariables(v).includes(x.name)).map((x) => ({ name: x.name, defaultValue: x.defaultValue, missingRule: x.missingRule }))],
    ['links', (v) => usedLinks(v).map((name) => ({ name, ...linkParams(v.links.find((r) => r.name === name) ?? emptyLinkRow(name)) }))],
    ['timezoneMode', (v) => v.timezoneMode],
    ['timezone', (v) => (v.timezoneMode === 'selected' ? v.timezone : '')],
    ['workingDays', (v) => [...v.workingDays].sort((a, b) => a - b)],
    ['hours', (v) => `${v.hoursStart}–${v.hoursEnd}`],
    ['dateStart', (v) => v.dateStart],
    ['dateEnd', (v) => v.dateEnd],
    ['scheduled', (v) => v.scheduled],
    ['autoPauseAfter', (v) => v.autoPauseAfter.trim()],
    ['autoPauseEvery', (v) => v.autoPauseEvery.trim()],
    ['ctr', (v) => `${v.ctrBad.trim()} / ${v.ctrGood.trim()}`],
  ];
  for (const [field, get] of fields) {
    const a = get(before);
    const b = get(after);
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ field, before: describe(field, a), after: describe(field, b) });
  }
  return out;
}
