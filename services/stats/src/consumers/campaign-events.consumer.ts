import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  CampaignChangedV1,
  DomainChangedV1,
  LinkBatchMintedV2,
  LinkClicksRecordedV1,
  LinkOptOutConfirmedV1,
  readLinkBatchMinted,
  Topics,
  type EventData,
  type EventDefinition,
  type EventEnvelope,
  type LinkBatchMinted,
} from '@switchboard/contracts';
import { BatchedIdempotentConsumer, EventBus, PROCESS_ROLES, type BatchItem, type ProcessRoles } from '@switchboard/platform';
import { STATS_CONNECTION, STATS_SCHEMA } from '../stats.options';

export const CAMPAIGN_EVENTS_GROUP = 'stats.campaign-events';

type Input =
  | { kind: 'clicks'; d: EventData<typeof LinkClicksRecordedV1> }
  | { kind: 'optout'; d: EventData<typeof LinkOptOutConfirmedV1> }
  | { kind: 'minted'; d: LinkBatchMinted };

function parse<T>(def: EventDefinition<T>, e: EventEnvelope): T | null {
  if (e.type !== def.type || e.version !== def.version) return null;
  return def.schema.parse(e.data);
}

/** The local hour's start in the account's zone, as in the message rollups (a DST fall-back's repeated hour stays two buckets). */
const HOUR_OF = (at: string) => `${at} - ((${at} AT TIME ZONE coalesce(acc.time_zone, 'UTC')) - date_trunc('hour', ${at} AT TIME ZONE coalesce(acc.time_zone, 'UTC')))`;

/** The local date in the account's zone, as the message day rollups have it. */
const DAY_OF = (at: string) => `(${at} AT TIME ZONE coalesce(acc.time_zone, 'UTC'))::date`;

/**
 * What the campaign, variant and domain reports need besides the messages (docs/decisions/0046-campaign-reports.md):
 * clicks (`links.clicks.recorded`, per campaign, variant, domain and local hour; first clicks counted apart), opt-outs
 * through the links' opt-out page (per campaign and the message's variant), links minted per campaign and domain
 * (`links.link_batch.minted`: the usages a domain's CTR is over), and the names and owners of campaigns and domains.
 * Each event once (`processed_events`); clicks and mints are sums, so their order does not matter.
 */
@Injectable()
export class CampaignEventsConsumer implements OnModuleInit {
  private readonly batched: BatchedIdempotentConsumer<Input>;

  constructor(
    @InjectDataSource(STATS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {
    this.batched = new BatchedIdempotentConsumer<Input>({ dataSource: ds, schema: STATS_SCHEMA, consumer: CAMPAIGN_EVENTS_GROUP, maxBatch: 500, apply: (m, items) => this.apply(m, items) });
  }

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: CAMPAIGN_EVENTS_GROUP,
      topics: [Topics.Links, Topics.Campaigns],
      types: [LinkClicksRecordedV1.type, LinkOptOutConfirmedV1.type, LinkBatchMintedV2.type, DomainChangedV1.type, CampaignChangedV1.type],
      concurrency: 500,
      handler: (e) => this.onEvent(e),
    });
  }

  async onEvent(e: EventEnvelope): Promise<void> {
    const clicks = parse(LinkClicksRecordedV1, e);
    if (clicks) return this.batched.handle(e, { kind: 'clicks', d: clicks });
    const optout = parse(LinkOptOutConfirmedV1, e);
    if (optout) return this.batched.handle(e, { kind: 'optout', d: optout });
    // v1 and v2 (docs/decisions/0129)
    const minted = readLinkBatchMinted(e);
    if (minted) return this.batched.handle(e, { kind: 'minted', d: minted });
    // snapshots: the latest wins, an upsert is idempotent (a domain or campaign never changes account)
    const domain = parse(DomainChangedV1, e);
    if (domain) {
      await this.ds.query(
        `INSERT INTO stats.domain (domain_id, account_id, name, deleted) VALUES ($1, $2, $3, $4)
         ON CONFLICT (domain_id) DO UPDATE SET name = EXCLUDED.name, deleted = EXCLUDED.deleted WHERE stats.domain.account_id = EXCLUDED.account_id`,
        [domain.domainId, domain.accountId, domain.name.toLowerCase(), domain.deleted],
      );
      return;
    }
    const campaign = parse(CampaignChangedV1, e);
    if (campaign) {
      await this.ds.query(
        `INSERT INTO stats.campaign (campaign_id, account_id, name, status, stream_id, deleted, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (campaign_id) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status, stream_id = EXCLUDED.stream_id, deleted = EXCLUDED.deleted, updated_at = EXCLUDED.updated_at
         WHERE stats.campaign.account_id = EXCLUDED.account_id AND stats.campaign.updated_at <= EXCLUDED.updated_at`,
        [campaign.campaignId, campaign.accountId, campaign.name, campaign.status, campaign.streamId, campaign.deleted, campaign.updatedAt],
      );
    }
  }

  private async apply(m: EntityManager, items: Array<BatchItem<Input>>): Promise<void> {
    const clicks: Array<{ a: string; c: string; v: string; d: string; at: string; f: boolean }> = [];
    const optouts: Array<{ a: string; c: string; u: string | null; at: string }> = [];
    const usages = new Map<string, { a: string; c: string; h: string; n: number }>();
    for (const { data } of items) {
      if (data.kind === 'clicks') {
        for (const k of data.d.clicks) clicks.push({ a: data.d.accountId, c: k.campaignId ?? '0', v: k.variantId ?? '0', d: k.domainId, at: k.clickedAt, f: k.first });
      } else if (data.kind === 'optout') {
        if (data.d.campaignId) optouts.push({ a: data.d.accountId, c: data.d.campaignId, u: data.d.messageUuid, at: data.d.optedOutAt });
      } else if (data.d.outcome === 'minted') {
        // links per domain prefix (v2: counted from the picks, no link text built)
        for (const [prefix, n] of data.d.perPrefix()) {
          let host: string;
          try {
            host = new URL(prefix).hostname.toLowerCase();
          } catch {
            continue;
          }
          const key = `${data.d.accountId}|${data.d.campaignId}|${host}`;
          const u = usages.get(key) ?? { a: data.d.accountId, c: data.d.campaignId, h: host, n: 0 };
          u.n += n;
          usages.set(key, u);
        }
      }
    }
    // clicks and opt-outs go to the hour rollup and, summed per local date, to the day rollup (docs/decisions/0060)
    const both = (rows: string, cols: string, sums: string, set: string) => `
      WITH t AS (${rows}), h AS (
        INSERT INTO stats.campaign_click_hour AS r (account_id, campaign_id, bucket, variant_id, domain_id, ${cols})
        SELECT a, c, hour, v, d, ${sums} FROM t GROUP BY a, c, hour, v, d ORDER BY a, c, hour, v, d
        ON CONFLICT (account_id, campaign_id, bucket, variant_id, domain_id) DO UPDATE SET ${set}
      )
      INSERT INTO stats.campaign_click_day AS r (account_id, campaign_id, bucket, variant_id, domain_id, ${cols})
      SELECT a, c, day, v, d, ${sums} FROM t GROUP BY a, c, day, v, d ORDER BY a, c, day, v, d
      ON CONFLICT (account_id, campaign_id, bucket, variant_id, domain_id) DO UPDATE SET ${set}`;
    if (clicks.length) {
      await m.query(
        both(
          `SELECT t.a, t.c, ${HOUR_OF('t.at')} AS hour, ${DAY_OF('t.at')} AS day, t.v, t.d, t.f
             FROM json_to_recordset($1::json) AS t(a bigint, c bigint, v bigint, d bigint, at timestamptz, f boolean)
             LEFT JOIN stats.account acc ON acc.account_id = t.a`,
          'clicks, unique_clicks',
          'count(*), count(*) FILTER (WHERE f)',
          'clicks = r.clicks + EXCLUDED.clicks, unique_clicks = r.unique_clicks + EXCLUDED.unique_clicks',
        ),
        [JSON.stringify(clicks)],
      );
    }
    if (optouts.length) {
      // the variant is the message's when stats has seen its campaign batch, else 0 (unknown)
      await m.query(
        both(
          `SELECT t.a, t.c, ${HOUR_OF('t.at')} AS hour, ${DAY_OF('t.at')} AS day, coalesce(s.variant_id, 0) AS v, 0::bigint AS d
             FROM json_to_recordset($1::json) AS t(a bigint, c bigint, u uuid, at timestamptz)
             LEFT JOIN stats.account acc ON acc.account_id = t.a
             LEFT JOIN stats.message_state s ON s.message_uuid = t.u AND s.account_id = t.a`,
          'opted_out',
          'count(*)',
          'opted_out = r.opted_out + EXCLUDED.opted_out',
        ),
        [JSON.stringify(optouts)],
      );
    }
    if (usages.size) {
      await m.query(
        `INSERT INTO stats.campaign_domain_usage AS r (account_id, campaign_id, domain_name, usages)
         SELECT a, c, h, n FROM json_to_recordset($1::json) AS t(a bigint, c bigint, h text, n bigint) ORDER BY 1, 2, 3
         ON CONFLICT (account_id, campaign_id, domain_name) DO UPDATE SET usages = r.usages + EXCLUDED.usages`,
        [JSON.stringify([...usages.values()])],
      );
    }
  }
}
