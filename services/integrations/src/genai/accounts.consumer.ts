import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CustomerCreatedV1, CustomerUpdatedV1, InboxSpaceAccessChangedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_SCHEMA } from '../integrations.options';
import { isGenAiProvider } from './providers';

export const GENAI_ACCOUNTS_GROUP = 'integrations.genai-accounts';
export const GENAI_SPACES_GROUP = 'integrations.genai-spaces';

/** customSettings and genSettings hold 0/1, booleans or their strings, as the console saved them. */
export const flag = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';

/**
 * The accounts' AI switches as the accounts service publishes them (customSettings allow_generative_ai and
 * allow_spintax_ai, genSettings default_generative_service, the status): a snapshot per account, a later one wins.
 */
@Injectable()
export class GenAiAccountsConsumer implements OnModuleInit {
  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: GENAI_ACCOUNTS_GROUP, topics: [Topics.Accounts], types: [CustomerCreatedV1.type, CustomerUpdatedV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    const d = CustomerCreatedV1.schema.parse(e.data);
    const def = d.genSettings.default_generative_service;
    await IdempotentConsumer.handleOnce(this.ds, INTEGRATIONS_SCHEMA, GENAI_ACCOUNTS_GROUP, e, async (m) => {
      await m.query(
        `INSERT INTO integrations.genai_account (account_id, allow_generative_ai, allow_spintax_ai, gen_default_service, status, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id) DO UPDATE SET allow_generative_ai = EXCLUDED.allow_generative_ai, allow_spintax_ai = EXCLUDED.allow_spintax_ai,
           gen_default_service = EXCLUDED.gen_default_service, status = EXCLUDED.status, updated_at = EXCLUDED.updated_at
         WHERE integrations.genai_account.updated_at <= EXCLUDED.updated_at`,
        [d.accountId, flag(d.customSettings.allow_generative_ai), flag(d.customSettings.allow_spintax_ai), isGenAiProvider(def) ? def : null, d.status, e.occurredAt],
      );
    });
  }
}

/**
 * Who may use the AI assistant in which space (spec 6, update_permissions; decision 0050), as the inbox publishes it:
 * the latest snapshot of the account's spaces, a later one wins. The writing calls check it.
 */
@Injectable()
export class GenAiSpacesConsumer implements OnModuleInit {
  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: GENAI_SPACES_GROUP, topics: [Topics.Inbox], types: [InboxSpaceAccessChangedV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    const d = InboxSpaceAccessChangedV1.schema.parse(e.data);
    // the inbox names its own tenant: a snapshot for another account than the envelope's is not taken
    if (e.accountId !== d.accountId) throw new Error(`space access snapshot for ${d.accountId} in an envelope of ${e.accountId}`);
    await IdempotentConsumer.handleOnce(this.ds, INTEGRATIONS_SCHEMA, GENAI_SPACES_GROUP, e, async (m) => {
      await m.query(
        `INSERT INTO integrations.genai_space_access (account_id, spaces, updated_at) VALUES ($1, $2, $3)
         ON CONFLICT (account_id) DO UPDATE SET spaces = EXCLUDED.spaces, updated_at = EXCLUDED.updated_at
         WHERE integrations.genai_space_access.updated_at <= EXCLUDED.updated_at`,
        [d.accountId, JSON.stringify(d.spaces), e.occurredAt],
      );
    });
  }
}
