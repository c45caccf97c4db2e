import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { Permission, Topics, WebhookDisabledV1, type EventData, type EventEnvelope } from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, Mailer, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { AUTH_CONNECTION, AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { ENTERING_STATUSES, MembershipStatus } from '../entities';
import { AUTH_SCHEMA } from '../services/auth-events.service';

/** Frozen: renaming it would make Kafka replay the webhooks topic into a new group (and mail everyone again). */
export const WEBHOOK_DISABLED_MAIL_GROUP = 'auth.webhook-disabled-mail';

const REASONS = {
  gone: 'its receiver answered 410 Gone, which asks us to stop sending',
  failing: 'its deliveries have failed for days without a single success',
} as const;

/**
 * The webhooks service turned a webhook off (410 Gone, or failing for days): auth, which owns the users and the mail,
 * tells the account's admins (the owner and active members whose role may edit webhooks) by email, once per event:
 * the mails are sent inside the transaction that records the event as processed, so a redelivered event finds it
 * done and a mail that could not be sent rolls it back to be tried again. docs/decisions/0027-webhooks.md.
 */
@Injectable()
export class WebhookDisabledMailConsumer implements OnModuleInit {
  private readonly logger = new Logger('auth');

  constructor(
    @InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(Mailer) private readonly mailer: Mailer,
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: WEBHOOK_DISABLED_MAIL_GROUP, topics: [Topics.Webhooks], types: [WebhookDisabledV1.type], handler: async (e) => void (await this.handle(e)) });
  }

  /** Mails the admins of the event's account; returns how many mails were sent (0 for a redelivery). */
  async handle(event: EventEnvelope): Promise<number> {
    if (event.type !== WebhookDisabledV1.type || event.version !== WebhookDisabledV1.version) return 0;
    const parsed = WebhookDisabledV1.schema.safeParse(event.data);
    if (!parsed.success) {
      this.logger.error(`ignored malformed ${event.type} ${event.id}: ${parsed.error.message}`);
      return 0;
    }
    const d = parsed.data;
    let sent = 0;
    await IdempotentConsumer.handleOnce(this.ds, AUTH_SCHEMA, WEBHOOK_DISABLED_MAIL_GROUP, event, async (m) => {
      for (const to of await this.admins(m, d.accountId)) {
        await this.mailer.send(this.mail(to, d));
        sent++;
      }
    });
    return sent;
  }

  /** The owner and the active members whose platform role may edit webhooks, of an account that is not deleted. */
  private async admins(m: EntityManager, accountId: string): Promise<string[]> {
    const rows = await m.query<Array<{ email: string }>>(
      `SELECT DISTINCT u.email FROM auth.membership ms
         JOIN auth.app_user u ON u.id = ms.user_id
         LEFT JOIN auth.role pr ON pr.id = ms.platform_role_id AND NOT pr.is_deleted
        WHERE ms.account_id = $1 AND ms.status = ANY ($2::int[])
          AND (ms.status = $3 OR $4 = ANY (coalesce(pr.permissions, '{}')))
        ORDER BY u.email`,
      [accountId, [...ENTERING_STATUSES], MembershipStatus.Owner, Permission.WebhookAddEdit],
    );
    return rows.map((r) => r.email);
  }

  private mail(to: string, d: EventData<typeof WebhookDisabledV1>) {
    const link = `${this.options.appUrl}/webhooks`;
    return {
      to,
      subject: `Webhook "${d.name}" was turned off`,
      text: [
        `We turned off your webhook "${d.name}" (${d.trigger.replace(/_/g, ' ')}, ${d.origin}) because ${REASONS[d.reason]}.`,
        d.failingSince ? `Deliveries have been failing since ${d.failingSince}.` : '',
        '',
        `No more events are sent to it. Fix the receiver, then turn the webhook back on: ${link}`,
        'The request log shows every attempt with its request and response.',
      ]
        .filter((l, i, all) => l !== '' || all[i - 1] !== '')
        .join('\n'),
    };
  }
}
