import type { SmsEncodingName } from '../sms';

/** What an adapter is asked to deliver: one message, split into parts by the adapter if its channel needs it. */
export interface OutboundMessage {
  /** dispatch's message id (bigint as a string). */
  id: string;
  uuid: string;
  accountId: string;
  streamId: string;
  channel: string;
  sender: string;
  destination: string;
  text: string;
  encoding: SmsEncodingName | null;
  /** WhatsApp template or media; null for plain text. */
  payload: Record<string, unknown> | null;
  /** The stream's provider credentials (bot token, access token) from the streams read model. */
  credentials: Record<string, string> | null;
  /** Set on a resend after a crash or an unanswered submit: the provider may already have the message. */
  possibleDuplicate: boolean;
  /**
   * Asked by an adapter that queues before writing (SMPP), just before it writes the message's first part: true
   * means its campaign was paused meanwhile, and nothing of it is written (outcome `held`). Absent: never held.
   */
  held?: () => boolean;
  /**
   * Asked by an adapter that queues before writing (SMPP), just before it writes the message's first part: ms until
   * the message may be written under its limits' one-second windows as the carrier sees them (0: now, and the write is
   * then recorded with `sent()`). Queued writes bunch behind a full SMPP window; this keeps them within the rate at the
   * wire (docs/decisions/0094). Absent: not gated.
   */
  gate?: { wait(): number; sent(): void };
}

/**
 * - accepted: the provider took every part; its ids, one per part, in order. `finalStatus` when the channel has no
 *   delivery reports and acceptance is the end (Telegram).
 * - rejected: the provider refused the message for good (bad number, bad content, auth): no retry.
 * - retry: nothing reached the provider, or it said to come back (throttled, queue full, 5xx before accepting):
 *   safe to send again, after `afterMs` if given.
 * - unknown: the request was written and no answer came (timeout, connection lost): the provider may have it.
 *   Never resent blindly: dispatch resends once, flagged possible_duplicate.
 */
export type SendOutcome =
  | { kind: 'accepted'; providerIds: string[]; finalStatus?: 'delivered' }
  | { kind: 'rejected'; error: string }
  | { kind: 'retry'; error: string; afterMs?: number }
  | { kind: 'unknown'; error: string }
  /** Nothing was written: `held()` said its campaign is paused (it waits in dispatch until play). */
  | { kind: 'held' };

/** A status report for something a provider accepted: SMPP receipts, WhatsApp statuses. */
export interface ProviderReceipt {
  vendorId: string;
  providerMessageId: string;
  /** delivered / undelivered are final; read is delivered plus read; sent and intermediate move nothing final. */
  outcome: 'delivered' | 'undelivered' | 'read' | 'sent' | 'intermediate';
  error: string | null;
  at: Date;
  mcc?: string | null;
  mnc?: string | null;
  /**
   * The recipient the report names, where the provider says (an SMPP receipt's source_addr): a provider id reused for
   * another message is told apart by it.
   */
  destination?: string | null;
}

/**
 * What a provider says when asked about a message it accepted (SMPP query_sm): final (delivered or undelivered, as a
 * receipt would have said), still pending (en route, accepted, unknown to the carrier yet), or no answer (the carrier
 * does not support asking, refused, or did not answer in time). Only a final answer moves the message.
 */
export type QueryAnswer =
  | { kind: 'final'; outcome: 'delivered' | 'undelivered'; error: string | null; at: Date }
  | { kind: 'pending'; state: string }
  | { kind: 'failed'; error: string };

/** A message someone sent to us: two-way SMS (deliver_sm), WhatsApp and Telegram updates. */
export interface ProviderInbound {
  vendorId: string | null;
  channel: string;
  /** Our side: the number the SMS was sent to, the WhatsApp phone number id, the Telegram bot's stream uid. */
  accountPhone: string;
  contactPhone: string;
  contactName: string | null;
  messageType: string;
  body: string;
  media: Record<string, unknown> | null;
  providerMessageId: string;
  receivedAt: Date;
  /** When the webhook already names the stream (Telegram, per-stream webhook URL). */
  streamUid?: string;
  /** SMPP type of number of `accountPhone` / `contactPhone` (1 international, 2 national, 0 unknown), when the protocol says. */
  accountPhoneTon?: number;
  contactPhoneTon?: number;
}

/** Where adapters hand what they hear. Each promise resolves once the report is durable: ack the provider after it. */
export interface AdapterSink {
  receipt(receipt: ProviderReceipt): Promise<void>;
  inbound(message: ProviderInbound): Promise<void>;
}

/**
 * One provider connection (or pool of connections) of one vendor. Implementations: SMPP, WhatsApp Cloud API,
 * Telegram Bot API, Telegram private (MTProto), and the simulator of embedded mode.
 */
export abstract class ProviderAdapter {
  abstract readonly kind: string;
  constructor(readonly vendorId: string) {}
  abstract start(sink: AdapterSink): Promise<void>;
  abstract stop(): Promise<void>;
  abstract send(message: OutboundMessage): Promise<SendOutcome>;
  /** How many more messages it takes now without them waiting long in its queue; the dispatcher claims no more. */
  abstract capacity(): number;
  /** True when connected and able to send (SMPP bound). */
  abstract ready(): boolean;
  /**
   * Asks the provider for the state of a part it accepted, for messages whose receipt is overdue (a receipt lost with
   * a connection, or never sent). Adapters whose protocol has no such question leave `canQuery` false.
   */
  readonly canQuery: boolean = false;
  query(_part: { providerMessageId: string; sender: string }): Promise<QueryAnswer> {
    return Promise.resolve({ kind: 'failed', error: `${this.kind} cannot be asked for a message's state` });
  }
}
