import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  CAMPAIGN_DEFAULTS,
  CAMPAIGN_FILTER_TABS,
  CAMPAIGN_STATUSES,
  CAMPAIGN_TIMEZONE_MODES,
  CampaignAction,
  CampaignChangedV1,
  CampaignStatus,
  CampaignType,
  MissingRule,
  StandardVariable,
  type CampaignDto,
  type CampaignFilterTab,
  type CampaignVariableLinkParams,
  type CampaignStatusValue,
  allLiterals,
  parseSpintax,
  previewSamples,
  type WordLists,
} from '@switchboard/contracts';
import { AppError, isTimeZone, parseListQuery, RequestContext, type ListResult, type UnitOfWorkEmit, type UnitOfWorkNotify } from '@switchboard/platform';
import { CAMPAIGNS_CONNECTION } from '../campaigns.options';
import { Clock } from '../clock';
import { CAMPAIGN_COLUMNS, campaignDtos, statsOf, variantDto, senderDto, type CampaignRow, type SenderLinkRow, type VariantRow } from './campaign-model';
import { parseLinkParams } from './campaign-parts.service';
import { CampaignStatusService, notAllowed } from './campaign-status.service';
import { CampaignsUnitOfWork } from './campaigns-events.service';
import { bool, idOf, int, isClock, isObject, isoDate, str, Violations } from './input';
import { evenSplit, ratioProblem } from '../compose/ratios';
import { loadWordLists, parseRatios, parseVariants, type VariantInput } from './variants-input';

type Body = Record<string, unknown>;

interface SenderInput {
  sender: string;
  ratio: number;
}

/** What a create or update body holds, checked; undefined fields are left as they are. */
interface CampaignInput {
  name?: string;
  description?: string | null;
  type?: number;
  country?: string | null;
  stream?: string | null;
  hasShortURL?: boolean;
  unsubscribeAutoAdd?: boolean;
  sendDuplicates?: boolean;
  contactLists?: string[];
  variants?: VariantInput[];
  senders?: SenderInput[];
  variables?: VariableLinkInput[];
  tags?: string[];
  activity?: {
    json: Record<string, unknown>;
    mode: string;
    timezone: string | null;
    days: number[];
    start: string | null;
    end: string | null;
    dateStart: Date | null;
    dateEnd: Date | null;
    scheduled: Date | null;
  };
  settings?: Record<string, unknown>;
}

/** A campaign variable link set with the campaign (`campaignVariables`): upserted by variable, params kept unless given. */
interface VariableLinkInput {
  variable: string;
  name: string;
  defaultValue: string | null;
  missingRule: number;
  /** The link params (short URL and opt-out variables: domains or domain_pool, offer, expired); absent: kept. */
  params?: CampaignVariableLinkParams;
}

const STANDARD_VARIABLE_NAMES: Record<string, string> = Object.fromEntries(Object.entries(StandardVariable).map(([name, vid]) => [String(vid), name]));
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

interface AccountFlags {
  enable_spam_restriction: boolean;
  allow_transactional_campaign: boolean;
  allow_campaign_whatsapp: boolean;
  currency: string;
}

const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7];

/** The keyword hits of a text's every possible expansion (case-insensitive, whole words). */
export function keywordHits(texts: string[], keywords: string[]): string[] {
  const hay = texts.join('\n').toLowerCase();
  const hits = new Set<string>();
  for (const k of keywords) {
    const w = k.trim().toLowerCase();
    if (!w) continue;
    const re = new RegExp(`(?<![\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'u');
    if (re.test(hay)) hits.add(k);
  }
  return [...hits];
}

/**
 * Campaign CRUD, duplicate, the console's status actions (through CampaignStatusService), ratio changes, the spam
 * review, dashboard and realtime lists. Every query is scoped to the caller's account.
 */
@Injectable()
export class CampaignService {
  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) private readonly ds: DataSource,
    private readonly uow: CampaignsUnitOfWork,
    private readonly status: CampaignStatusService,
    private readonly clock: Clock,
  ) {}

  // ---------------------------------------------------------------- reads

  async list(query: Body): Promise<ListResult<CampaignDto>> {
    const q = parseListQuery(query, { sortable: ['id', 'name', 'status', 'type', 'createdAt', 'startedAt'], defaultItemsPerPage: 25, maxItemsPerPage: 500 });
    const acc = RequestContext.accountId();
    const where = ['c.account_id = $1', 'c.deleted_at IS NULL'];
    const values: unknown[] = [acc];
    const statuses = this.statusFilter(query);
    if (statuses) {
      values.push(statuses);
      where.push(`c.status = ANY($${values.length}::smallint[])`);
    }
    if (typeof query.name === 'string' && query.name.trim()) {
      values.push(`%${query.name.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`c.name ILIKE $${values.length}`);
    }
    if (query.type !== undefined && query.type !== '') {
      const v = new Violations();
      const t = int(v, 'type', query.type, { min: 0, max: 4 });
      v.done();
      values.push(t);
      where.push(`c.type = $${values.length}`);
    }
    if (query.tag !== undefined && query.tag !== '') {
      const tag = idOf(query.tag);
      if (!tag) throw AppError.validation([{ propertyPath: 'tag', message: 'a tag id' }]);
      values.push(tag);
      where.push(`EXISTS (SELECT 1 FROM campaigns.campaign_tags ct WHERE ct.campaign_id = c.id AND ct.tag_id = $${values.length})`);
    }
    if (query.contactList !== undefined && query.contactList !== '') {
      const list = idOf(query.contactList);
      if (!list) throw AppError.validation([{ propertyPath: 'contactList', message: 'a contact list id' }]);
      values.push(list);
      where.push(`$${values.length}::bigint = ANY(c.contact_list_ids)`);
    }
    const cols: Record<string, string> = { id: 'c.id', name: 'c.name', status: 'c.status', type: 'c.type', createdAt: 'c.created_at', startedAt: 'c.started_at' };
    let pinnedOrder = '';
    const pinned = this.pinned(query);
    if (pinned.length) {
      values.push(pinned);
      pinnedOrder = `(c.id = ANY($${values.length}::bigint[])) DESC, `;
    }
    const order = Object.entries(q.order).map(([f, d]) => `${cols[f]} ${d} NULLS LAST`).join(', ');
    const rows = await this.ds.query<CampaignRow[]>(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns.campaign c WHERE ${where.join(' AND ')} ORDER BY ${pinnedOrder}${order}, c.id DESC LIMIT ${q.take} OFFSET ${q.skip}`, values);
    const countValues = pinned.length ? values.slice(0, -1) : values;
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.campaign c WHERE ${where.join(' AND ')}`, countValues);
    return { items: await campaignDtos(this.ds, rows), total: n };
  }

  /** `tab` (all, active, pending, rejected, finished) and/or `status` (one or more numbers). */
  private statusFilter(query: Body): number[] | null {
    let out: number[] | null = null;
    if (query.tab !== undefined && query.tab !== '' && query.tab !== 'all') {
      const tab = String(query.tab) as CampaignFilterTab;
      if (!Object.prototype.hasOwnProperty.call(CAMPAIGN_FILTER_TABS, tab)) throw AppError.validation([{ propertyPath: 'tab', message: `one of ${Object.keys(CAMPAIGN_FILTER_TABS).join(', ')}` }]);
      out = [...CAMPAIGN_FILTER_TABS[tab]];
    }
    const raw = query.status ?? query['status[]'];
    if (raw !== undefined && raw !== '') {
      const list = (Array.isArray(raw) ? raw : String(raw).split(',')).map((s) => Number(s));
      if (list.some((s) => !CAMPAIGN_STATUSES.includes(s as CampaignStatusValue))) throw AppError.validation([{ propertyPath: 'status', message: 'campaign status numbers 0 to 11' }]);
      out = out ? out.filter((s) => list.includes(s)) : list;
    }
    return out;
  }

  /** `pinned` ids (the user's PINNED_CAMPAIGN preference, which the console keeps): listed first. */
  private pinned(query: Body): string[] {
    const raw = query.pinned ?? query['pinned[]'];
    if (raw === undefined || raw === '') return [];
    const list = (Array.isArray(raw) ? raw : String(raw).split(',')).map(idOf);
    if (list.some((x) => !x) || list.length > 100) throw AppError.validation([{ propertyPath: 'pinned', message: 'campaign ids' }]);
    return list as string[];
  }

  async findRow(m: Pick<EntityManager, 'query'>, id: string, accountId = RequestContext.accountId(), lock = false): Promise<CampaignRow> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('campaign');
    const [row] = await m.query<CampaignRow[]>(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns.campaign c WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`, [id, accountId]);
    if (!row) throw AppError.notFound('campaign');
    return row;
  }

  async get(id: string): Promise<CampaignDto> {
    const row = await this.findRow(this.ds, id);
    const [dto] = await campaignDtos(this.ds, [row]);
    return row.status === CampaignStatus.Sending ? { ...dto, ...(await this.waitingUntil(id)) } : dto;
  }

  /**
   * When a sending campaign has nothing due now because of its sending hours: the earliest due time of its waiting
   * recipients (in modes local and selected, the next window opening), else null (docs/decisions/0186). The runner's
   * own reads: the first entry of the due index, the in-flight partial index, one primary-key entry at the cursor.
   */
  private async waitingUntil(id: string): Promise<Pick<CampaignDto, 'waitingUntil' | 'waitingZone'>> {
    const [r] = await this.ds.query<Array<{ next_due: Date | null; zone: string | null; busy: boolean }>>(
      `SELECT d.due_at AS next_due, d.timezone AS zone,
              EXISTS (SELECT 1 FROM campaigns.recipient WHERE campaign_id = $1 AND flight_at IS NOT NULL AND state IN (1, 2))
              OR EXISTS (SELECT 1 FROM campaigns.send_batch WHERE campaign_id = $1 AND open)
              OR EXISTS (SELECT 1 FROM campaigns.recipient WHERE campaign_id = $1 AND ordinal >= COALESCE(run.next_ordinal, 0)) AS busy
         FROM (SELECT $1::bigint AS id) c LEFT JOIN campaigns.run run ON run.campaign_id = c.id
         LEFT JOIN LATERAL (SELECT due_at, timezone FROM campaigns.recipient WHERE campaign_id = $1 AND state = 0 AND due_at IS NOT NULL ORDER BY due_at, ordinal LIMIT 1) d ON true`,
      [id],
    );
    if (!r || r.busy || r.next_due === null) return { waitingUntil: null, waitingZone: null };
    const at = new Date(r.next_due);
    if (at.getTime() <= this.clock.now().getTime()) return { waitingUntil: null, waitingZone: null };
    return { waitingUntil: at.toISOString(), waitingZone: isTimeZone(r.zone) ? r.zone : null };
  }

  /** Spec 9: the 4 most recently started campaigns. */
  async dashboard(): Promise<ListResult<CampaignDto>> {
    const rows = await this.ds.query<CampaignRow[]>(
      `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns.campaign c WHERE c.account_id = $1 AND c.deleted_at IS NULL AND c.started_at IS NOT NULL ORDER BY c.started_at DESC, c.id DESC LIMIT $2`,
      [RequestContext.accountId(), CAMPAIGN_DEFAULTS.dashboardSize],
    );
    return { items: await campaignDtos(this.ds, rows), total: rows.length };
  }

  /** The realtime list (spec 7): 10 a page, pinned first, the active tab unless told. */
  realtime(query: Body): Promise<ListResult<CampaignDto>> {
    return this.list({ itemsPerPage: '10', tab: query.status === undefined ? 'active' : undefined, ...query });
  }

  /** Spec 4 analytics: not for scheduled or draft campaigns. */
  async analytics(id: string) {
    const row = await this.findRow(this.ds, id);
    this.status.assertAllowed(CampaignAction.Analytics, row.status as CampaignStatusValue);
    const variants = await this.ds.query<VariantRow[]>(
      `SELECT id::text, campaign_id::text, name, text, color, ratio, position, sent::text, delivered::text, sent_failed::text, undelivered::text, dlr_failed::text,
              opted_out::text, clicked::text, cost_micros::text FROM campaigns.campaign_variant WHERE campaign_id = $1 ORDER BY position, id`,
      [id],
    );
    const senders = await this.ds.query<SenderLinkRow[]>(
      `SELECT cs.id::text, cs.campaign_id::text, cs.sender_id::text, s.value AS sender_value, cs.ratio, cs.position, cs.sent::text, cs.delivered::text,
              cs.sent_failed::text, cs.undelivered::text, cs.cost_micros::text
         FROM campaigns.campaign_sender cs LEFT JOIN campaigns.sender s ON s.sender_id = cs.sender_id AND s.account_id = cs.account_id AND NOT s.deleted
        WHERE cs.campaign_id = $1 ORDER BY cs.position, cs.id`,
      [id],
    );
    const zero = { total: '0', created: '0', register: '0', ftd: '0', click_time_total_ms: '0' };
    return {
      id: Number(row.id),
      status: row.status,
      stats: statsOf(row),
      variants: variants.map((v) => ({ ...variantDto(v), stats: statsOf({ ...zero, ...v }) })),
      senders: senders.map((s) => ({ ...senderDto(s), stats: statsOf({ ...zero, dlr_failed: '0', opted_out: '0', clicked: '0', ...s }) })),
    };
  }

  // ---------------------------------------------------------------- writes

  async create(body: Body): Promise<CampaignDto> {
    const acc = RequestContext.accountId();
    const id = await this.uow.run(async (m, emit, notify) => {
      const lists = await loadWordLists(m, acc);
      const input = await this.parse(m, acc, body, lists, true);
      const flags = await this.flags(m, acc);
      const [{ id: newId }] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.campaign (account_id, name, description, type, status, country, stream_id, currency, has_short_url, unsubscribe_auto_add, send_duplicates,
                                         contact_list_ids, created_at, updated_at, status_changed_at)
         VALUES ($1, $2, $3, $4, 8, $5, $6, $7, $8, $9, $10, $11, $12, $12, $12) RETURNING id::text`,
        [
          acc,
          input.name,
          input.description ?? null,
          input.type ?? CampaignType.Outbound,
          input.country ?? null,
          input.stream ?? null,
          flags.currency,
          input.hasShortURL ?? false,
          input.unsubscribeAutoAdd ?? CAMPAIGN_DEFAULTS.unsubscribeAutoAdd,
          input.sendDuplicates ?? CAMPAIGN_DEFAULTS.sendDuplicates,
          input.contactLists ?? [],
          this.clock.now(),
        ],
      );
      await this.write(m, acc, newId, input);
      await this.changed(m, emit, notify, acc, newId, false);
      return newId;
    });
    return this.get(id);
  }

  /** Edit (spec 4: scheduled, draft, suspended, rejected). A `status` in the body is the matching action, after the edit. */
  async update(id: string, body: Body): Promise<CampaignDto> {
    const acc = RequestContext.accountId();
    const { status: wanted, ...fields } = body;
    await this.uow.run(async (m, emit, notify) => {
      const row = await this.findRow(m, id, acc, true);
      if (Object.keys(fields).length > 0) {
        this.status.assertAllowed(CampaignAction.Edit, row.status as CampaignStatusValue);
        const lists = await loadWordLists(m, acc);
        const input = await this.parse(m, acc, fields, lists, false);
        await this.write(m, acc, id, input);
        await this.changed(m, emit, notify, acc, id, false);
      }
    });
    if (wanted !== undefined) {
      const v = new Violations();
      const to = int(v, 'status', wanted, { min: 0, max: 11 });
      v.done();
      await this.applyStatus(id, to as CampaignStatusValue);
    }
    return this.get(id);
  }

  /** A status asked for with PUT: start (1 from draft, 0 with a schedule), play (1 from paused), pause (3), abort (4). */
  private async applyStatus(id: string, to: CampaignStatusValue): Promise<void> {
    const row = await this.findRow(this.ds, id);
    const from = row.status as CampaignStatusValue;
    if (to === from) return;
    if ((to === CampaignStatus.Started || to === CampaignStatus.Scheduled) && (from === CampaignStatus.Draft || from === CampaignStatus.Scheduled)) return void (await this.start(id));
    if (to === CampaignStatus.Started && from === CampaignStatus.Paused) return void (await this.act(id, CampaignAction.Play));
    if (to === CampaignStatus.Paused) return void (await this.act(id, CampaignAction.Pause));
    if (to === CampaignStatus.Aborted) return void (await this.act(id, CampaignAction.Abort));
    throw notAllowed(`be set to status ${to}`, from);
  }

  async remove(id: string): Promise<void> {
    const acc = RequestContext.accountId();
    await this.uow.run(async (m, emit, notify) => {
      const row = await this.findRow(m, id, acc, true);
      this.status.assertAllowed(CampaignAction.Delete, row.status as CampaignStatusValue);
      await m.query(`UPDATE campaigns.campaign SET deleted_at = $3, updated_at = $3 WHERE id = $1 AND account_id = $2`, [id, acc, this.clock.now()]);
      await this.changed(m, emit, notify, acc, id, true);
    });
  }

  /** Spec 4: all but draft, suspended, rejected. A new draft named "copy X" with the same settings, variants, senders, tags and variables. */
  async duplicate(body: Body): Promise<CampaignDto> {
    const source = idOf(body.id ?? body.campaign ?? body.campaign_id);
    if (!source) throw AppError.validation([{ propertyPath: 'id', message: 'the campaign to duplicate', code: 'errors.client.required' }]);
    const acc = RequestContext.accountId();
    const newId = await this.uow.run(async (m, emit, notify) => {
      const row = await this.findRow(m, source, acc);
      this.status.assertAllowed(CampaignAction.Duplicate, row.status as CampaignStatusValue);
      const now = this.clock.now();
      const [{ id }] = await m.query<Array<{ id: string }>>(
        `INSERT INTO campaigns.campaign (account_id, name, description, type, status, country, stream_id, currency, has_short_url, unsubscribe_auto_add, send_duplicates,
           contact_list_ids, activity_time, campaign_settings, timezone_mode, timezone, working_days, working_hours_start, working_hours_end, start_date, end_date,
           scheduled_at, stream_event_id, variables_mapping, created_at, updated_at, status_changed_at)
         SELECT account_id, left('copy ' || name, 255), description, type, 8, country, stream_id, currency, has_short_url, unsubscribe_auto_add, send_duplicates,
           contact_list_ids, activity_time, campaign_settings, timezone_mode, timezone, working_days, working_hours_start, working_hours_end, start_date, end_date,
           scheduled_at, stream_event_id, variables_mapping, $3, $3, $3
           FROM campaigns.campaign WHERE id = $1 AND account_id = $2 RETURNING id::text`,
        [source, acc, now],
      );
      await m.query(
        `INSERT INTO campaigns.campaign_variant (account_id, campaign_id, name, text, color, ratio, position)
         SELECT account_id, $2, name, text, color, ratio, position FROM campaigns.campaign_variant WHERE campaign_id = $1 ORDER BY position, id`,
        [source, id],
      );
      await m.query(
        `INSERT INTO campaigns.campaign_sender (account_id, campaign_id, sender_id, ratio, position)
         SELECT account_id, $2, sender_id, ratio, position FROM campaigns.campaign_sender WHERE campaign_id = $1 ORDER BY position, id`,
        [source, id],
      );
      await m.query(`INSERT INTO campaigns.campaign_tags (campaign_id, tag_id, account_id) SELECT $2, tag_id, account_id FROM campaigns.campaign_tags WHERE campaign_id = $1`, [source, id]);
      await m.query(
        `INSERT INTO campaigns.campaign_variable (account_id, campaign_id, variable_id, variable_name, default_value, missing_rule, params)
         SELECT account_id, $2, variable_id, variable_name, default_value, missing_rule, params FROM campaigns.campaign_variable WHERE campaign_id = $1`,
        [source, id],
      );
      await this.changed(m, emit, notify, acc, id, false);
      return id;
    });
    return this.get(newId);
  }

  /**
   * Start (spec 4 flow): needs a stream, contact lists, variants whose ratios total 100 and sender ratios totalling 100.
   * An account with enable_spam_restriction whose texts hit a malicious keyword goes to suspended for a super admin's
   * review; a future scheduled date gives scheduled; otherwise started (the runner takes it from there).
   */
  async start(id: string): Promise<CampaignDto> {
    const acc = RequestContext.accountId();
    await this.uow.run(async (m, emit, notify) => {
      const row = await this.findRow(m, id, acc, true);
      this.status.assertAllowed(CampaignAction.Start, row.status as CampaignStatusValue);
      const v = new Violations();
      const variants = await m.query<Array<{ text: string; ratio: number }>>(`SELECT text, ratio FROM campaigns.campaign_variant WHERE campaign_id = $1 ORDER BY position, id`, [id]);
      const senders = await m.query<Array<{ ratio: number; ok: boolean }>>(
        `SELECT cs.ratio, (s.sender_id IS NOT NULL) AS ok FROM campaigns.campaign_sender cs
           LEFT JOIN campaigns.sender s ON s.sender_id = cs.sender_id AND s.account_id = cs.account_id AND NOT s.deleted WHERE cs.campaign_id = $1`,
        [id],
      );
      if (!row.stream_id) v.add('stream', 'Choose a stream.', 'errors.client.required');
      else {
        const [stream] = await m.query<unknown[]>(`SELECT 1 FROM campaigns.stream WHERE stream_id = $1 AND account_id = $2 AND NOT deleted`, [row.stream_id, acc]);
        if (!stream) v.add('stream', 'The stream no longer exists.');
      }
      if (row.contact_list_ids.length === 0 && row.type !== CampaignType.Transactional) v.add('contactLists', 'Choose at least one list or segment.', 'errors.client.required');
      if (variants.length === 0) v.add('campaignVariants', 'At least one variant is needed.', 'errors.client.oneVariant');
      else if (variants.some((x) => !x.text.trim())) v.add('campaignVariants', 'Every variant needs a text.', 'errors.client.allVariants');
      else if (ratioProblem(variants.map((x) => x.ratio))) v.add('campaignVariants', 'The ratios must total 100.', 'errors.client.totalRatio');
      if (senders.length && ratioProblem(senders.map((x) => x.ratio))) v.add('campaignsSenders', 'The ratios must total 100.', 'errors.client.totalRatio');
      if (senders.some((x) => !x.ok)) v.add('campaignsSenders', 'A sender no longer exists.');
      v.done();
      const flags = await this.flags(m, acc);
      let hits: string[] = [];
      if (flags.enable_spam_restriction) {
        const lists = await loadWordLists(m, acc);
        const keywords = (await m.query<Array<{ word: string }>>(`SELECT word FROM campaigns.malicious_keyword`)).map((k) => k.word);
        hits = keywordHits(variants.map((x) => this.literals(x.text, lists)), keywords);
      }
      if (hits.length) {
        await m.query(`UPDATE campaigns.campaign SET spam_keywords = $3 WHERE id = $1 AND account_id = $2`, [id, acc, hits]);
        await this.status.transitionIn(m, emit, notify, acc, id, CampaignAction.Start, { to: CampaignStatus.Suspended, reason: `malicious keywords: ${hits.join(', ')}` });
        return;
      }
      const scheduled = row.scheduled_at && new Date(row.scheduled_at).getTime() > this.clock.now().getTime();
      await this.status.transitionIn(m, emit, notify, acc, id, CampaignAction.Start, { to: scheduled ? CampaignStatus.Scheduled : CampaignStatus.Started });
    });
    return this.get(id);
  }

  /**
   * What the spam review reads of a text: every alternative and word on its own, and 200 sampled expansions (a
   * keyword spelled across an alternative and the text around it shows in those).
   */
  private literals(text: string, lists: WordLists): string {
    try {
      const nodes = parseSpintax(text);
      return [allLiterals(nodes, lists), ...previewSamples(nodes, 200, lists)].join('\n');
    } catch {
      return text;
    }
  }

  /** pause, play, abort: the status machine alone. */
  async act(id: string, action: typeof CampaignAction.Pause | typeof CampaignAction.Play | typeof CampaignAction.Abort): Promise<CampaignDto> {
    await this.status.transition(RequestContext.accountId(), id, action);
    return this.get(id);
  }

  /** Ratio changes (spec 4: all but aborted, finished, suspended, rejected); the runner applies them to the recipients not yet composed. */
  async ratios(id: string, body: Body): Promise<CampaignDto> {
    const acc = RequestContext.accountId();
    await this.uow.run(async (m, emit, notify) => {
      const row = await this.findRow(m, id, acc, true);
      this.status.assertAllowed(CampaignAction.Ratio, row.status as CampaignStatusValue);
      const variantIds = (await m.query<Array<{ id: string }>>(`SELECT id::text FROM campaigns.campaign_variant WHERE campaign_id = $1`, [id])).map((r) => r.id);
      const senderIds = (await m.query<Array<{ id: string }>>(`SELECT id::text FROM campaigns.campaign_sender WHERE campaign_id = $1`, [id])).map((r) => r.id);
      const v = new Violations();
      if (body.campaignVariants === undefined && body.campaignsSenders === undefined) v.add('campaignVariants', 'Give campaignVariants and/or campaignsSenders ratios.', 'errors.client.required');
      const vr = parseRatios(v, 'campaignVariants', body.campaignVariants, variantIds);
      const sr = parseRatios(v, 'campaignsSenders', body.campaignsSenders, senderIds);
      v.done();
      for (const [vid, r] of vr ?? []) await m.query(`UPDATE campaigns.campaign_variant SET ratio = $3 WHERE id = $1 AND campaign_id = $2`, [vid, id, r]);
      for (const [sid, r] of sr ?? []) await m.query(`UPDATE campaigns.campaign_sender SET ratio = $3 WHERE id = $1 AND campaign_id = $2`, [sid, id, r]);
      await m.query(`UPDATE campaigns.campaign SET updated_at = $3 WHERE id = $1 AND account_id = $2`, [id, acc, this.clock.now()]);
      await this.changed(m, emit, notify, acc, id, false);
    });
    return this.get(id);
  }

  // ---------------------------------------------------------------- spam review (super admin, every account)

  async reviewList(query: Body): Promise<ListResult<CampaignDto & { accountId: number }>> {
    const q = parseListQuery(query, { sortable: ['id'], defaultItemsPerPage: 25, maxItemsPerPage: 500 });
    const rows = await this.ds.query<CampaignRow[]>(
      `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns.campaign c WHERE c.status = 9 AND c.deleted_at IS NULL ORDER BY c.id ${q.order.id ?? 'DESC'} LIMIT ${q.take} OFFSET ${q.skip}`,
    );
    const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM campaigns.campaign WHERE status = 9 AND deleted_at IS NULL`);
    const dtos = await campaignDtos(this.ds, rows);
    return { items: dtos.map((d, i) => ({ ...d, accountId: Number(rows[i].account_id) })), total: n };
  }

  /** Approve: the campaign proceeds (scheduled when its date is ahead, else started). Reject: rejected with the reason. */
  async review(id: string, decision: 'approve' | 'reject', body: Body): Promise<CampaignDto & { accountId: number }> {
    if (!/^\d{1,18}$/.test(id)) throw AppError.notFound('campaign');
    const [owner] = await this.ds.query<Array<{ account_id: string; scheduled_at: Date | null }>>(`SELECT account_id::text, scheduled_at FROM campaigns.campaign WHERE id = $1 AND deleted_at IS NULL`, [id]);
    if (!owner) throw AppError.notFound('campaign');
    if (decision === 'reject') {
      const v = new Violations();
      const reason = str(v, body, 'reason', { required: true, max: 1000 }) ?? str(v, body, 'declinedReason', { max: 1000 });
      v.done();
      await this.status.transition(owner.account_id, id, CampaignAction.Reject, { to: CampaignStatus.Rejected, reason: reason ?? null });
    } else {
      const scheduled = owner.scheduled_at && new Date(owner.scheduled_at).getTime() > this.clock.now().getTime();
      await this.status.transition(owner.account_id, id, CampaignAction.Approve, { to: scheduled ? CampaignStatus.Scheduled : CampaignStatus.Started });
    }
    const [dto] = await campaignDtos(this.ds, [await this.findRow(this.ds, id, owner.account_id)]);
    return { ...dto, accountId: Number(owner.account_id) };
  }

  // ---------------------------------------------------------------- WhatsApp templates (spec 7: campaign/stream_events)

  /** Maps a stream event (a WhatsApp template of the campaign's stream) and its variables to the campaign: one variant, ratio 100, #ff9600. */
  async streamEvent(body: Body): Promise<CampaignDto> {
    const acc = RequestContext.accountId();
    const v = new Violations();
    const campaignId = idOf(body.campaign_id ?? body.campaign);
    const eventId = idOf(body.stream_event_id ?? body.streamEvent);
    if (!campaignId) v.add('campaign_id', 'This value should not be blank.', 'errors.client.required');
    if (!eventId) v.add('stream_event_id', 'This value should not be blank.', 'errors.client.required');
    const mapping = body.variables_mapping ?? {};
    if (!isObject(mapping) || Object.values(mapping).some((x) => typeof x !== 'string' && typeof x !== 'number')) v.add('variables_mapping', 'An object of placeholder: variable name.');
    v.done();
    await this.uow.run(async (m, emit, notify) => {
      const row = await this.findRow(m, campaignId as string, acc, true);
      this.status.assertAllowed(CampaignAction.Edit, row.status as CampaignStatusValue);
      const [event] = await m.query<Array<{ name: string; text: string; stream_id: string }>>(
        `SELECT name, text, stream_id::text FROM campaigns.stream_event WHERE stream_event_id = $1 AND account_id = $2 AND NOT deleted`,
        [eventId, acc],
      );
      if (!event) throw AppError.validation([{ propertyPath: 'stream_event_id', message: 'No such stream event in this account.' }]);
      const variant = isObject(body.variant) ? body.variant : typeof body.variant === 'string' ? { name: body.variant } : {};
      const name = typeof variant.name === 'string' && variant.name.trim() ? variant.name.trim().slice(0, 255) : event.name;
      const text = typeof variant.text === 'string' && variant.text.trim() ? variant.text : event.text;
      await m.query(`DELETE FROM campaigns.campaign_variant WHERE campaign_id = $1`, [campaignId]);
      await m.query(`INSERT INTO campaigns.campaign_variant (account_id, campaign_id, name, text, color, ratio, position) VALUES ($1, $2, $3, $4, $5, $6, 0)`, [
        acc,
        campaignId,
        name,
        text,
        CAMPAIGN_DEFAULTS.streamEventVariant.color,
        CAMPAIGN_DEFAULTS.streamEventVariant.ratio,
      ]);
      await m.query(
        `UPDATE campaigns.campaign SET stream_event_id = $3, variables_mapping = $4, stream_id = coalesce(stream_id, $5), updated_at = $6 WHERE id = $1 AND account_id = $2`,
        [campaignId, acc, eventId, JSON.stringify(mapping), event.stream_id, this.clock.now()],
      );
      await this.changed(m, emit, notify, acc, campaignId as string, false);
    });
    return this.get(campaignId as string);
  }

  // ---------------------------------------------------------------- helpers

  private async flags(m: Pick<EntityManager, 'query'>, acc: string): Promise<AccountFlags> {
    const [a] = await m.query<AccountFlags[]>(
      `SELECT enable_spam_restriction, allow_transactional_campaign, allow_campaign_whatsapp, currency FROM campaigns.account WHERE account_id = $1`,
      [acc],
    );
    return a ?? { enable_spam_restriction: false, allow_transactional_campaign: false, allow_campaign_whatsapp: false, currency: 'EUR' };
  }

  private async changed(m: EntityManager, emit: UnitOfWorkEmit, notify: UnitOfWorkNotify, acc: string, id: string, deleted: boolean): Promise<void> {
    const [r] = await m.query<Array<{ name: string; type: number; status: number; stream_id: string | null; updated_at: Date }>>(
      `SELECT name, type, status, stream_id::text, updated_at FROM campaigns.campaign WHERE id = $1`,
      [id],
    );
    const updatedAt = new Date(r.updated_at).toISOString();
    emit(CampaignChangedV1, { campaignId: id, accountId: acc, name: r.name, type: r.type, status: r.status, streamId: r.stream_id, deleted, updatedAt }, acc);
    notify({ accountId: acc, type: deleted ? 'campaign.deleted' : 'campaign.updated', data: { id: Number(id), name: r.name, status: r.status, updatedAt } });
  }

  /** Checks a create or update body against the account's streams, lists, senders, tags and word lists. */
  private async parse(m: Pick<EntityManager, 'query'>, acc: string, body: Body, lists: WordLists, creating: boolean): Promise<CampaignInput> {
    const v = new Violations();
    const out: CampaignInput = {};
    const name = str(v, body, 'name', { required: creating, max: 255 });
    if (name !== undefined && name !== null) out.name = name;
    const description = str(v, body, 'description', { nullable: true, max: 2000 });
    if (description !== undefined) out.description = description;
    const type = int(v, 'type', body.type, { min: 0, max: 4 });
    if (typeof type === 'number') {
      const flags = await this.flags(m, acc);
      if (type === CampaignType.Transactional && !flags.allow_transactional_campaign) v.add('type', 'Transactional campaigns are not enabled for this account (allow_transactional_campaign).');
      else if (type === CampaignType.WhatsApp && !flags.allow_campaign_whatsapp) v.add('type', 'WhatsApp campaigns are not enabled for this account (allow_campaign_whatsapp).');
      else out.type = type;
    }
    if (body.country !== undefined) {
      if (body.country === null || body.country === '') out.country = null;
      else if (typeof body.country === 'string' && /^[A-Za-z]{2}$/.test(body.country)) out.country = body.country.toUpperCase();
      else v.add('country', 'A two-letter country code.');
    }
    if (body.stream !== undefined) {
      if (body.stream === null) out.stream = null;
      else {
        const sid = idOf(body.stream);
        const [s] = sid ? await m.query<unknown[]>(`SELECT 1 FROM campaigns.stream WHERE stream_id = $1 AND account_id = $2 AND NOT deleted`, [sid, acc]) : [];
        if (!s) v.add('stream', 'No such stream in this account.');
        else out.stream = sid as string;
      }
    }
    for (const [key, field] of [
      ['hasShortURL', 'hasShortURL'],
      ['unsubscribeAutoAdd', 'unsubscribeAutoAdd'],
      ['sendDuplicates', 'sendDuplicates'],
    ] as const) {
      const b = bool(v, body, key);
      if (b !== undefined) out[field] = b;
    }
    if (body.contactLists !== undefined) {
      const ids = Array.isArray(body.contactLists) ? body.contactLists.map(idOf) : [null];
      if (ids.some((x) => !x)) v.add('contactLists', 'A list of contact list or segment ids.');
      else {
        const uniq = [...new Set(ids as string[])];
        const found = await m.query<Array<{ id: string }>>(`SELECT contact_list_id::text AS id FROM campaigns.contact_list WHERE contact_list_id = ANY($1::bigint[]) AND account_id = $2 AND NOT deleted`, [uniq, acc]);
        const missing = uniq.filter((x) => !found.some((f) => f.id === x));
        if (missing.length) v.add('contactLists', `No such ready list or segment in this account: ${missing.join(', ')}.`);
        else out.contactLists = uniq;
      }
    }
    const variants = parseVariants(v, 'campaignVariants', body.campaignVariants, lists);
    if (variants) out.variants = variants;
    if (body.campaignsSenders !== undefined) out.senders = await this.parseSenders(m, v, acc, body.campaignsSenders);
    if (body.campaignVariables !== undefined) out.variables = this.parseVariableLinks(v, body.campaignVariables);
    if (body.campaignTags !== undefined) {
      const raw = Array.isArray(body.campaignTags) ? body.campaignTags.map((t) => (isObject(t) ? idOf(t.id) : idOf(t))) : [null];
      if (raw.some((x) => !x)) v.add('campaignTags', 'A list of tag ids.');
      else {
        const uniq = [...new Set(raw as string[])];
        const found = await m.query<Array<{ id: string }>>(`SELECT id::text FROM campaigns.tag WHERE id = ANY($1::bigint[]) AND account_id = $2`, [uniq, acc]);
        if (found.length !== uniq.length) v.add('campaignTags', 'No such tag in this account.');
        else out.tags = uniq;
      }
    }
    if (body.activityTime !== undefined) out.activity = this.parseActivity(v, body.activityTime);
    if (body.campaignSettings !== undefined) out.settings = this.parseSettings(v, body.campaignSettings);
    v.done();
    return out;
  }

  /** `campaignVariables`: [{ variable, variableName, defaultValue, missingRule }], the rules of `/campaigns_variables`. */
  private parseVariableLinks(v: Violations, raw: unknown): VariableLinkInput[] | undefined {
    const path = 'campaignVariables';
    if (!Array.isArray(raw) || raw.length > 500) {
      v.add(path, 'A list of { variable, variableName, defaultValue, missingRule } (at most 500).');
      return undefined;
    }
    const out: VariableLinkInput[] = [];
    const seen = new Set<string>();
    raw.forEach((item, i) => {
      const at = `${path}[${i}]`;
      if (!isObject(item)) return v.add(at, 'An object { variable, variableName, defaultValue, missingRule }.');
      const variable = idOf(item.variable);
      if (!variable) return v.add(`${at}.variable`, 'The contact variable id.', 'errors.client.required');
      if (seen.has(variable)) return v.add(`${at}.variable`, 'This variable is given twice.');
      seen.add(variable);
      const name = item.variableName === undefined || item.variableName === null ? STANDARD_VARIABLE_NAMES[variable] : item.variableName;
      if (typeof name !== 'string' || !VARIABLE_NAME.test(name)) return v.add(`${at}.variableName`, 'Name the variable as it is written in the text ({{name}}): letters, digits, _ . -.', 'errors.client.required');
      const def = item.defaultValue;
      if (def !== undefined && def !== null && (typeof def !== 'string' || def.length > 1000)) return v.add(`${at}.defaultValue`, 'A text of at most 1000 characters.');
      const rule = item.missingRule === undefined ? MissingRule.SkipRecipient : item.missingRule;
      if (rule !== MissingRule.SkipRecipient && rule !== MissingRule.UseDefault) return v.add(`${at}.missingRule`, '0 (skip the recipient) or 1 (use the default value).');
      const defaultValue = typeof def === 'string' && def !== '' ? def : null;
      if (rule === MissingRule.UseDefault && defaultValue === null) return v.add(`${at}.defaultValue`, 'The default value is needed when a missing value uses it.', 'errors.client.required');
      const params = parseLinkParams(v, item.params, `${at}.params`);
      out.push({ variable, name, defaultValue, missingRule: rule, ...(params ? { params } : {}) });
      return undefined;
    });
    return out;
  }

  private async parseSenders(m: Pick<EntityManager, 'query'>, v: Violations, acc: string, raw: unknown): Promise<SenderInput[] | undefined> {
    if (!Array.isArray(raw)) {
      v.add('campaignsSenders', 'A list of { sender, ratio }.');
      return undefined;
    }
    const out: SenderInput[] = [];
    let given = 0;
    raw.forEach((item, i) => {
      const sender = isObject(item) ? idOf(item.sender) : idOf(item);
      if (!sender) return v.add(`campaignsSenders[${i}].sender`, 'A sender id.');
      if (out.some((o) => o.sender === sender)) return v.add(`campaignsSenders[${i}].sender`, 'Given twice.');
      let ratio = 0;
      if (isObject(item) && item.ratio !== undefined && item.ratio !== null) {
        given++;
        const r = int(v, `campaignsSenders[${i}].ratio`, item.ratio, { min: 0, max: 100 });
        if (typeof r === 'number') ratio = r;
      }
      out.push({ sender, ratio });
    });
    if (out.length !== raw.length) return undefined;
    if (out.length) {
      const found = await m.query<Array<{ id: string }>>(`SELECT sender_id::text AS id FROM campaigns.sender WHERE sender_id = ANY($1::bigint[]) AND account_id = $2 AND NOT deleted`, [out.map((o) => o.sender), acc]);
      const missing = out.filter((o) => !found.some((f) => f.id === o.sender)).map((o) => o.sender);
      if (missing.length) {
        v.add('campaignsSenders', `No such sender in this account: ${missing.join(', ')}.`);
        return undefined;
      }
    }
    if (given === 0) evenSplit(out.length).forEach((r, i) => (out[i].ratio = r));
    else if (given !== out.length || ratioProblem(out.map((o) => o.ratio))) v.add('campaignsSenders', 'The ratios must total 100.', 'errors.client.totalRatio');
    return out;
  }

  private parseActivity(v: Violations, raw: unknown): CampaignInput['activity'] {
    if (!isObject(raw)) {
      v.add('activityTime', 'An object: working_hours, working_days, timezone, timezone_mode, dates.');
      return undefined;
    }
    const mode = raw.timezone_mode ?? raw.timezoneMode ?? 'recipient';
    if (typeof mode !== 'string' || !CAMPAIGN_TIMEZONE_MODES.includes(mode as never)) v.add('activityTime.timezone_mode', `One of ${CAMPAIGN_TIMEZONE_MODES.join(', ')}.`);
    let timezone: string | null = null;
    if (raw.timezone !== undefined && raw.timezone !== null && raw.timezone !== '') {
      if (typeof raw.timezone !== 'string' || !isTimeZone(raw.timezone)) v.add('activityTime.timezone', 'An IANA time zone such as Europe/Berlin.');
      else timezone = raw.timezone;
    }
    if (mode === 'selected' && !timezone) v.add('activityTime.timezone', 'Choose the time zone.', 'errors.client.required');
    let start: string | null = null;
    let end: string | null = null;
    const wh = raw.working_hours;
    if (wh !== undefined && wh !== null) {
      if (!isObject(wh) || !isClock(wh.start) || !isClock(wh.end)) v.add('activityTime.working_hours', 'start and end as HH:MM.');
      else if (wh.start.slice(0, 5) === wh.end.slice(0, 5)) v.add('activityTime.working_hours', 'From and to must differ.', 'errors.client.notSameTime');
      else {
        start = wh.start.slice(0, 5);
        end = wh.end.slice(0, 5);
      }
    }
    let days = ALL_DAYS;
    if (raw.working_days !== undefined && raw.working_days !== null) {
      const d = raw.working_days;
      if (!Array.isArray(d) || d.length === 0 || d.some((x) => !Number.isInteger(Number(x)) || Number(x) < 1 || Number(x) > 7)) v.add('activityTime.working_days', 'Days 1 (Monday) to 7 (Sunday), at least one.');
      else days = [...new Set(d.map(Number))].sort();
    }
    const dates = isObject(raw.dates) ? raw.dates : {};
    const date = (k: string): Date | null => {
      const x = dates[k];
      if (x === undefined || x === null || x === '') return null;
      const d = isoDate(x);
      if (!d) v.add(`activityTime.dates.${k}`, 'An ISO 8601 date-time.');
      return d;
    };
    const dateStart = date('start');
    const dateEnd = date('end');
    const scheduled = date('scheduled');
    if (dateStart && dateEnd && dateEnd <= dateStart) v.add('activityTime.dates.end', 'The end must be after the start.');
    const json = {
      working_hours: start && end ? { start, end } : null,
      working_days: days,
      timezone,
      timezone_mode: mode,
      dates: { start: dateStart?.toISOString() ?? null, end: dateEnd?.toISOString() ?? null, scheduled: scheduled?.toISOString() ?? null },
    };
    return { json, mode: String(mode), timezone, days, start, end, dateStart, dateEnd, scheduled };
  }

  private parseSettings(v: Violations, raw: unknown): Record<string, unknown> | undefined {
    if (!isObject(raw)) {
      v.add('campaignSettings', 'An object: max_domains_per_pool, auto_pause_after_messages, auto_pause_after_every_messages, ctr_indicators, metadata.');
      return undefined;
    }
    const out: Record<string, unknown> = {};
    for (const k of ['max_domains_per_pool', 'auto_pause_after_messages', 'auto_pause_after_every_messages']) {
      const n = int(v, `campaignSettings.${k}`, raw[k], { min: 1, max: 1_000_000_000, nullable: true });
      out[k] = n ?? null;
    }
    let ctr: [number, number] = [CAMPAIGN_DEFAULTS.ctrIndicators.bad, CAMPAIGN_DEFAULTS.ctrIndicators.good];
    if (raw.ctr_indicators !== undefined && raw.ctr_indicators !== null) {
      const c = raw.ctr_indicators;
      const pair = Array.isArray(c) ? c : isObject(c) ? [c.bad, c.good] : [];
      const nums = pair.map((x) => (typeof x === 'number' ? x : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN));
      if (nums.length !== 2 || nums.some((x) => !Number.isFinite(x) || x < 0 || x > 100)) v.add('campaignSettings.ctr_indicators', '[bad, good], numbers from 0 to 100.');
      else if (nums[1] < nums[0]) v.add('campaignSettings.ctr_indicators', 'Good CTR cannot be below bad CTR.', 'errors.client.badMoreThanGood');
      else ctr = [nums[0], nums[1]];
    }
    out.ctr_indicators = ctr;
    const meta = isObject(raw.metadata) ? raw.metadata : {};
    out.metadata = {
      space: typeof meta.space === 'string' ? meta.space.slice(0, 255) : null,
      team: typeof meta.team === 'string' ? meta.team.slice(0, 255) : null,
      tags: Array.isArray(meta.tags) ? meta.tags.filter((t): t is string => typeof t === 'string').map((t) => t.slice(0, 64)).slice(0, 50) : [],
    };
    return out;
  }

  /** Writes a checked input: scalar columns, and the variant, sender and tag sets it replaces. */
  private async write(m: EntityManager, acc: string, id: string, input: CampaignInput): Promise<void> {
    const sets: string[] = [];
    const values: unknown[] = [id, acc];
    const set = (col: string, value: unknown, cast = '') => {
      values.push(value);
      sets.push(`${col} = $${values.length}${cast}`);
    };
    if (input.name !== undefined) set('name', input.name);
    if (input.description !== undefined) set('description', input.description);
    if (input.type !== undefined) set('type', input.type);
    if (input.country !== undefined) set('country', input.country);
    if (input.stream !== undefined) set('stream_id', input.stream);
    if (input.hasShortURL !== undefined) set('has_short_url', input.hasShortURL);
    if (input.unsubscribeAutoAdd !== undefined) set('unsubscribe_auto_add', input.unsubscribeAutoAdd);
    if (input.sendDuplicates !== undefined) set('send_duplicates', input.sendDuplicates);
    if (input.contactLists !== undefined) set('contact_list_ids', input.contactLists, '::bigint[]');
    if (input.activity) {
      const a = input.activity;
      set('activity_time', JSON.stringify(a.json), '::jsonb');
      set('timezone_mode', a.mode);
      set('timezone', a.timezone);
      set('working_days', a.days, '::smallint[]');
      set('working_hours_start', a.start, '::time');
      set('working_hours_end', a.end, '::time');
      set('start_date', a.dateStart);
      set('end_date', a.dateEnd);
      set('scheduled_at', a.scheduled);
    }
    if (input.settings) set('campaign_settings', JSON.stringify(input.settings), '::jsonb');
    set('updated_at', this.clock.now());
    await m.query(`UPDATE campaigns.campaign SET ${sets.join(', ')} WHERE id = $1 AND account_id = $2`, values);
    if (input.variants) {
      await m.query(`DELETE FROM campaigns.campaign_variant WHERE campaign_id = $1`, [id]);
      await m.query(
        `INSERT INTO campaigns.campaign_variant (account_id, campaign_id, name, text, color, ratio, position)
         SELECT $1, $2, t.name, t.text, t.color, t.ratio, t.position FROM unnest($3::text[], $4::text[], $5::text[], $6::int[], $7::int[]) AS t(name, text, color, ratio, position)`,
        [acc, id, input.variants.map((x) => x.name), input.variants.map((x) => x.text), input.variants.map((x) => x.color), input.variants.map((x) => x.ratio), input.variants.map((_, i) => i)],
      );
    }
    if (input.senders) {
      await m.query(`DELETE FROM campaigns.campaign_sender WHERE campaign_id = $1`, [id]);
      if (input.senders.length)
        await m.query(
          `INSERT INTO campaigns.campaign_sender (account_id, campaign_id, sender_id, ratio, position)
           SELECT $1, $2, t.sender, t.ratio, t.position FROM unnest($3::bigint[], $4::int[], $5::int[]) AS t(sender, ratio, position)`,
          [acc, id, input.senders.map((x) => x.sender), input.senders.map((x) => x.ratio), input.senders.map((_, i) => i)],
        );
    }
    if (input.variables?.length) {
      await m.query(
        `INSERT INTO campaigns.campaign_variable (account_id, campaign_id, variable_id, variable_name, default_value, missing_rule, params)
         SELECT $1, $2, t.variable, t.name, t.def, t.rule, coalesce(t.params, '{}'::jsonb) FROM unnest($3::bigint[], $4::text[], $5::text[], $6::smallint[], $7::jsonb[]) AS t(variable, name, def, rule, params)
         ON CONFLICT (campaign_id, variable_id) DO UPDATE SET variable_name = EXCLUDED.variable_name, default_value = EXCLUDED.default_value, missing_rule = EXCLUDED.missing_rule,
           params = CASE WHEN EXCLUDED.variable_id = ANY($8::bigint[]) THEN EXCLUDED.params ELSE campaign_variable.params END`,
        [
          acc,
          id,
          input.variables.map((x) => x.variable),
          input.variables.map((x) => x.name),
          input.variables.map((x) => x.defaultValue),
          input.variables.map((x) => x.missingRule),
          input.variables.map((x) => (x.params ? JSON.stringify(x.params) : null)),
          input.variables.filter((x) => x.params).map((x) => x.variable),
        ],
      );
    }
    if (input.tags) {
      await m.query(`DELETE FROM campaigns.campaign_tags WHERE campaign_id = $1`, [id]);
      if (input.tags.length) await m.query(`INSERT INTO campaigns.campaign_tags (campaign_id, tag_id, account_id) SELECT $1, unnest($2::bigint[]), $3`, [id, input.tags, acc]);
    }
  }
}
