import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { IntegrationListRequested, Topics, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { rows } from '../db';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_SCHEMA } from '../integrations.options';

export const LISTS_GROUP = 'integrations.lists';

/**
 * Contacts created (or removed) an integration list: the list joins the integration's synced lists, marked to get the
 * whole mirror as its first full sync at the integration's next step (due at once). Only the list's own account's
 * integration is looked at: a request naming another account's key changes nothing.
 */
@Injectable()
export class IntegrationListsConsumer implements OnModuleInit {
  private readonly logger = new Logger('integrations.lists');

  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: LISTS_GROUP, topics: [Topics.Contacts], types: [IntegrationListRequested.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    const parsed = IntegrationListRequested.schema.safeParse(e.data);
    if (!parsed.success) return;
    const d = parsed.data;
    await IdempotentConsumer.handleOnce(this.ds, INTEGRATIONS_SCHEMA, LISTS_GROUP, e, async (m) => {
      const [integration] = await rows<{ id: string }>(m, `SELECT id FROM integrations.integration WHERE key::text = $1 AND account_id = $2 AND status <> 'disconnected'`, [d.integrationKey, d.accountId]);
      if (!integration) {
        this.logger.warn(`integration list ${d.listId} of account ${d.accountId} names no integration of that account`);
        return;
      }
      if (d.removed) {
        await m.query(`DELETE FROM integrations.synced_list WHERE integration_id = $1 AND list_id = $2`, [integration.id, d.listId]);
        return;
      }
      await m.query(
        `INSERT INTO integrations.synced_list (integration_id, list_id, account_id, import_list_id, filters, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (integration_id, list_id) DO UPDATE SET filters = EXCLUDED.filters, full_sync_pending = true`,
        [integration.id, d.listId, d.accountId, d.importListId, JSON.stringify(d.filters), this.clock.now()],
      );
      // the next step fills it (from the mirror when the integration has synced; with its full sync otherwise)
      await m.query(`UPDATE integrations.integration SET next_run_at = LEAST(COALESCE(next_run_at, $2), $2) WHERE id = $1 AND status IN ('active', 'syncing', 'paused')`, [integration.id, this.clock.now()]);
    });
  }
}
