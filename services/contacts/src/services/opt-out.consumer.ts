import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { BlacklistChangedV1, InboundOptedInV1, InboundOptedOutV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { claimEvent, EventBus, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { CONTACTS_SCHEMA } from '../contacts.options';
import { one } from '../db/sql';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { ContactsUnitOfWork, type Emit } from './contacts-events.service';
import type { EntityManager } from 'typeorm';

const GROUP = 'contacts.opt_out';

/**
 * Opt-out replies (dispatch: STOP, STOPALL, the account's own keywords; docs/decisions/0021) put the number on the
 * account's blacklist, so lists, segments and exports leave it out; an opt-in reply (START) takes off only an entry
 * an opt-out put there, never one an operator added. Telegram chat ids are not numbers and stay with dispatch's
 * per-sender opt-out. Each event once (`processed_events`), its blacklist change announced in the same transaction.
 */
@Injectable()
export class OptOutConsumer implements OnModuleInit {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: ContactsUnitOfWork,
    private readonly lists: ContactListRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: GROUP, topics: [Topics.Dispatch], types: [InboundOptedOutV1.type, InboundOptedInV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    const optedOut = e.type === InboundOptedOutV1.type;
    if (!optedOut && e.type !== InboundOptedInV1.type) return;
    const d = InboundOptedOutV1.schema.parse(e.data);
    if ((d.channel !== 'sms' && d.channel !== 'whatsapp') || !/^\+\d{6,16}$/.test(d.phone)) return;
    await this.uow.run(async (m, emit) => {
      if (!(await claimEvent(m, CONTACTS_SCHEMA, GROUP, e.id))) return;
      if (optedOut) {
        await blacklistOptOut(m, emit, this.lists, d.accountId, d.phone, d.keyword, d.at);
        return;
      }
      const removed = await one<{ id: string }>(
        m,
        `WITH del AS (
           DELETE FROM contacts.black_list WHERE account_id = $1 AND normalized_phone = $2 AND opt_out_keyword IS NOT NULL RETURNING id, normalized_phone
         ), unb AS (
           UPDATE contacts.contact c SET blocked = false, updated_at = now() FROM del WHERE c.account_id = $1 AND c.normalized_phone = del.normalized_phone
         )
         SELECT id::text FROM del`,
        [d.accountId, d.phone],
      );
      if (!removed) return;
      const after = await one<{ list_ids: string[]; sendable: boolean }>(
        m,
        `SELECT list_ids, (NOT blocked AND opted_out_at IS NULL) AS sendable FROM contacts.contact WHERE account_id = $1 AND normalized_phone = $2`,
        [d.accountId, d.phone],
      );
      if (after?.sendable) await this.lists.adjustCounts(d.accountId, after.list_ids.map(String), [], m);
      emit(BlacklistChangedV1, { accountId: d.accountId, added: [], removed: [d.phone], changedAt: d.at }, d.accountId);
    });
  }
}

/**
 * Puts a number that opted out on the account's blacklist (`opt_out_keyword` records why, so an opt-in reply takes
 * it off again; an operator's entry is never touched), marks the account's contact blocked, adjusts the list counts
 * and announces the change. Nothing when the number is already blacklisted.
 */
export async function blacklistOptOut(m: EntityManager, emit: Emit, lists: ContactListRepository, accountId: string, phone: string, keyword: string, at: string): Promise<boolean> {
  const contact = await one<{ list_ids: string[]; sendable: boolean }>(
    m,
    `SELECT list_ids, (NOT blocked AND opted_out_at IS NULL) AS sendable FROM contacts.contact WHERE account_id = $1 AND normalized_phone = $2 FOR UPDATE`,
    [accountId, phone],
  );
  const added = await one<{ id: string }>(
    m,
    `WITH ins AS (
       INSERT INTO contacts.black_list (account_id, phone, normalized_phone, opt_out_keyword) VALUES ($1, $2, $2, $3)
       ON CONFLICT (account_id, normalized_phone) DO NOTHING RETURNING id, normalized_phone
     ), blk AS (
       UPDATE contacts.contact c SET blocked = true, updated_at = now() FROM ins WHERE c.account_id = $1 AND c.normalized_phone = ins.normalized_phone
     )
     SELECT id::text FROM ins`,
    [accountId, phone, keyword],
  );
  if (!added) return false;
  if (contact?.sendable) await lists.adjustCounts(accountId, [], contact.list_ids.map(String), m);
  emit(BlacklistChangedV1, { accountId, added: [phone], removed: [], changedAt: at }, accountId);
  return true;
}
