import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CampaignStatusesReconciledV1, CampaignStatusesRequestedV1, MessagesReconciledV1, MessagesReconcileRequestedV1, type EventEnvelope, type MessageStatusValue } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { DISPATCH_CONNECTION } from '../dispatch.options';
import { addToOutbox, DispatchOutboxRelay } from './events.service';

/**
 * Answers streams' `streams.messages.reconcile_requested` (docs/decisions/0087): which of the named messages of the
 * request's account dispatch has (with status and send state), and which it never got. One indexed read (the unique
 * message uuid) and the answer through the outbox in one transaction; a message of another account is answered
 * unknown, so a request learns nothing about another tenant's messages (and streams re-publishes only its own).
 */
@Injectable()
export class ReconcileResponder {
  private readonly log = new Logger('DispatchReconcile');

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    private readonly relay: DispatchOutboxRelay,
  ) {}

  async answer(e: EventEnvelope): Promise<void> {
    if (e.type !== MessagesReconcileRequestedV1.type || e.version !== 1) return;
    const parsed = MessagesReconcileRequestedV1.schema.safeParse(e.data);
    if (!parsed.success) {
      this.log.error(`dropping malformed ${e.type} ${e.id}: ${parsed.error.message}`);
      return;
    }
    const d = parsed.data;
    if (e.accountId !== d.accountId) {
      this.log.error(`reconcile request ${e.id} names account ${d.accountId} under envelope account ${String(e.accountId)}: not answered`);
      return;
    }
    const uuids = [...new Set(d.messageUuids)];
    await this.ds.transaction(async (m) => {
      const rows = (await m.query(`SELECT uuid::text AS uuid, status, send_state FROM dispatch.message WHERE uuid = ANY($1::uuid[]) AND account_id = $2`, [uuids, d.accountId])) as Array<{
        uuid: string;
        status: MessageStatusValue;
        send_state: string;
      }>;
      const known = new Set(rows.map((r) => r.uuid));
      const event = createEnvelope(
        MessagesReconciledV1,
        {
          requestId: d.requestId,
          accountId: d.accountId,
          known: rows.map((r) => ({ messageUuid: r.uuid, status: r.status, sendState: r.send_state })),
          unknown: uuids.filter((u) => !known.has(u)),
        },
        { accountId: d.accountId, source: 'dispatch' },
      );
      await addToOutbox(m, [event]);
    });
    this.relay.kick();
  }
  /**
   * Answers campaigns' `campaigns.statuses.reconcile_requested` (docs/decisions/0093): the current status of each named
   * message of the request's account, and the uuids it does not have. The same one indexed read as above; a message of
   * another account is answered unknown, so the answer carries nothing of another tenant.
   */
  async answerStatuses(e: EventEnvelope): Promise<void> {
    if (e.type !== CampaignStatusesRequestedV1.type || e.version !== 1) return;
    const parsed = CampaignStatusesRequestedV1.schema.safeParse(e.data);
    if (!parsed.success) {
      this.log.error(`dropping malformed ${e.type} ${e.id}: ${parsed.error.message}`);
      return;
    }
    const d = parsed.data;
    if (e.accountId !== d.accountId) {
      this.log.error(`status request ${e.id} names account ${d.accountId} under envelope account ${String(e.accountId)}: not answered`);
      return;
    }
    const uuids = [...new Set(d.messageUuids)];
    await this.ds.transaction(async (m) => {
      const rows = (await m.query(`SELECT uuid::text AS uuid, status FROM dispatch.message WHERE uuid = ANY($1::uuid[]) AND account_id = $2`, [uuids, d.accountId])) as Array<{ uuid: string; status: MessageStatusValue }>;
      const known = new Set(rows.map((r) => r.uuid));
      const event = createEnvelope(
        CampaignStatusesReconciledV1,
        {
          requestId: d.requestId,
          accountId: d.accountId,
          campaignId: d.campaignId,
          statuses: rows.map((r) => ({ messageUuid: r.uuid, status: r.status })),
          unknown: uuids.filter((u) => !known.has(u)),
        },
        { accountId: d.accountId, source: 'dispatch' },
      );
      await addToOutbox(m, [event]);
    });
    this.relay.kick();
  }
}
