import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ContactListReadyV1,
  CustomerCreatedV1,
  CustomerUpdatedV1,
  MaliciousKeywordsChangedV1,
  SenderChangedV1,
  SenderDeletedV1,
  StreamCreatedV1,
  StreamDeletedV1,
  StreamEventChangedV1,
  StreamEventDeletedV1,
  StreamUpdatedV1,
  Topics,
  type CustomerSnapshot,
  type EventDefinition,
  type EventEnvelope,
} from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, isTimeZone, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { CAMPAIGNS_CONNECTION, CAMPAIGNS_SCHEMA } from '../campaigns.options';

export const ACCOUNTS_GROUP = 'campaigns.accounts-projector';
export const STREAMS_GROUP = 'campaigns.streams-projector';
export const CONTACTS_GROUP = 'campaigns.contacts-projector';

function parse<T>(def: EventDefinition<T>, e: EventEnvelope): T | null {
  if (e.type !== def.type || e.version !== def.version) return null;
  return def.schema.parse(e.data);
}

const flag = (v: unknown, fallback: boolean): boolean => (v === undefined || v === null ? fallback : v === true || v === 1 || v === '1' || v === 'true');

/** The account's zone: customSettings.timezone, else genSettings.timezone, when a valid IANA name; else UTC (as stats does). */
export function accountTimeZone(c: Pick<CustomerSnapshot, 'customSettings' | 'genSettings'>): string {
  for (const v of [c.customSettings.timezone, c.genSettings.timezone]) if (isTimeZone(v)) return v;
  return 'UTC';
}

/**
 * The read models campaigns keeps from other services' events, each effect recorded once per event
 * (`processed_events`): customers (settings such as enable_spam_restriction, currency, zone) from accounts; streams,
 * senders, stream events and the malicious keyword list from streams; ready contact lists and segments from contacts.
 */
@Injectable()
export class ReadModelsConsumer implements OnModuleInit {
  private readonly log = new Logger('CampaignsReadModels');

  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: ACCOUNTS_GROUP, topics: [Topics.Accounts], types: [CustomerCreatedV1.type, CustomerUpdatedV1.type], handler: (e) => this.onAccounts(e) });
    await this.bus.subscribe({
      group: STREAMS_GROUP,
      topics: [Topics.Streams],
      types: [
        StreamCreatedV1.type,
        StreamUpdatedV1.type,
        StreamDeletedV1.type,
        SenderChangedV1.type,
        SenderDeletedV1.type,
        StreamEventChangedV1.type,
        StreamEventDeletedV1.type,
        MaliciousKeywordsChangedV1.type,
      ],
      handler: (e) => this.onStreams(e),
    });
    await this.bus.subscribe({ group: CONTACTS_GROUP, topics: [Topics.Contacts], types: [ContactListReadyV1.type], handler: (e) => this.onContacts(e) });
  }

  async onAccounts(e: EventEnvelope): Promise<void> {
    const c = parse(CustomerCreatedV1, e) ?? parse(CustomerUpdatedV1, e);
    if (!c) return;
    const cs = c.customSettings;
    const gs = c.genSettings;
    await this.once(ACCOUNTS_GROUP, e, (m) =>
      m.query(
        `INSERT INTO campaigns.account (account_id, name, status, active, currency, time_zone, tps, daily_limit, enable_spam_restriction, allow_spintax,
                                        allow_transactional_campaign, allow_campaign_whatsapp, custom_settings, gen_settings, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now())
         ON CONFLICT (account_id) DO UPDATE SET name = EXCLUDED.name, status = EXCLUDED.status, active = EXCLUDED.active, currency = EXCLUDED.currency,
           time_zone = EXCLUDED.time_zone, tps = EXCLUDED.tps, daily_limit = EXCLUDED.daily_limit, enable_spam_restriction = EXCLUDED.enable_spam_restriction,
           allow_spintax = EXCLUDED.allow_spintax, allow_transactional_campaign = EXCLUDED.allow_transactional_campaign,
           allow_campaign_whatsapp = EXCLUDED.allow_campaign_whatsapp, custom_settings = EXCLUDED.custom_settings, gen_settings = EXCLUDED.gen_settings, updated_at = now()`,
        [
          c.accountId,
          c.name,
          c.status,
          c.active === 1,
          c.currency,
          accountTimeZone(c),
          c.tps,
          c.dailyLimit,
          flag(cs.enable_spam_restriction, false),
          flag(gs.allow_spintax, true),
          flag(cs.allow_transactional_campaign, false),
          flag(cs.allow_campaign_whatsapp, false),
          JSON.stringify(cs),
          JSON.stringify(gs),
        ],
      ),
    );
  }

  async onStreams(e: EventEnvelope): Promise<void> {
    const stream = parse(StreamCreatedV1, e) ?? parse(StreamUpdatedV1, e);
    if (stream) {
      await this.once(STREAMS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO campaigns.stream (stream_id, account_id, stream_uid, name, stream_type, status, sender, enable_sending, tps, deleted, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, false, now())
           ON CONFLICT (stream_id) DO UPDATE SET name = EXCLUDED.name, stream_type = EXCLUDED.stream_type, status = EXCLUDED.status, sender = EXCLUDED.sender,
             enable_sending = EXCLUDED.enable_sending, tps = EXCLUDED.tps, updated_at = now()
           WHERE campaigns.stream.account_id = EXCLUDED.account_id AND NOT campaigns.stream.deleted`,
          [stream.streamId, stream.accountId, stream.streamUid, stream.name, stream.streamType, stream.status, stream.sender, stream.enableSending, stream.tps],
        ),
      );
      return;
    }
    const goneStream = parse(StreamDeletedV1, e);
    if (goneStream) {
      await this.once(STREAMS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO campaigns.stream (stream_id, account_id, stream_uid, deleted) VALUES ($1, $2, $3, true)
           ON CONFLICT (stream_id) DO UPDATE SET deleted = true, updated_at = now() WHERE campaigns.stream.account_id = EXCLUDED.account_id`,
          [goneStream.streamId, goneStream.accountId, goneStream.streamUid],
        ),
      );
      return;
    }
    const sender = parse(SenderChangedV1, e);
    if (sender) {
      await this.once(STREAMS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO campaigns.sender (sender_id, account_id, name, value, type, country, approved, deleted, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, false, now())
           ON CONFLICT (sender_id) DO UPDATE SET name = EXCLUDED.name, value = EXCLUDED.value, type = EXCLUDED.type, country = EXCLUDED.country,
             approved = EXCLUDED.approved, updated_at = now()
           WHERE campaigns.sender.account_id = EXCLUDED.account_id AND NOT campaigns.sender.deleted`,
          [sender.senderId, sender.accountId, sender.name, sender.value, sender.type, sender.country, sender.approved],
        ),
      );
      return;
    }
    const goneSender = parse(SenderDeletedV1, e);
    if (goneSender) {
      await this.once(STREAMS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO campaigns.sender (sender_id, account_id, value, deleted) VALUES ($1, $2, '', true)
           ON CONFLICT (sender_id) DO UPDATE SET deleted = true, updated_at = now() WHERE campaigns.sender.account_id = EXCLUDED.account_id`,
          [goneSender.senderId, goneSender.accountId],
        ),
      );
      return;
    }
    const se = parse(StreamEventChangedV1, e);
    if (se) {
      await this.once(STREAMS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO campaigns.stream_event (stream_event_id, account_id, stream_id, name, text, event_key, active, deleted)
           VALUES ($1, $2, $3, $4, $5, $6, $7, false)
           ON CONFLICT (stream_event_id) DO UPDATE SET stream_id = EXCLUDED.stream_id, name = EXCLUDED.name, text = EXCLUDED.text,
             event_key = EXCLUDED.event_key, active = EXCLUDED.active
           WHERE campaigns.stream_event.account_id = EXCLUDED.account_id AND NOT campaigns.stream_event.deleted`,
          [se.streamEventId, se.accountId, se.streamId, se.name, se.text, se.eventKey, se.active],
        ),
      );
      return;
    }
    const goneSe = parse(StreamEventDeletedV1, e);
    if (goneSe) {
      await this.once(STREAMS_GROUP, e, (m) =>
        m.query(
          `INSERT INTO campaigns.stream_event (stream_event_id, account_id, stream_id, deleted) VALUES ($1, $2, 0, true)
           ON CONFLICT (stream_event_id) DO UPDATE SET deleted = true WHERE campaigns.stream_event.account_id = EXCLUDED.account_id`,
          [goneSe.streamEventId, goneSe.accountId],
        ),
      );
      return;
    }
    const keywords = parse(MaliciousKeywordsChangedV1, e);
    if (keywords) {
      await this.once(STREAMS_GROUP, e, async (m) => {
        await m.query(`DELETE FROM campaigns.malicious_keyword`);
        if (keywords.keywords.length === 0) return;
        await m.query(`INSERT INTO campaigns.malicious_keyword (keyword_id, word, type) SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[]) ON CONFLICT DO NOTHING`, [
          keywords.keywords.map((k) => k.id),
          keywords.keywords.map((k) => k.word),
          keywords.keywords.map((k) => k.type),
        ]);
      });
    }
  }

  async onContacts(e: EventEnvelope): Promise<void> {
    const list = parse(ContactListReadyV1, e);
    if (!list) return;
    await this.once(CONTACTS_GROUP, e, (m) =>
      m.query(
        `INSERT INTO campaigns.contact_list (contact_list_id, account_id, type, name, num_of_contacts, ready_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (contact_list_id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, num_of_contacts = EXCLUDED.num_of_contacts, ready_at = EXCLUDED.ready_at
         WHERE campaigns.contact_list.account_id = EXCLUDED.account_id`,
        [list.contactListId, list.accountId, list.type, list.name, list.numOfContacts, list.readyAt],
      ),
    );
  }

  private async once(group: string, e: EventEnvelope, effect: (m: EntityManager) => Promise<unknown>): Promise<void> {
    try {
      await IdempotentConsumer.handleOnce(this.ds, CAMPAIGNS_SCHEMA, group, e, effect);
    } catch (err) {
      this.log.warn(`${group}: ${e.type} ${e.id} failed: ${(err as Error).message}`);
      throw err;
    }
  }
}
