import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  analyzeSms,
  AudienceCountedV1,
  AudienceRequestedV1,
  CampaignSendBatchRequestedV1,
  CampaignType,
  PriceChangedV1,
  Topics,
  type EventEnvelope,
} from '@switchboard/contracts';
import { AppError, EventBus, IdempotentConsumer, PROCESS_ROLES, RequestContext, type ProcessRoles } from '@switchboard/platform';
import { CAMPAIGNS_CONNECTION, CAMPAIGNS_SCHEMA } from '../campaigns.options';
import { Clock } from '../clock';
import { CampaignsUnitOfWork } from '../services/campaigns-events.service';
import { CampaignRunner, returned } from './runner.service';
import { unreachableTimezones } from './time-window';

export const PRICES_GROUP = 'campaigns.prices-projector';
export const COUNTS_GROUP = 'campaigns.audience-counts';

export interface EstimatedCost {
  status: 'pending' | 'ready' | 'error';
  error: string | null;
  currency: string;
  total: number;
  /** Segments a message (the longest variant as written). */
  segments: number;
  totalCostMicros: number;
  countries: Array<{ country: string; recipients: number; priceMicros: number | null; costMicros: number }>;
}

/** Spec 306: the demo SMS answers. */
export type DemoAnswer = { status: 'success'; messageUuid: string } | { status: 'campaign_not_selected' | 'campaign_not_exist' | 'phone_not_entered' | 'phone_invalid' | 'message_empty' | 'sender_not_exist' };

/**
 * Before a start (docs/decisions/0032-campaign-runner.md): the audience counted per country and time zone by contacts
 * (`mode: count`), priced with the account's prices (`get_estimated_cost`), and the zones the sending hours never reach
 * (`get_unreachable_timezones`); and the demo message (`send_demo_message`), composed as the runner composes and sent
 * through streams like any campaign message.
 */
@Injectable()
export class EstimateService implements OnModuleInit {
  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: CampaignsUnitOfWork,
    private readonly runner: CampaignRunner,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: PRICES_GROUP, topics: [Topics.Accounts], types: [PriceChangedV1.type], handler: (e) => this.onPrice(e) });
    await this.bus.subscribe({ group: COUNTS_GROUP, topics: [Topics.Contacts], types: [AudienceCountedV1.type], handler: (e) => this.onCounted(e) });
  }

  async onPrice(e: EventEnvelope): Promise<void> {
    const d = PriceChangedV1.schema.parse(e.data);
    await IdempotentConsumer.handleOnce(this.ds, CAMPAIGNS_SCHEMA, PRICES_GROUP, e, (m) =>
      m.query(
        `INSERT INTO campaigns.price (account_id, iso2, price_micros, currency, updated_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (account_id, iso2) DO UPDATE SET price_micros = EXCLUDED.price_micros, currency = EXCLUDED.currency, updated_at = now()`,
        [d.accountId ?? '0', d.iso2.toUpperCase(), d.pricePerSegmentMicros, d.currency],
      ),
    );
  }

  async onCounted(e: EventEnvelope): Promise<void> {
    const d = AudienceCountedV1.schema.parse(e.data);
    await this.uow.run(async (m, _emit, notify) => {
      const rows = returned(
        await m.query(
          `UPDATE campaigns.audience_estimate SET total = $4, by_country = $5, by_timezone = $6, error = $7, counted_at = $8
            WHERE campaign_id = $1 AND account_id = $2 AND request_id::text = $3 RETURNING campaign_id`,
          [d.campaignId, d.accountId, d.requestId, d.total, JSON.stringify(d.byCountry), JSON.stringify(d.byTimezone), d.error, this.clock.now()],
        ),
      );
      if (rows.length) notify({ accountId: d.accountId, type: 'campaign.estimate_ready', data: { campaignId: Number(d.campaignId) } });
    });
  }

  private account(): string {
    return RequestContext.accountId();
  }

  /** The counted audience of the campaign's current lists, asking contacts (again) when there is none or the lists changed. */
  private async counted(accountId: string, campaignId: string, refresh: boolean) {
    if (!/^\d{1,18}$/.test(campaignId)) throw AppError.notFound('campaign');
    const c = await this.runner.load(this.ds, campaignId);
    if (!c || c.accountId !== accountId) throw AppError.notFound('campaign');
    const key = `${[...c.contactListIds].sort().join(',')}|${c.sendDuplicates ? 1 : 0}`;
    const [est] = (await this.ds.query(`SELECT audience_key, total, by_country, by_timezone, error FROM campaigns.audience_estimate WHERE campaign_id = $1 AND account_id = $2`, [campaignId, accountId])) as Array<{
      audience_key: string;
      total: number | null;
      by_country: Record<string, number> | null;
      by_timezone: Record<string, number> | null;
      error: string | null;
    }>;
    if (est && est.audience_key === key && !refresh) return { c, est };
    if (!c.contactListIds.length) return { c, est: { audience_key: key, total: 0, by_country: {}, by_timezone: {}, error: null } };
    const requestId = randomUUID();
    await this.uow.run(async (m, emit) => {
      await m.query(
        `INSERT INTO campaigns.audience_estimate (campaign_id, account_id, request_id, audience_key, requested_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (campaign_id) DO UPDATE SET request_id = EXCLUDED.request_id, audience_key = EXCLUDED.audience_key, total = NULL, by_country = NULL, by_timezone = NULL,
           error = NULL, requested_at = EXCLUDED.requested_at, counted_at = NULL`,
        [campaignId, accountId, requestId, key, this.clock.now()],
      );
      emit(AudienceRequestedV1, { requestId, accountId, campaignId, contactListIds: c.contactListIds.slice(0, 100), sendDuplicates: c.sendDuplicates, variableIds: [], mode: 'count' }, accountId);
    });
    return { c, est: null };
  }

  /** `GET /campaigns/get_estimated_cost`: recipients and cost per country with the account's prices. */
  async estimatedCost(campaignId: string, refresh = false): Promise<EstimatedCost> {
    const accountId = this.account();
    const { c, est } = await this.counted(accountId, campaignId, refresh);
    const [acc] = (await this.ds.query(`SELECT currency FROM campaigns.account WHERE account_id = $1`, [accountId])) as Array<{ currency: string }>;
    const currency = acc?.currency ?? 'EUR';
    const variants = (await this.ds.query(`SELECT text FROM campaigns.campaign_variant WHERE campaign_id = $1`, [campaignId])) as Array<{ text: string }>;
    const sms = c.type !== CampaignType.WhatsApp && c.type !== CampaignType.Telegram;
    const segments = sms ? Math.max(1, ...variants.map((v) => analyzeSms(v.text).segments)) : 1;
    if (!est || est.total === null) return { status: 'pending', error: null, currency, total: 0, segments, totalCostMicros: 0, countries: [] };
    if (est.error) return { status: 'error', error: est.error, currency, total: 0, segments, totalCostMicros: 0, countries: [] };
    const byCountry = est.by_country ?? {};
    const prices = (await this.ds.query(
      `SELECT DISTINCT ON (iso2) iso2, price_micros::text AS price FROM campaigns.price WHERE account_id IN ($1, 0) AND currency = $2 AND iso2 = ANY($3::text[]) ORDER BY iso2, account_id DESC`,
      [accountId, currency, Object.keys(byCountry)],
    )) as Array<{ iso2: string; price: string }>;
    const priceOf = new Map(prices.map((p) => [p.iso2, Number(p.price)]));
    // Telegram sends are free (streams prices them at 0)
    const free = c.type === CampaignType.Telegram;
    const countries = Object.entries(byCountry)
      .map(([country, recipients]) => {
        const price = free ? 0 : (priceOf.get(country) ?? null);
        return { country, recipients, priceMicros: price, costMicros: price === null ? 0 : price * segments * recipients };
      })
      .sort((x, y) => y.recipients - x.recipients || x.country.localeCompare(y.country));
    return { status: 'ready', error: null, currency, total: est.total, segments, totalCostMicros: countries.reduce((s, x) => s + x.costMicros, 0), countries };
  }

  /** `GET /campaigns/get_unreachable_timezones`: audience zones in which the sending hours never open before the end date. */
  async unreachable(campaignId: string, refresh = false): Promise<{ status: 'pending' | 'ready' | 'error'; items: Array<{ timezone: string; count: number }> }> {
    const accountId = this.account();
    const { c, est } = await this.counted(accountId, campaignId, refresh);
    if (!est || est.total === null) return { status: 'pending', items: [] };
    if (est.error) return { status: 'error', items: [] };
    const audience = Object.entries(est.by_timezone ?? {}).map(([tz, count]) => ({ timezone: tz || null, count }));
    return { status: 'ready', items: unreachableTimezones(this.clock.now().getTime(), c.window, audience, c.accountZone) };
  }

  /** `POST /campaigns/send_demo_message`: one message of the campaign to `phone`, composed for a demo contact. */
  async sendDemo(body: Record<string, unknown>): Promise<DemoAnswer> {
    const accountId = this.account();
    const campaignId = body.campaign ?? body.campaignId;
    if (campaignId === undefined || campaignId === null || campaignId === '') return { status: 'campaign_not_selected' };
    if (!/^\d{1,18}$/.test(String(campaignId))) return { status: 'campaign_not_exist' };
    const c = await this.runner.load(this.ds, String(campaignId));
    if (!c || c.accountId !== accountId) return { status: 'campaign_not_exist' };
    const raw = typeof body.phone === 'string' ? body.phone.replace(/[\s()-]/g, '') : '';
    if (!raw) return { status: 'phone_not_entered' };
    if (!/^\+?[1-9]\d{6,14}$/.test(raw)) return { status: 'phone_invalid' };
    const phone = raw.startsWith('+') ? raw : `+${raw}`;
    const { composer, senderIds } = await this.runner.composer(this.ds, c);
    if (!c.streamId) return { status: 'sender_not_exist' };
    const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
    const vars: Record<string, string> = {};
    const standard: Array<[string, string | undefined]> = [['1', phone], ['2', str('firstName')], ['3', str('lastName')], ['4', str('email')], ['5', str('country')], ['6', str('timezone')]];
    for (const [id, v] of standard) if (v) vars[id] = v;
    if (body.variables && typeof body.variables === 'object') for (const [k, v] of Object.entries(body.variables as Record<string, unknown>)) if (typeof v === 'string' && /^\d+$/.test(k)) vars[k] = v;
    const links: Record<string, string> = {};
    for (const k of ['shorturl', 'optout']) links[k] = str(k) ?? `https://example.com/${k}`;
    const ordinal = Math.floor(Math.random() * 1_000_000);
    const out = composer.compose({ ordinal, contactId: '0', occurrence: 0, variables: vars }, links);
    if (!out.ok || !out.text.trim()) return { status: 'message_empty' };
    if (senderIds.length && out.sender === null) return { status: 'sender_not_exist' };
    const messageUuid = randomUUID();
    const streamId = c.streamId;
    await this.uow.run(async (_m, emit) => {
      emit(
        CampaignSendBatchRequestedV1,
        { batchId: `demo-${messageUuid}`, accountId, streamId, campaignId: c.id, items: [{ messageUuid, destination: phone, text: out.text, sender: out.sender, payload: null, notBefore: null, ref: 'demo' }] },
        accountId,
      );
    });
    return { status: 'success', messageUuid };
  }
}
