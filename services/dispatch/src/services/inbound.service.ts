import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { MessageReceivedV1, type EventData } from '@switchboard/contracts';
import { createEnvelope, Outbox } from '@switchboard/platform';
import type { ProviderInbound } from '../adapters/provider-adapter';
import { DISPATCH_CONNECTION, DISPATCH_SCHEMA } from '../dispatch.options';
import { ReadModelRepository } from '../repositories/read-model.repository';
import { DispatchOutboxRelay } from './events.service';

/**
 * Inbound messages (two-way SMS, WhatsApp, Telegram): matched to their account and stream, stored once per
 * provider message id, and announced as `dispatch.message.received` in the same transaction.
 */
@Injectable()
export class InboundService {
  private readonly log = new Logger(InboundService.name);

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    private readonly readModels: ReadModelRepository,
    private readonly relay: DispatchOutboxRelay,
  ) {}

  /** Resolves once stored (or deliberately dropped); adapters acknowledge the provider after it. */
  async receive(m: ProviderInbound): Promise<void> {
    const stream = await this.streamOf(m);
    if (!stream) {
      this.log.warn(`inbound ${m.channel} message to ${m.accountPhone} matches no stream; dropped`);
      return;
    }
    const uuid = randomUUID();
    const inserted = await this.ds.transaction(async (q) => {
      const rows = await q.query<unknown[]>(
        `INSERT INTO dispatch.inbound_message (uuid, account_id, stream_id, stream_uid, stream_type, channel, vendor_id, account_phone,
           contact_phone, contact_name, message_type, body, media, provider_message_id, received_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (channel, account_phone, provider_message_id) DO NOTHING RETURNING id`,
        [uuid, stream.accountId, stream.streamId, stream.streamUid, stream.streamType, m.channel, m.vendorId, m.accountPhone, m.contactPhone,
          m.contactName, m.messageType, m.body, m.media ? JSON.stringify(m.media) : null, m.providerMessageId, m.receivedAt],
      );
      if (rows.length === 0) return false;
      const data: EventData<typeof MessageReceivedV1> = {
        messageUuid: uuid,
        accountId: stream.accountId,
        streamId: stream.streamId,
        streamUid: stream.streamUid,
        streamType: stream.streamType,
        channel: m.channel as EventData<typeof MessageReceivedV1>['channel'],
        accountPhone: m.accountPhone,
        contactPhone: m.contactPhone,
        contactName: m.contactName,
        messageType: m.messageType,
        body: m.body,
        media: m.media,
        receivedAt: m.receivedAt.toISOString(),
      };
      await Outbox.add(q, DISPATCH_SCHEMA, [createEnvelope(MessageReceivedV1, data, { accountId: stream.accountId, source: 'dispatch' })]);
      return true;
    });
    if (inserted) this.relay.kick();
  }

  private async streamOf(m: ProviderInbound): Promise<{ accountId: string; streamId: string; streamUid: string; streamType: number } | null> {
    if (m.streamUid) {
      const s = await this.readModels.streamChannelByUid(m.streamUid);
      return s ? { accountId: String(s.accountId), streamId: String(s.streamId), streamUid: s.streamUid, streamType: s.streamType } : null;
    }
    for (const sender of [m.accountPhone, `+${m.accountPhone.replace(/^\+/, '')}`, m.accountPhone.replace(/^\+/, '')]) {
      const s = await this.readModels.streamChannelBySender(m.channel, sender);
      if (s) return { accountId: String(s.accountId), streamId: String(s.streamId), streamUid: s.streamUid, streamType: s.streamType };
    }
    return this.readModels.lastOutboundTo(m.channel, m.accountPhone, m.contactPhone);
  }
}
