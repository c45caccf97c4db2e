import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { CampaignOptOutBlockRequestedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { claimEvent, EventBus, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { CONTACTS_SCHEMA } from '../contacts.options';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { ContactsUnitOfWork } from './contacts-events.service';
import { blacklistOptOut } from './opt-out.consumer';

const GROUP = 'contacts.campaign_opt_out';

/** What the blacklist entry records as its opt-out "keyword": an opt-in reply (START) takes it off, as a STOP's. */
export const LINK_OPT_OUT_KEYWORD = 'opt-out link';

/**
 * `unsubscribeAutoAdd` (docs/decisions/0043): campaigns asks for the number of a recipient who confirmed the opt-out
 * link of a campaign that adds opt-outs to the blocked numbers; it goes on the event's account's blacklist like a STOP
 * reply's number. Each event once (`processed_events`), its blacklist change announced in the same transaction.
 */
@Injectable()
export class CampaignOptOutConsumer implements OnModuleInit {
  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: ContactsUnitOfWork,
    private readonly lists: ContactListRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: GROUP, topics: [Topics.Campaigns], types: [CampaignOptOutBlockRequestedV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    if (e.type !== CampaignOptOutBlockRequestedV1.type) return;
    const d = CampaignOptOutBlockRequestedV1.schema.parse(e.data);
    await this.uow.run(async (m, emit) => {
      if (!(await claimEvent(m, CONTACTS_SCHEMA, GROUP, e.id))) return;
      await blacklistOptOut(m, emit, this.lists, d.accountId, d.phone, LINK_OPT_OUT_KEYWORD, d.optedOutAt);
    });
  }
}
