import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  analyzeSms,
  isGsm7,
  UCS2_MULTI,
  UCS2_SINGLE,
  CampaignAction,
  MissingRule,
  StandardVariable,
  type CampaignSenderDto,
  type CampaignStatusValue,
  type CampaignVariableDto,
  type CampaignVariableLinkParams,
  type CampaignVariantDto,
  type MissingRuleValue,
  allLiterals,
  combinations,
  longestExpansion,
  parseSpintax,
  previewSamples,
  SpintaxError,
  variablesOf,
  type SpinNode,
  type WordLists,
} from '@switchboard/contracts';
import { AppError, parseListQuery, RequestContext, type ListResult } from '@switchboard/platform';
import { CAMPAIGNS_CONNECTION, CAMPAIGNS_OPTIONS, type ResolvedCampaignsOptions } from '../campaigns.options';
import { Clock } from '../clock';
import { senderDto, variantDto, type SenderLinkRow, type VariantRow } from './campaign-model';
import { CampaignStatusService } from './campaign-status.service';
import { idOf, int, isObject, str, Violations } from './input';
import { checkText, COLOUR, loadWordLists, MAX_TEXT, VARIANT_COLOURS } from './variants-input';

type Body = Record<string, unknown>;

/** Lengths assumed for variables when counting the longest message (docs/decisions/0031): a custom one 20, or its default value's length if longer. */
export const ASSUMED_VARIABLE_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  phone: 15,
  firstName: 20,
  lastName: 20,
  email: 50,
  country: 2,
  timezone: 32,
  shorturl: 30,
  optout: 30,
});
const CUSTOM_VARIABLE_LENGTH = 20;
const STANDARD_NAMES: Record<string, string> = Object.fromEntries(Object.entries(StandardVariable).map(([name, id]) => [String(id), name]));
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

interface VariableRow {
  id: string;
  campaign_id: string;
  variable_id: string;
  variable_name: string;
  default_value: string | null;
  missing_rule: number;
  params: CampaignVariableLinkParams;
}

const variableDto = (r: VariableRow): CampaignVariableDto => ({
  id: Number(r.id),
  campaign: Number(r.campaign_id),
  variable: Number(r.variable_id),
  variableName: r.variable_name,
  defaultValue: r.default_value,
  missingRule: r.missing_rule as MissingRuleValue,
  params: r.params,
});

const VARIANT_SELECT = `SELECT id::text, campaign_id::text, name, text, color, ratio, position, sent::text, delivered::text, sent_failed::text, undelivered::text,
  dlr_failed::text, opted_out::text, clicked::text, cost_micros::text FROM campaigns.campaign_variant`;
const SENDER_SELECT = `SELECT cs.id::text, cs.campaign_id::text, cs.sender_id::text, s.value AS sender_value, cs.ratio, cs.position, cs.sent::text, cs.delivered::text,
  cs.sent_failed::text, cs.undelivered::text, cs.cost_micros::text
  FROM campaigns.campaign_sender cs LEFT JOIN campaigns.sender s ON s.sender_id = cs.sender_id AND s.account_id = cs.account_id AND NOT s.deleted`;

/**
 * The parts of a campaign edited one by one: variable links (`/campaigns_variables`), senders (`/campaigns_senders`),
 * variants (`/campaign_variants`); and the spintax tools (preview, longest expansion). Changing a part is an edit of
 * the campaign: only in the statuses spec 4 allows edits in (running campaigns change ratios with
 * `PUT /campaigns/{id}/ratios`).
 */
@Injectable()
export class CampaignPartsService {
  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) private readonly ds: DataSource,
    @Inject(CAMPAIGNS_OPTIONS) private readonly options: ResolvedCampaignsOptions,
    private readonly status: CampaignStatusService,
    private readonly clock: Clock,
  ) {}

  /** The account's campaign, locked, and 409 unless its status allows edits. */
  private async editable(m: Pick<EntityManager, 'query'>, campaignId: string | null, path = 'campaign'): Promise<string> {
    if (!campaignId) throw AppError.validation([{ propertyPath: path, message: 'This value should not be blank.', code: 'errors.client.required' }]);
    const [row] = await m.query<Array<{ status: number }>>(`SELECT status FROM campaigns.campaign WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR UPDATE`, [
      campaignId,
      RequestContext.accountId(),
    ]);
    if (!row) throw AppError.notFound('campaign');
    this.status.assertAllowed(CampaignAction.Edit, row.status as CampaignStatusValue);
    await m.query(`UPDATE campaigns.campaign SET updated_at = $2 WHERE id = $1`, [campaignId, this.clock.now()]);
    return campaignId;
  }

  private async campaignExists(campaignId: string): Promise<void> {
    const [row] = await this.ds.query<unknown[]>(`SELECT 1 FROM campaigns.campaign WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`, [campaignId, RequestContext.accountId()]);
    if (!row) throw AppError.notFound('campaign');
  }

  private filterCampaign(query: Body, values: unknown[], where: string[], col = 'campaign_id'): void {
    const raw = query.campaign ?? query.campaign_id;
    if (raw === undefined || raw === '') return;
    const c = idOf(raw);
    if (!c) throw AppError.validation([{ propertyPath: 'campaign', message: 'a campaign id' }]);
    values.push(c);
    where.push(`${col} = $${values.length}`);
  }

  // ---------------------------------------------------------------- variable links

  async listVariables(query: Body): Promise<ListResult<CampaignVariableDto>> {
    const q = parseListQuery(query, { sortable: ['id'], defaultOrder: { id: 'ASC' }, defaultItemsPerPage: 500, maxItemsPerPage: 2000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    this.filterCampaign(query, values, where);
    const rows = await this.ds.query<VariableRow[]>(
      `SELECT id::text, campaign_id::text, variable_id::text, variable_name, default_value, missing_rule, params FROM campaigns.campaign_variable
        WHERE ${where.join(' AND ')} ORDER BY id ${q.order.id ?? 'ASC'} LIMIT ${q.take} OFFSET ${q.skip}`,
      values,
    );
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.campaign_variable WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map(variableDto), total: n };
  }

  async campaignVariables(campaignId: string): Promise<ListResult<CampaignVariableDto>> {
    if (!/^\d{1,18}$/.test(campaignId)) throw AppError.notFound('campaign');
    await this.campaignExists(campaignId);
    return this.listVariables({ campaign: campaignId, itemsPerPage: '2000' });
  }

  private async variableRow(id: string): Promise<VariableRow> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('campaign variable');
    const [row] = await this.ds.query<VariableRow[]>(
      `SELECT id::text, campaign_id::text, variable_id::text, variable_name, default_value, missing_rule, params FROM campaigns.campaign_variable WHERE id = $1 AND account_id = $2`,
      [id, RequestContext.accountId()],
    );
    if (!row) throw AppError.notFound('campaign variable');
    return row;
  }

  async getVariable(id: string): Promise<CampaignVariableDto> {
    return variableDto(await this.variableRow(id));
  }

  private variableFields(v: Violations, body: Body, creating: boolean) {
    let variableId: string | undefined;
    let variableName: string | undefined;
    if (body.variable !== undefined || creating) {
      const vid = idOf(body.variable);
      if (!vid) v.add('variable', 'The contact variable id.', 'errors.client.required');
      else variableId = vid;
    }
    const name = str(v, body, 'variableName', { max: 64 });
    if (typeof name === 'string') {
      if (!VARIABLE_NAME.test(name)) v.add('variableName', 'Letters, digits, _ . - (starting with a letter or _).');
      else variableName = name;
    } else if (variableId && STANDARD_NAMES[variableId]) variableName = STANDARD_NAMES[variableId];
    if (creating && variableId && !variableName) v.add('variableName', 'Name the variable as it is written in the text ({{name}}).', 'errors.client.required');
    const defaultValue = str(v, body, 'defaultValue', { nullable: true, max: 1000, trim: false });
    let missingRule: number | undefined;
    if (body.missingRule !== undefined) {
      const r = int(v, 'missingRule', body.missingRule, { min: 0, max: 1 });
      if (typeof r === 'number') missingRule = r;
    }
    const params = parseLinkParams(v, body.params);
    return { variableId, variableName, defaultValue, missingRule, params };
  }

  async createVariable(body: Body): Promise<CampaignVariableDto> {
    const acc = RequestContext.accountId();
    const v = new Violations();
    const f = this.variableFields(v, body, true);
    const rule = f.missingRule ?? MissingRule.SkipRecipient;
    if (rule === MissingRule.UseDefault && !f.defaultValue) v.add('defaultValue', 'The default value is needed when a missing value uses it.', 'errors.client.required');
    v.done();
    const id = await this.ds.transaction(async (m) => {
      const campaignId = await this.editable(m, idOf(body.campaign ?? body.campaign_id));
      const [row] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.campaign_variable (account_id, campaign_id, variable_id, variable_name, default_value, missing_rule, params)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (campaign_id, variable_id) DO NOTHING RETURNING id::text`,
        [acc, campaignId, f.variableId, f.variableName, f.defaultValue ?? null, rule, JSON.stringify(f.params ?? {})],
      );
      if (!row) throw AppError.validation([{ propertyPath: 'variable', message: 'This variable is already linked to the campaign.' }]);
      return row.id;
    });
    return this.getVariable(id);
  }

  async updateVariable(id: string, body: Body): Promise<CampaignVariableDto> {
    const row = await this.variableRow(id);
    const v = new Violations();
    const f = this.variableFields(v, body, false);
    const rule = f.missingRule ?? row.missing_rule;
    const def = f.defaultValue !== undefined ? f.defaultValue : row.default_value;
    if (rule === MissingRule.UseDefault && !def) v.add('defaultValue', 'The default value is needed when a missing value uses it.', 'errors.client.required');
    v.done();
    await this.ds.transaction(async (m) => {
      await this.editable(m, row.campaign_id);
      await m.query(
        `UPDATE campaigns.campaign_variable SET variable_id = coalesce($2, variable_id), variable_name = coalesce($3, variable_name), default_value = $4, missing_rule = $5,
                params = coalesce($6::jsonb, params) WHERE id = $1`,
        [id, f.variableId ?? null, f.variableName ?? null, def, rule, f.params ? JSON.stringify(f.params) : null],
      );
    });
    return this.getVariable(id);
  }

  async removeVariable(id: string): Promise<void> {
    const row = await this.variableRow(id);
    await this.ds.transaction(async (m) => {
      await this.editable(m, row.campaign_id);
      await m.query(`DELETE FROM campaigns.campaign_variable WHERE id = $1`, [id]);
    });
  }

  // ---------------------------------------------------------------- senders

  async listSenders(query: Body): Promise<ListResult<CampaignSenderDto>> {
    const q = parseListQuery(query, { sortable: ['id'], defaultOrder: { id: 'ASC' }, defaultItemsPerPage: 500, maxItemsPerPage: 2000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['cs.account_id = $1'];
    this.filterCampaign(query, values, where, 'cs.campaign_id');
    const rows = await this.ds.query<SenderLinkRow[]>(`${SENDER_SELECT} WHERE ${where.join(' AND ')} ORDER BY cs.position, cs.id LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.campaign_sender cs WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map(senderDto), total: n };
  }

  private async senderRow(id: string): Promise<SenderLinkRow> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('campaign sender');
    const [row] = await this.ds.query<SenderLinkRow[]>(`${SENDER_SELECT} WHERE cs.id = $1 AND cs.account_id = $2`, [id, RequestContext.accountId()]);
    if (!row) throw AppError.notFound('campaign sender');
    return row;
  }

  async getSender(id: string): Promise<CampaignSenderDto> {
    return senderDto(await this.senderRow(id));
  }

  /** Adds a sender with its ratio (default: what is left of 100). The campaign's ratios must total 100 again before it starts. */
  async createSender(body: Body): Promise<CampaignSenderDto> {
    const acc = RequestContext.accountId();
    const v = new Violations();
    const senderId = idOf(body.sender);
    if (!senderId) v.add('sender', 'This value should not be blank.', 'errors.client.required');
    const ratio = int(v, 'ratio', body.ratio, { min: 0, max: 100 });
    v.done();
    const id = await this.ds.transaction(async (m) => {
      const campaignId = await this.editable(m, idOf(body.campaign ?? body.campaign_id));
      const [s] = await m.query<unknown[]>(`SELECT 1 FROM campaigns.sender WHERE sender_id = $1 AND account_id = $2 AND NOT deleted`, [senderId, acc]);
      if (!s) throw AppError.validation([{ propertyPath: 'sender', message: 'No such sender in this account.' }]);
      const [{ used, n }] = await m.query<Array<{ used: number; n: number }>>(`SELECT coalesce(sum(ratio), 0)::int AS used, count(*)::int AS n FROM campaigns.campaign_sender WHERE campaign_id = $1`, [campaignId]);
      const [row] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.campaign_sender (account_id, campaign_id, sender_id, ratio, position) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (campaign_id, sender_id) DO NOTHING RETURNING id::text`,
        [acc, campaignId, senderId, ratio ?? Math.max(0, 100 - used), n],
      );
      if (!row) throw AppError.validation([{ propertyPath: 'sender', message: 'This sender is already in the campaign.' }]);
      return row.id;
    });
    return this.getSender(id);
  }

  async updateSender(id: string, body: Body): Promise<CampaignSenderDto> {
    const row = await this.senderRow(id);
    const v = new Violations();
    const ratio = int(v, 'ratio', body.ratio, { min: 0, max: 100 });
    if (ratio === undefined) v.add('ratio', 'This value should not be blank.', 'errors.client.required');
    v.done();
    await this.ds.transaction(async (m) => {
      await this.editable(m, row.campaign_id);
      await m.query(`UPDATE campaigns.campaign_sender SET ratio = $2 WHERE id = $1`, [id, ratio]);
    });
    return this.getSender(id);
  }

  async removeSender(id: string): Promise<void> {
    const row = await this.senderRow(id);
    await this.ds.transaction(async (m) => {
      await this.editable(m, row.campaign_id);
      await m.query(`DELETE FROM campaigns.campaign_sender WHERE id = $1`, [id]);
    });
  }

  // ---------------------------------------------------------------- variants

  async listVariants(query: Body): Promise<ListResult<CampaignVariantDto>> {
    const q = parseListQuery(query, { sortable: ['id'], defaultOrder: { id: 'ASC' }, defaultItemsPerPage: 500, maxItemsPerPage: 2000 });
    const values: unknown[] = [RequestContext.accountId()];
    const where = ['account_id = $1'];
    this.filterCampaign(query, values, where);
    const rows = await this.ds.query<VariantRow[]>(`${VARIANT_SELECT} WHERE ${where.join(' AND ')} ORDER BY position, id LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.campaign_variant WHERE ${where.join(' AND ')}`, values);
    return { items: rows.map(variantDto), total: n };
  }

  private async variantRow(id: string): Promise<VariantRow> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('campaign variant');
    const [row] = await this.ds.query<VariantRow[]>(`${VARIANT_SELECT} WHERE id = $1 AND account_id = $2`, [id, RequestContext.accountId()]);
    if (!row) throw AppError.notFound('campaign variant');
    return row;
  }

  async getVariant(id: string): Promise<CampaignVariantDto> {
    return variantDto(await this.variantRow(id));
  }

  private async variantFields(m: Pick<EntityManager, 'query'>, body: Body, creating: boolean) {
    const v = new Violations();
    const text = str(v, body, 'text', { required: creating, max: MAX_TEXT, trim: false });
    if (typeof text === 'string') {
      if (!text.trim()) v.add('text', 'Every variant needs a text.', 'errors.client.allVariants');
      else checkText(v, 'text', text, await loadWordLists(m, RequestContext.accountId()));
    }
    const name = str(v, body, 'name', { max: 255 });
    const ratio = int(v, 'ratio', body.ratio, { min: 0, max: 100 });
    let color: string | undefined;
    if (body.color !== undefined) {
      if (typeof body.color !== 'string' || !COLOUR.test(body.color)) v.add('color', 'A colour is #RRGGBB.');
      else color = body.color.toLowerCase();
    }
    v.done();
    return { text: text ?? undefined, name: name || undefined, ratio: ratio ?? undefined, color };
  }

  async createVariant(body: Body): Promise<CampaignVariantDto> {
    const acc = RequestContext.accountId();
    const id = await this.ds.transaction(async (m) => {
      const f = await this.variantFields(m, body, true);
      const campaignId = await this.editable(m, idOf(body.campaign ?? body.campaign_id));
      const [{ n, used }] = await m.query<Array<{ n: number; used: number }>>(`SELECT count(*)::int AS n, coalesce(sum(ratio), 0)::int AS used FROM campaigns.campaign_variant WHERE campaign_id = $1`, [campaignId]);
      if (n >= 26) throw AppError.validation([{ propertyPath: 'campaign', message: 'At most 26 variants.', code: 'errors.client.max' }]);
      const [{ id: newId }] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.campaign_variant (account_id, campaign_id, name, text, color, ratio, position) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text`,
        [acc, campaignId, f.name ?? `Variant ${n + 1}`, f.text, f.color ?? VARIANT_COLOURS[n % VARIANT_COLOURS.length], f.ratio ?? Math.max(0, 100 - used), n],
      );
      return newId;
    });
    return this.getVariant(id);
  }

  async updateVariant(id: string, body: Body): Promise<CampaignVariantDto> {
    const row = await this.variantRow(id);
    await this.ds.transaction(async (m) => {
      const f = await this.variantFields(m, body, false);
      await this.editable(m, row.campaign_id);
      await m.query(`UPDATE campaigns.campaign_variant SET name = coalesce($2, name), text = coalesce($3, text), ratio = coalesce($4, ratio), color = coalesce($5, color) WHERE id = $1`, [
        id,
        f.name ?? null,
        f.text ?? null,
        f.ratio ?? null,
        f.color ?? null,
      ]);
    });
    return this.getVariant(id);
  }

  async removeVariant(id: string): Promise<void> {
    const row = await this.variantRow(id);
    await this.ds.transaction(async (m) => {
      await this.editable(m, row.campaign_id);
      const [{ n }] = await m.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.campaign_variant WHERE campaign_id = $1`, [row.campaign_id]);
      if (n <= 1) throw AppError.validation([{ propertyPath: 'id', message: 'At least one variant is needed.', code: 'errors.client.oneVariant' }]);
      await m.query(`DELETE FROM campaigns.campaign_variant WHERE id = $1`, [id]);
    });
  }

  // ---------------------------------------------------------------- spintax tools

  private parseText(text: string, path = 'text'): SpinNode[] {
    try {
      return parseSpintax(text);
    } catch (e) {
      if (e instanceof SpintaxError) throw AppError.validation([{ propertyPath: path, message: `Invalid spintax: ${e.message}.`, code: `spintax.${e.kind}` }]);
      throw e;
    }
  }

  /** The longest expansion and its segments; an alternative or word outside GSM-7 counts the message as UCS-2 (whichever is chosen). */
  private measure(nodes: SpinNode[], lists: WordLists, lengthOf: (name: string) => number) {
    const longest = longestExpansion(nodes, lengthOf, lists);
    const sms = analyzeSms(longest);
    if (sms.encoding === 'GSM7' && !isGsm7(allLiterals(nodes, lists).replace(/\n/g, ''))) {
      const units = longest.length;
      return { longest, maxLength: units, encoding: 'UCS2', segments: units <= UCS2_SINGLE ? 1 : Math.ceil(units / UCS2_MULTI) };
    }
    return { longest, maxLength: longest.length, encoding: sms.encoding, segments: sms.segments };
  }

  /** `POST /campaigns/spintax_preview`: N samples (seeded, the same for the same text), combinations, the longest expansion. */
  async preview(body: Body) {
    const v = new Violations();
    const text = str(v, body, 'text', { required: true, max: MAX_TEXT, trim: false });
    const samples = int(v, 'samples', body.samples, { min: 1, max: this.options.maxPreviewSamples }) ?? 5;
    v.done();
    const lists = await loadWordLists(this.ds, RequestContext.accountId());
    const nodes = this.parseText(text as string);
    const check = new Violations();
    checkText(check, 'text', text as string, lists);
    check.done();
    const m = this.measure(nodes, lists, (n) => ASSUMED_VARIABLE_LENGTHS[n] ?? CUSTOM_VARIABLE_LENGTH);
    return { samples: previewSamples(nodes, samples, lists), combinations: combinations(nodes, lists), variables: variablesOf(nodes), ...m };
  }

  /**
   * `GET /campaigns/get_vars_max_length`: the longest message each variant of a campaign (or one `text`) can make, for
   * counting characters and segments before sending. Variables count at their assumed length (a campaign variable's
   * default value when longer).
   */
  async varsMaxLength(query: Body) {
    const acc = RequestContext.accountId();
    const lists = await loadWordLists(this.ds, acc);
    const lengths: Record<string, number> = {};
    const lengthOf = (defaults: Map<string, number>) => (name: string) => {
      const n = Math.max(ASSUMED_VARIABLE_LENGTHS[name] ?? CUSTOM_VARIABLE_LENGTH, defaults.get(name) ?? 0);
      lengths[name] = n;
      return n;
    };
    const items: Array<{ variant: number | null; name: string; maxLength: number; encoding: string; segments: number }> = [];
    const campaignRaw = query.campaign ?? query.campaign_id ?? query.id;
    if (campaignRaw !== undefined && campaignRaw !== '') {
      const campaignId = idOf(campaignRaw);
      if (!campaignId) throw AppError.validation([{ propertyPath: 'campaign', message: 'a campaign id' }]);
      await this.campaignExists(campaignId);
      const defaults = new Map(
        (await this.ds.query<Array<{ variable_name: string; len: number }>>(`SELECT variable_name, coalesce(length(default_value), 0) AS len FROM campaigns.campaign_variable WHERE campaign_id = $1`, [campaignId])).map(
          (r) => [r.variable_name, r.len] as const,
        ),
      );
      const variants = await this.ds.query<VariantRow[]>(`${VARIANT_SELECT} WHERE campaign_id = $1 ORDER BY position, id`, [campaignId]);
      for (const variant of variants) {
        const m = this.measure(this.parseText(variant.text), lists, lengthOf(defaults));
        items.push({ variant: Number(variant.id), name: variant.name, maxLength: m.maxLength, encoding: m.encoding, segments: m.segments });
      }
    } else if (typeof query.text === 'string' && query.text !== '') {
      const m = this.measure(this.parseText(query.text), lists, lengthOf(new Map()));
      items.push({ variant: null, name: 'text', maxLength: m.maxLength, encoding: m.encoding, segments: m.segments });
    } else throw AppError.validation([{ propertyPath: 'campaign', message: 'Give a campaign or a text.', code: 'errors.client.required' }]);
    return {
      items,
      variables: lengths,
      maxLength: items.reduce((a, i) => Math.max(a, i.maxLength), 0),
      segments: items.reduce((a, i) => Math.max(a, i.segments), 0),
    };
  }
}

/**
 * Spec 3 campaign variable link params (link variables: domains, domain_pool, expired, offer, section, id), as
 * `/campaigns_variables` and a campaign's `campaignVariables` take them; undefined when absent.
 */
export function parseLinkParams(v: Violations, raw: unknown, path = 'params'): CampaignVariableLinkParams | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) {
    v.add(path, 'An object: domains, domain_pool, expired, offer, section, id.');
    return undefined;
  }
  const out: CampaignVariableLinkParams = {};
  for (const k of Object.keys(raw)) if (!['domains', 'domain_pool', 'expired', 'offer', 'section', 'id'].includes(k)) v.add(`${path}.${k}`, 'Unknown parameter.');
  if (raw.domains !== undefined) {
    const d = Array.isArray(raw.domains) ? raw.domains.map(idOf) : [null];
    if (d.some((x) => !x)) v.add(`${path}.domains`, 'A list of domain ids.');
    else out.domains = (d as string[]).map(Number);
  }
  for (const k of ['domain_pool', 'expired', 'offer', 'id'] as const) {
    if (raw[k] === undefined) continue;
    const n = int(v, `${path}.${k}`, raw[k], { min: k === 'expired' ? 0 : 1, nullable: true });
    if (n !== undefined) out[k] = n;
  }
  if (raw.section !== undefined) {
    if (raw.section !== null && typeof raw.section !== 'string') v.add(`${path}.section`, 'A string.');
    else out.section = raw.section === null ? null : raw.section.slice(0, 255);
  }
  return out;
}
