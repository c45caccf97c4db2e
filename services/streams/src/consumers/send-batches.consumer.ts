import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  BlacklistChangedV1,
  CampaignSendBatchRequestedV1,
  ContactOptedOutV1,
  ErrorCode,
  InboxSendRequestedV1,
  fastSendBatch,
  SendBatch,
  SendBatchProcessedV1,
  SendRefusal,
  Topics,
  type EventData,
  type EventEnvelope,
  type SendRefusalValue,
} from '@switchboard/contracts';
import { AppError, createEnvelope, EventBus, IdempotentConsumer, PROCESS_ROLES, TransientError, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { LookupsService, type ActiveStream, type CustomerView } from '../services/lookups.service';
import { SendDatabase } from '../services/send-database';
import { SendService, type PreparedSend, type Refusal } from '../services/send.service';
import { StreamsOutboxRelay } from '../services/streams-events.service';
import { STREAMS_CONNECTION, STREAMS_SCHEMA } from '../streams.options';

export const SEND_BATCH_GROUP = 'streams.send-batches';
export const BLOCKED_GROUP = 'streams.blocked-projector';

type Answer = EventData<typeof SendBatchProcessedV1>['items'][number];
type Batch = SendBatch;

const refused = (ref: string, messageUuid: string, refusal: SendRefusalValue, code: string | number): Answer => ({
  ref,
  messageUuid,
  outcome: 'refused',
  refusal,
  code: String(code),
  priceMicros: null,
  currency: null,
  segments: null,
});

/** What `accept_messages` refused, as the requester's refusal and the spec's code. */
const WRITE_REFUSALS: Record<Exclude<Refusal, 'duplicate' | 'key_in_use'>, [SendRefusalValue, string]> = {
  no_customer: [SendRefusal.AccountDisabled, ErrorCode.StreamUnavailable],
  no_price: [SendRefusal.NoPrice, ErrorCode.InvalidArgument],
  daily_limit: [SendRefusal.DailyLimit, ErrorCode.LimitUndefined],
  payment_required: [SendRefusal.LowBalance, ErrorCode.PaymentRequired],
};

const OUTBOX_ONE = `INSERT INTO streams.outbox (event_id, topic, key, type, payload) VALUES ($1, $2, $3, $4, $5::jsonb)`;

/**
 * Send batches from campaigns and inbox (libs/contracts/src/send-requests.ts, docs/decisions/0032-campaign-runner.md).
 * Every item takes the stream API's path: the stream and account checks, body validation, the blacklist and opt-outs
 * (a read model of contacts' events), approved senders and blocked keywords, the TPS buckets, then ONE
 * `accept_messages` statement for the whole batch (pricing, daily limit, balance, the message rows and
 * `streams.message.accepted` with the campaign id), in the same transaction as the batch's answer
 * (`streams.send_batch.processed`, through the outbox). The requester's messageUuid is the message's key: an item
 * already stored is answered `accepted` + `duplicate` and not charged again. An infrastructure failure throws, and the
 * bus retries the batch (docs/decisions/0022): nothing of it was written.
 */
@Injectable()
export class SendBatchesConsumer implements OnModuleInit {
  private readonly log = new Logger('StreamsSendBatches');

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly db: SendDatabase,
    private readonly lookups: LookupsService,
    private readonly sends: SendService,
    private readonly relay: StreamsOutboxRelay,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: SEND_BATCH_GROUP,
      topics: [Topics.Campaigns, Topics.Inbox],
      types: [CampaignSendBatchRequestedV1.type, InboxSendRequestedV1.type],
      concurrency: 4,
      handler: (e) => this.handle(e),
    });
    await this.bus.subscribe({ group: BLOCKED_GROUP, topics: [Topics.Contacts], types: [BlacklistChangedV1.type, ContactOptedOutV1.type], handler: (e) => this.onBlocked(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    const requester = e.type === CampaignSendBatchRequestedV1.type ? 'campaigns' : e.type === InboxSendRequestedV1.type ? 'inbox' : null;
    if (!requester || e.version !== 1) return;
    const batch = fastSendBatch(e.data) ?? SendBatch.parse(e.data);
    // The envelope's account is the requester's tenant: a batch naming another account is not sent for anyone.
    if (e.accountId !== null && e.accountId !== batch.accountId) throw new Error(`send batch ${batch.batchId}: envelope account ${e.accountId} is not the batch's account ${batch.accountId}`);
    try {
      await this.process(requester, batch);
    } catch (err) {
      // The same messageUuid written by a concurrent delivery of the batch: its retry answers the item as a duplicate.
      if ((err as { code?: string }).code === '23505') throw new TransientError(`send batch ${batch.batchId}: a concurrent write of the same message`, { cause: err });
      this.log.warn(`send batch ${batch.batchId} of account ${batch.accountId} failed: ${(err as Error).message}`);
      throw err;
    }
  }

  /** Decides every item, writes the accepted ones and the answer in one transaction. */
  async process(requester: 'campaigns' | 'inbox', b: Batch): Promise<Answer[]> {
    const answers: Array<Answer | null> = b.items.map(() => null);
    const toWrite: Array<{ n: number; p: PreparedSend }> = [];
    const sender = await this.streamAndCustomer(b);
    if ('refusal' in sender) {
      b.items.forEach((it, n) => (answers[n] = refused(it.ref, it.messageUuid, sender.refusal, sender.code)));
    } else {
      await this.decideItems(b, sender.stream, sender.customer, answers, toWrite);
    }

    const done = await this.db.transaction(async (client) => {
      if (toWrite.length) {
        const results = await this.sends.writeAll(toWrite.map((w) => w.p), client);
        results.forEach((r, k) => {
          const { n, p } = toWrite[k];
          const it = b.items[n];
          if (r.result === 'ok') {
            answers[n] = { ref: it.ref, messageUuid: it.messageUuid, outcome: 'accepted', refusal: null, code: null, priceMicros: r.amountMicros, currency: r.currency, segments: r.segments };
            return;
          }
          this.sends.refundTokens(p.stream);
          const [refusal, code] = WRITE_REFUSALS[r.result as keyof typeof WRITE_REFUSALS] ?? [SendRefusal.Invalid, ErrorCode.InvalidArgument];
          answers[n] = refused(it.ref, it.messageUuid, refusal, code);
        });
      }
      const items = answers as Answer[];
      const event = createEnvelope(
        SendBatchProcessedV1,
        { batchId: b.batchId, requester, accountId: b.accountId, streamId: b.streamId, campaignId: b.campaignId, items },
        { accountId: b.accountId, source: 'streams', occurredAt: this.clock.now() },
      );
      const { topic, ...envelope } = event;
      await client.query(OUTBOX_ONE, [event.id, topic, event.key, event.type, JSON.stringify(envelope)]);
      return items;
    });
    this.relay.kickSoon();
    return done;
  }

  /** The stream (the batch's account's own) and the account, when both can send; else the refusal of every item. */
  private async streamAndCustomer(b: Batch): Promise<{ refusal: SendRefusalValue; code: string | number } | { stream: ActiveStream; customer: CustomerView }> {
    const stream = await this.lookups.streamById(b.streamId, b.accountId);
    if (!stream) return { refusal: SendRefusal.StreamDisabled, code: ErrorCode.StreamUnavailable };
    try {
      this.sends.assertStreamCanSend(stream);
    } catch (err) {
      if (err instanceof AppError) return { refusal: SendRefusal.StreamDisabled, code: err.code };
      throw err;
    }
    let customer: CustomerView;
    try {
      customer = await this.sends.customerFor(stream);
    } catch (err) {
      if (err instanceof AppError) return { refusal: SendRefusal.AccountDisabled, code: err.code };
      throw err;
    }
    if (!(customer.tps > 0)) return { refusal: SendRefusal.TpsReached, code: ErrorCode.LimitUndefined };
    return { stream, customer };
  }

  /** Validation, repeats, blocked numbers, content and TPS, item by item in batch order; what passes is prepared. */
  private async decideItems(b: Batch, stream: ActiveStream, customer: CustomerView, answers: Array<Answer | null>, toWrite: Array<{ n: number; p: PreparedSend }>): Promise<void> {
    const stored = new Map<string, { account_id: string; price_micros: string; currency: string; segments: number }>();
    for (const r of await this.db.query<{ uuid: string; account_id: string; price_micros: string; currency: string; segments: number }>(
      `SELECT uuid::text, account_id::text, price_micros::text, currency, segments FROM streams.message WHERE uuid = ANY($1::uuid[])`,
      [b.items.map((it) => it.messageUuid)],
    )) {
      stored.set(r.uuid, r);
    }
    const valid = new Map<number, ReturnType<SendService['validate']>>();
    const seen = new Set<string>();
    b.items.forEach((it, n) => {
      const prior = stored.get(it.messageUuid);
      if (prior) {
        answers[n] =
          prior.account_id === b.accountId
            ? { ref: it.ref, messageUuid: it.messageUuid, outcome: 'accepted', duplicate: true, refusal: null, code: null, priceMicros: Number(prior.price_micros), currency: prior.currency, segments: prior.segments }
            : refused(it.ref, it.messageUuid, SendRefusal.Invalid, ErrorCode.RequestValidation);
        return;
      }
      if (seen.has(it.messageUuid)) {
        answers[n] = refused(it.ref, it.messageUuid, SendRefusal.Invalid, ErrorCode.RequestValidation);
        return;
      }
      seen.add(it.messageUuid);
      const body: Record<string, unknown> = { phone: it.destination, message: it.text };
      if (it.sender !== null) body.sender = it.sender;
      if (it.payload !== null) body.payload = it.payload;
      try {
        valid.set(n, this.sends.validate(stream, body));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const paths = new Set((err.violations ?? []).map((v) => v.propertyPath));
        const refusal = paths.has('phone') ? SendRefusal.InvalidDestination : paths.has('sender') ? SendRefusal.InvalidSender : SendRefusal.Invalid;
        answers[n] = refused(it.ref, it.messageUuid, refusal, err.code);
      }
    });

    const blocked = new Map<string, string>();
    const phones = [...new Set([...valid.values()].map((v) => v.destination))];
    if (phones.length) {
      for (const r of await this.db.query<{ phone: string; kind: string }>(
        `SELECT phone, min(kind) AS kind FROM streams.blocked_destination WHERE account_id = $1 AND phone = ANY($2::text[]) GROUP BY phone`,
        [b.accountId, phones],
      )) {
        blocked.set(r.phone, r.kind);
      }
    }

    // the approved senders and keywords looked up once for the batch; each item's content and TPS checks then run
    // without a turn of the event loop unless the shared TPS bucket is asked (docs/decisions/0189)
    const checkContent = valid.size ? await this.sends.contentChecker(stream, customer) : null;
    for (const [n, input] of valid) {
      const it = b.items[n];
      const kind = blocked.get(input.destination);
      if (kind) {
        answers[n] = refused(it.ref, it.messageUuid, kind === 'blacklist' ? SendRefusal.Blacklisted : SendRefusal.OptedOut, ErrorCode.InvalidArgument);
        continue;
      }
      try {
        checkContent!(input);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        answers[n] = refused(it.ref, it.messageUuid, /keyword/.test(err.message) ? SendRefusal.BlockedKeyword : SendRefusal.InvalidSender, err.code);
        continue;
      }
      try {
        const tokens = this.sends.takeTokens(stream, customer);
        if (tokens) await tokens;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        answers[n] = refused(it.ref, it.messageUuid, SendRefusal.TpsReached, err.code);
        continue;
      }
      toWrite.push({
        n,
        p: { stream, customer, input, key: null, requestHash: null, flags: { campaignId: b.campaignId, messageUuid: it.messageUuid, notBefore: it.notBefore, noFingerprint: true, variantId: it.variantId } },
      });
    }
  }

  /** Contacts' blacklist changes and opt-outs: the numbers a send batch refuses. Each event once. */
  async onBlocked(e: EventEnvelope): Promise<void> {
    if (e.type === BlacklistChangedV1.type) {
      const d = BlacklistChangedV1.schema.parse(e.data);
      await IdempotentConsumer.handleOnce(this.ds, STREAMS_SCHEMA, BLOCKED_GROUP, e, async (m) => {
        if (d.removed.length) await m.query(`DELETE FROM streams.blocked_destination WHERE account_id = $1 AND kind = 'blacklist' AND phone = ANY($2::text[])`, [d.accountId, d.removed]);
        if (d.added.length) {
          await m.query(
            `INSERT INTO streams.blocked_destination (account_id, phone, kind) SELECT $1, p, 'blacklist' FROM unnest($2::text[]) p ON CONFLICT DO NOTHING`,
            [d.accountId, d.added],
          );
        }
      });
    } else if (e.type === ContactOptedOutV1.type) {
      const d = ContactOptedOutV1.schema.parse(e.data);
      await IdempotentConsumer.handleOnce(this.ds, STREAMS_SCHEMA, BLOCKED_GROUP, e, (m) =>
        m.query(`INSERT INTO streams.blocked_destination (account_id, phone, kind) VALUES ($1, $2, 'optout') ON CONFLICT DO NOTHING`, [d.accountId, d.phone]),
      );
    }
  }
}
