import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ContactOptedOutV1, LinkOptOutConfirmedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { claimEvent, EventBus, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { CONTACTS_SCHEMA } from '../contacts.options';
import { one } from '../db/sql';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { ContactsUnitOfWork } from './contacts-events.service';

const GROUP = 'contacts.link_opt_out';

/**
 * A recipient confirmed the opt-out page of their campaign link (links: `links.opt_out.confirmed`): the contact is
 * opted out (`opted_out_at`), so lists, segments and every later campaign leave it out, and `contacts.contact.opted_out`
 * tells the other services. The contact is the link's (by id), else the account's contact with the link's number.
 * Each event once (`processed_events`); a contact already opted out stays as it is.
 */
@Injectable()
export class LinkOptOutConsumer implements OnModuleInit {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: ContactsUnitOfWork,
    private readonly lists: ContactListRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: GROUP, topics: [Topics.Links], types: [LinkOptOutConfirmedV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    if (e.type !== LinkOptOutConfirmedV1.type) return;
    const d = LinkOptOutConfirmedV1.schema.parse(e.data);
    await this.uow.run(async (m, emit) => {
      if (!(await claimEvent(m, CONTACTS_SCHEMA, GROUP, e.id))) return;
      // the tenant is the event's account: a contact id of another account matches nothing
      const changed = await one<{ id: string; list_ids: string[]; blocked: boolean; normalized_phone: string; opted_out_at: Date }>(
        m,
        `UPDATE contacts.contact c SET opted_out_at = $4, updated_at = now()
          WHERE c.id = (SELECT id FROM contacts.contact WHERE account_id = $1 AND (id = $2::bigint OR ($2::bigint IS NULL AND normalized_phone = $3)) ORDER BY id LIMIT 1)
            AND c.account_id = $1 AND c.opted_out_at IS NULL
          RETURNING c.id::text, c.list_ids, c.blocked, c.normalized_phone, c.opted_out_at`,
        [d.accountId, d.contactId, d.destination, new Date(d.optedOutAt)],
      );
      if (!changed) return;
      if (!changed.blocked) await this.lists.adjustCounts(d.accountId, [], changed.list_ids.map(String), m);
      emit(ContactOptedOutV1, { accountId: d.accountId, contactId: changed.id, phone: changed.normalized_phone, optedOutAt: changed.opted_out_at.toISOString(), source: 'link' }, d.accountId);
    });
  }
}
