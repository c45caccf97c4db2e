import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CustomerCreatedV1, CustomerUpdatedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { AUTH_CONNECTION } from '../auth.options';
import { AccountRepository } from '../repositories';
import { AUTH_SCHEMA } from '../services/auth-events.service';

/** Frozen: renaming it would make Kafka replay the whole accounts topic into a new group. */
export const ACCOUNTS_READ_MODEL_GROUP = 'auth.accounts-read-model';

const DEFINITIONS = new Map([
  [CustomerCreatedV1.type, CustomerCreatedV1],
  [CustomerUpdatedV1.type, CustomerUpdatedV1],
]);

/**
 * Keeps `auth.account` in step with the accounts service: every `accounts.customer.created|updated` snapshot is
 * upserted once (IdempotentConsumer), and an older snapshot never overwrites a newer one.
 */
@Injectable()
export class AccountsReadModelConsumer implements OnModuleInit {
  private readonly logger = new Logger('auth');

  constructor(
    @InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly accounts: AccountRepository,
  ) {}

  // subscribed before the platform starts the bus (onApplicationBootstrap)
  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: ACCOUNTS_READ_MODEL_GROUP, topics: [Topics.Accounts], handler: async (e) => void (await this.handle(e)) });
  }

  /** Applies one event; anything but a version-1 customer snapshot is ignored. Returns whether the read model changed. */
  async handle(event: EventEnvelope): Promise<boolean> {
    const def = DEFINITIONS.get(event.type);
    if (!def || event.version !== def.version) return false;
    const parsed = def.schema.safeParse(event.data);
    if (!parsed.success) {
      // the producer's bug: retrying cannot fix it, and it must not stall the partition
      this.logger.error(`ignored malformed ${event.type} ${event.id}: ${parsed.error.message}`);
      return false;
    }
    const s = parsed.data;
    let applied = false;
    await IdempotentConsumer.handleOnce(this.ds, AUTH_SCHEMA, ACCOUNTS_READ_MODEL_GROUP, event, async (m) => {
      applied = await this.accounts.upsertSnapshot(
        {
          id: s.accountId,
          name: s.name,
          shortName: s.shortName ?? '',
          status: s.status,
          currency: s.currency,
          active: s.active,
          customSettings: s.customSettings,
          createdAt: Number.isFinite(Date.parse(s.createdAt)) ? new Date(s.createdAt) : new Date(event.occurredAt),
          snapshotAt: new Date(event.occurredAt),
        },
        m,
      );
    });
    return applied;
  }
}
