import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ACCOUNT_WIDE_OPT_OUT_KEYWORDS,
  ALL_SENDERS,
  DEFAULT_OPT_IN_KEYWORDS,
  DEFAULT_OPT_OUT_KEYWORDS,
  inboundAddress,
  InboundOptedInV1,
  InboundOptedOutV1,
  keywordOf,
  MessageReceivedV1,
  type EventData,
  type OptOutData,
} from '@switchboard/contracts';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { BatchedWriter, createEnvelope, Outbox, preparedQuery, timeOrderedUuid, type OutgoingEvent } from '@switchboard/platform';
import type { ProviderInbound } from '../adapters/provider-adapter';
import { DISPATCH_CONNECTION, DISPATCH_SCHEMA } from '../dispatch.options';
import { ReadModelRepository, targetKey, type InboundStreamRow, type InboundTargetRow, type OptKeywords } from '../repositories/read-model.repository';
import { DispatchOutboxRelay } from './events.service';
import { InboundMediaService, keepsMedia } from './inbound-media.service';
import { OptOutBook } from './opt-out.book';
import { RoutingService } from './routing.service';

interface InboundStream {
  accountId: string;
  streamId: string;
  streamUid: string;
  streamType: number;
  /** The account's opt keywords when the lookup of the stream brought them along. */
  optKeywords?: OptKeywords;
  /** Set when this is a remembered answer (TargetHint), not one read for this message: the write checks it. */
  hint?: TargetHint;
}

/**
 * What the last lookup of an address (our number) answered when its owner names a stream: the next messages to the
 * address skip the lookup statement, and the group commit checks in its own statement that the owner, the stream and
 * the account's opt keywords are still these before it writes a message (docs/decisions/0082). A hint is never
 * trusted unchecked: a message whose hint no longer holds is not written, and is looked up afresh.
 */
interface TargetHint {
  channel: string;
  address: string;
  stream: InboundStream;
  /** The account's opt keywords as JSON, compared with `account_limit.opt_keywords` (jsonb equality). */
  keywords: string;
}

/** Addresses whose answers are remembered, at most (our numbers: few); past it they are forgotten all at once. */
const MAX_HINTS = 10_000;

/** An inbound message waiting for its group commit, and what became of it. */
interface PendingInbound {
  /** The message row's 16 values, in the column order of `INBOUND_COLUMNS`. */
  values: unknown[];
  event: OutgoingEvent;
  inserted: boolean;
  error?: unknown;
  /** The remembered lookup the row's account and stream came from, checked by the insert. */
  hint?: TargetHint;
  /** The hint no longer held: nothing was written, and `redo` stored the message afresh (its outcome in `error`). */
  stale?: boolean;
  redo?: () => Promise<void>;
}

const INBOUND_COLUMNS = `uuid, account_id, stream_id, stream_uid, stream_type, channel, vendor_id, account_phone, contact_phone, contact_name, message_type, body, media, provider_message_id, received_at, media_state`;
const INBOUND_TYPES = ['uuid', 'bigint', 'bigint', 'text', 'smallint', 'text', 'bigint', 'text', 'text', 'text', 'text', 'text', 'jsonb', 'text', 'timestamptz', 'text'];

/**
 * Many inbound messages and their `dispatch.message.received` events in ONE statement (its own transaction): the rows
 * in arrival order, a provider message id already stored skipped (also a repeat within the batch), and an outbox row
 * only for the messages inserted, in the same order. A row that came with a remembered lookup (a hint: its
 * channel, address and the opt keywords it assumed) is written only if the address's owner, the stream it names and
 * the account's opt keywords are still the row's, in this statement's snapshot. Answers the uuids inserted
 * (`inserted` true) and those whose hint no longer held (`inserted` false, nothing written).
 */
const GROUP_INSERT_SQL = (() => {
  const cols = INBOUND_COLUMNS.split(', ');
  const n = cols.length;
  const arrays = cols.map((c, i) => `(SELECT $${i + 1}::text[])`).join(', ');
  const casts = cols.map((c, i) => `x.${c}::${INBOUND_TYPES[i]} AS ${c}`).join(', ');
  return `WITH x AS (
      SELECT ${casts}, x.hint_channel, x.hint_address, x.hint_keywords, x.ord
        FROM unnest(${arrays}, (SELECT $${n + 7}::text[]), (SELECT $${n + 8}::text[]), (SELECT $${n + 9}::text[]))
          WITH ORDINALITY AS x(${INBOUND_COLUMNS}, hint_channel, hint_address, hint_keywords, ord)),
    v AS (
      SELECT x.*, (x.hint_channel IS NULL OR EXISTS (
          SELECT 1 FROM dispatch.inbound_owner o
            JOIN dispatch.stream_channel sc ON sc.stream_id = o.stream_id AND sc.account_id = o.account_id
            LEFT JOIN dispatch.account_limit al ON al.account_id = o.account_id
           WHERE o.channel = x.hint_channel AND o.address = x.hint_address AND o.account_id = x.account_id AND o.stream_id = x.stream_id
             AND sc.stream_uid = x.stream_uid AND sc.stream_type = x.stream_type
             AND COALESCE(al.opt_keywords, '{}'::jsonb) = x.hint_keywords::jsonb)) AS holds
        FROM x),
    m AS (
      INSERT INTO dispatch.inbound_message (${INBOUND_COLUMNS}, media_next_at)
      SELECT ${INBOUND_COLUMNS}, CASE WHEN media_state IS NULL THEN NULL ELSE now() END
        FROM v WHERE holds ORDER BY ord
      ON CONFLICT (channel, account_phone, provider_message_id) DO NOTHING RETURNING uuid),
    o AS (
      INSERT INTO dispatch.outbox (event_id, topic, key, type, payload)
      SELECT e.event_id, e.topic, e.key, e.type, (SELECT $${n + 6}::jsonb) -> (e.ord::int - 1)
        FROM unnest((SELECT $${n + 1}::uuid[]), (SELECT $${n + 2}::uuid[]), (SELECT $${n + 3}::text[]), (SELECT $${n + 4}::text[]), (SELECT $${n + 5}::text[])) WITH ORDINALITY AS e(message_uuid, event_id, topic, key, type, ord)
       WHERE e.message_uuid IN (SELECT uuid FROM m) ORDER BY e.ord)
    SELECT uuid::text, true AS inserted FROM m
    UNION ALL SELECT uuid::text, false FROM v WHERE NOT holds`;
})();

/** An inbound message's lookup waiting for its batch: the stream its webhook names, or the address it was sent to. */
interface PendingLookup {
  uid?: string;
  channel: string;
  address: string;
  /** Read the tables even when a hint is remembered (the hint failed, or the message is an opt keyword). */
  fresh?: boolean;
  hint?: TargetHint;
  byUid?: (InboundStreamRow & { optKeywords: OptKeywords }) | null;
  target?: InboundTargetRow | null;
  error?: unknown;
}

/**
 * `write` for all the items at once; if that fails, for each item on its own, so a bad item fails only itself (its
 * `error`) and not the others of its batch.
 */
async function eachAloneOnFailure<T extends { error?: unknown }>(items: T[], write: (items: T[]) => Promise<void>): Promise<void> {
  try {
    await write(items);
  } catch (e) {
    if (items.length === 1) {
      items[0].error = e;
      return;
    }
    for (const item of items) {
      try {
        await write([item]);
      } catch (one) {
        item.error = one;
      }
    }
  }
}

/** Why an inbound message was kept aside rather than delivered. */
export type HeldReason = 'unclaimed' | 'no_stream';

/**
 * Inbound messages (two-way SMS, WhatsApp, Telegram): delivered only to the account that owns the address they were
 * sent to (`dispatch.inbound_owner`, from streams' exclusive claims; docs/decisions/0021), stored once per provider
 * message id, and announced as `dispatch.message.received` in the same transaction. A message for an address nobody
 * owns is kept aside in `dispatch.inbound_unclaimed` for the super administrator, never delivered to a guess. A whole
 * message that is an opt-out keyword (STOP, ..., the account's own) or an opt-in keyword (START) changes
 * `dispatch.opt_out` in the same transaction, with `dispatch.contact.opted_out` / `opted_in`.
 */
@Injectable()
export class InboundService {
  private readonly log = new Logger(InboundService.name);
  /**
   * The group commit of inbound messages (docs/decisions/0058): the messages that arrive while a write is in flight
   * (deliver_sm of every bind, webhook posts) go in the next one, one statement for all of them.
   */
  private readonly writer = new BatchedWriter<PendingInbound>(async (items) => {
    await eachAloneOnFailure(items, (some) => this.insertGroup(some));
    // a message whose hint no longer held is looked up afresh and stored before the next group is written, so it
    // keeps its place before its contact's later messages
    for (const item of items) if (item.stale && item.redo) await item.redo().catch((e: unknown) => (item.error = e));
  }, 500);
  /** Remembered lookups by `targetKey` (TargetHint). */
  private readonly hints = new Map<string, TargetHint>();
  /**
   * The lookups of the messages that arrive while one is in flight, in one statement (docs/decisions/0068): the owner
   * of each distinct address with the stream it names and the opt keywords, or the streams named by webhook URLs.
   */
  private readonly lookups = new BatchedWriter<PendingLookup>((items) => eachAloneOnFailure(items, (some) => this.lookUp(some)), 500);

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    private readonly readModels: ReadModelRepository,
    private readonly relay: DispatchOutboxRelay,
    private readonly optOuts: OptOutBook,
    private readonly routing: RoutingService,
    private readonly media: InboundMediaService,
  ) {}

  /** Resolves once stored (delivered or kept aside); adapters acknowledge the provider after it. */
  async receive(raw: ProviderInbound): Promise<void> {
    const { message: m, address } = this.addressed(raw);
    await this.store(m, address, await this.streamOf(m, address), false);
  }

  /**
   * Stores the message for the stream it resolved to (or keeps it aside). `direct`: written by this call rather than
   * through the group commit (a message looked up afresh while the group commit waits for it).
   */
  private async store(m: ProviderInbound, address: string, resolved: InboundStream | { held: HeldReason; address: string }, direct: boolean): Promise<void> {
    if ('held' in resolved) {
      await this.hold(m, resolved.address, resolved.held);
      return;
    }
    const stream = resolved;
    const keywords = this.keywordSets(stream.optKeywords ?? (await this.readModels.optKeywords(stream.accountId)));
    // time-ordered: appends to inbound_message's uuid key and the inbox's message_uuid key (docs/decisions/0161)
    const uuid = timeOrderedUuid();
    const optChange: { data: OptOutData; optedOut: boolean } | null = (() => {
      const word = keywordOf(m.body);
      if (!word) return null;
      const optedOut = keywords.optOut.has(word);
      if (!optedOut && !keywords.optIn.has(word)) return null;
      // the contact's number read with its metadata only for a keyword (docs/decisions/0101): for any other message it
      // was the dearest part of storing it (libphonenumber, a new number per customer)
      const contact = m.channel === 'sms' || m.channel === 'whatsapp' ? (inboundAddress('sms', m.contactPhone) ?? m.contactPhone) : m.contactPhone;
      const accountWide = optedOut && (ACCOUNT_WIDE_OPT_OUT_KEYWORDS as readonly string[]).includes(word);
      return {
        optedOut,
        data: {
          accountId: stream.accountId,
          phone: contact,
          channel: m.channel as OptOutData['channel'],
          sender: accountWide ? ALL_SENDERS : m.channel === 'telegram_private' ? this.optOuts.senderKey(m.channel, m.accountPhone) : address,
          streamId: stream.streamId,
          keyword: word,
          messageUuid: uuid,
          at: m.receivedAt.toISOString(),
        },
      };
    })();
    // a provider file is kept in the background, before the provider's retention ends (docs/decisions/0053)
    const keep = keepsMedia(m.channel, m.messageType, m.media);
    const insertMessage = `INSERT INTO dispatch.inbound_message (${INBOUND_COLUMNS}, media_next_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, CASE WHEN $16::text IS NULL THEN NULL ELSE now() END)
         ON CONFLICT (channel, account_phone, provider_message_id) DO NOTHING RETURNING id`;
    const messageParams = [uuid, stream.accountId, stream.streamId, stream.streamUid, stream.streamType, m.channel, m.vendorId, m.accountPhone, m.contactPhone,
      m.contactName, m.messageType, m.body, m.media ? JSON.stringify(m.media) : null, m.providerMessageId, m.receivedAt, keep ? 'pending' : null];
    const received = (): OutgoingEvent => {
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
      return createEnvelope(MessageReceivedV1, data, { accountId: stream.accountId, source: 'dispatch' });
    };
    // the usual message: the row and its event in the next group commit (one statement for every message arriving
    // meanwhile); a keyword also changes the opt-outs, in a transaction of its own
    let inserted: boolean;
    if (optChange && stream.hint) {
      // an opt keyword by the remembered keywords: its opt-out change is decided on what the tables hold now
      await this.store(m, address, await this.streamOf(m, address, true), direct);
      return;
    }
    if (!optChange) {
      const pending: PendingInbound = { values: messageParams, event: received(), inserted: false, hint: stream.hint };
      if (stream.hint) pending.redo = async () => this.store(m, address, await this.streamOf(m, address, true), true);
      if (direct) await this.insertGroup([pending]);
      else await this.writer.add(pending);
      if (pending.error !== undefined) throw pending.error;
      if (pending.stale) return; // stored afresh by its redo
      inserted = pending.inserted;
    } else {
      inserted = await this.ds.transaction(async (q) => {
        if ((await q.query<unknown[]>(insertMessage, messageParams)).length === 0) return false;
        await Outbox.add(q, DISPATCH_SCHEMA, [received(), await this.applyOptChange(q, optChange.data, optChange.optedOut)]);
        return true;
      });
    }
    if (!inserted) return;
    if (keep) this.media.kick();
    if (optChange) this.optOuts.set(optChange.data.accountId, optChange.data.sender, optChange.data.phone, optChange.optedOut);
    this.relay.kick();
  }

  private async insertGroup(items: PendingInbound[]): Promise<void> {
    const text = (v: unknown): string | null => (v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : String(v));
    const columns = INBOUND_TYPES.map((_, c) => items.map((i) => text(i.values[c])));
    const [ids, topics, keys, types, payloads] = Outbox.rowsParams(items.map((i) => i.event));
    const hints = [items.map((i) => i.hint?.channel ?? null), items.map((i) => i.hint?.address ?? null), items.map((i) => i.hint?.keywords ?? null)];
    // prepared once per connection (docs/decisions/0101): planning this statement cost PostgreSQL more than running it for a
    // group of a few messages, the usual group at a steady rate (the group is what arrived during the previous write)
    // the events' envelopes go as ONE jsonb array (element i is message i's), not a jsonb[] whose every element the driver
    // escapes quote by quote
    const rows = await preparedQuery<{ uuid: string; inserted: boolean }>(this.ds, 'dispatch_inbound_group', GROUP_INSERT_SQL, [...columns, items.map((i) => i.values[0]), ids, topics, keys, types, `[${payloads.join(',')}]`, ...hints]);
    const inserted = new Set<string>();
    const stale = new Set<string>();
    for (const r of rows) (r.inserted ? inserted : stale).add(r.uuid);
    for (const item of items) {
      const uuid = String(item.values[0]);
      item.inserted = inserted.has(uuid);
      item.stale = stale.has(uuid);
      // forgotten at once, so the messages that follow are looked up rather than checked against it again
      if (item.stale && item.hint) this.forget(item.hint);
    }
  }

  private forget(hint: TargetHint): void {
    const key = targetKey(hint.channel, hint.address);
    if (this.hints.get(key) === hint) this.hints.delete(key);
  }

  private async applyOptChange(q: EntityManager, d: OptOutData, optedOut: boolean): Promise<OutgoingEvent> {
    if (optedOut) {
      await q.query(
        `INSERT INTO dispatch.opt_out (account_id, sender, phone, keyword, stream_id, opted_out_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (account_id, phone, sender) DO UPDATE SET keyword = EXCLUDED.keyword, stream_id = EXCLUDED.stream_id, opted_out_at = EXCLUDED.opted_out_at`,
        [d.accountId, d.sender, d.phone, d.keyword, d.streamId, d.at],
      );
      return createEnvelope(InboundOptedOutV1, d, { accountId: d.accountId, source: 'dispatch' });
    }
    // START lifts the opt-out from this sender and an account-wide one (STOPALL): the contact asks to hear from us again.
    await q.query(`DELETE FROM dispatch.opt_out WHERE account_id = $1 AND phone = $2 AND sender = ANY($3::text[])`, [d.accountId, d.phone, [d.sender, ALL_SENDERS]]);
    return createEnvelope(InboundOptedInV1, d, { accountId: d.accountId, source: 'dispatch' });
  }

  /** The keyword sets of an account's opt keywords, built once per answer of a lookup (a hint's keywords: every message). */
  private readonly keywordSetsOf = new WeakMap<OptKeywords, { optOut: Set<string>; optIn: Set<string> }>();

  private keywordSets(own: OptKeywords): { optOut: Set<string>; optIn: Set<string> } {
    const known = this.keywordSetsOf.get(own);
    if (known) return known;
    const sets = this.buildKeywordSets(own);
    this.keywordSetsOf.set(own, sets);
    return sets;
  }

  private buildKeywordSets(own: OptKeywords): { optOut: Set<string>; optIn: Set<string> } {
    const optOut = new Set<string>([...DEFAULT_OPT_OUT_KEYWORDS, ...(own.optOut ?? []).map(keywordOf)].filter(Boolean));
    const optIn = new Set<string>([...DEFAULT_OPT_IN_KEYWORDS, ...(own.optIn ?? []).map(keywordOf)].filter(Boolean));
    return { optOut, optIn };
  }

  /** Kept aside for the super administrator (`GET /api/dispatch/inbound_unclaimed`), once per provider message id. */
  private async hold(m: ProviderInbound, address: string, reason: HeldReason): Promise<void> {
    this.log.warn(`inbound ${m.channel} message to ${address} kept aside: ${reason === 'unclaimed' ? 'no account owns the address' : 'its owner has no stream for it'}`);
    await this.ds.query(
      `INSERT INTO dispatch.inbound_unclaimed (channel, vendor_id, address, account_phone, contact_phone, contact_name, message_type, body, media, provider_message_id, reason, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (channel, account_phone, provider_message_id) DO NOTHING`,
      [m.channel, m.vendorId, address, m.accountPhone, m.contactPhone, m.contactName, m.messageType, m.body, m.media ? JSON.stringify(m.media) : null, m.providerMessageId, reason, m.receivedAt],
    );
  }

  /**
   * The stream that receives: a webhook that names its stream (Telegram: the URL carries the stream uid and its own
   * secret) is that stream's; otherwise the owner of the address decides, and only the owner's streams are candidates.
   */
  /**
   * Our address as claims spell it, and the contact's number in E.164 where the SMPP type of number says it is
   * international (1) or national (2, read in the vendor's `moRegion`). A national number with no region to read it
   * in matches no claim (held aside), never a guess at an international one.
   */
  private addressed(m: ProviderInbound): { message: ProviderInbound; address: string } {
    const channel = m.channel === 'whatsapp' ? 'whatsapp' : m.channel === 'telegram' ? 'telegram' : 'sms';
    if (channel !== 'sms' || (m.accountPhoneTon !== 1 && m.accountPhoneTon !== 2 && m.contactPhoneTon !== 2)) {
      return { message: m, address: inboundAddress(channel, m.accountPhone) ?? m.accountPhone };
    }
    const region = m.vendorId ? (this.routing.vendor(m.vendorId)?.config as { moRegion?: unknown } | undefined)?.moRegion : undefined;
    const national = (digits: string): string | null => {
      if (typeof region !== 'string' || !/^[A-Za-z]{2}$/.test(region)) return null;
      const p = parsePhoneNumberFromString(digits, region.toUpperCase() as CountryCode);
      return p?.isValid() ? p.number : null;
    };
    const ours = m.accountPhone.replace(/^\+/, '');
    const address =
      m.accountPhoneTon === 2 ? (national(ours) ?? `national:${ours}`) : m.accountPhoneTon === 1 ? (inboundAddress('sms', `+${ours}`) ?? ours) : (inboundAddress('sms', m.accountPhone) ?? m.accountPhone);
    const contact = m.contactPhoneTon === 2 ? national(m.contactPhone.replace(/^\+/, '')) : null;
    return { message: contact ? { ...m, contactPhone: contact } : m, address };
  }

  private async streamOf(m: ProviderInbound, address: string, fresh = false): Promise<InboundStream | { held: HeldReason; address: string }> {
    const channel = m.channel === 'whatsapp' ? 'whatsapp' : m.channel === 'telegram' ? 'telegram' : 'sms';
    const lookup: PendingLookup = { uid: m.streamUid ?? undefined, channel, address, fresh };
    await this.lookups.add(lookup);
    if (lookup.error !== undefined) throw lookup.error;
    if (m.streamUid) return lookup.byUid ?? { held: 'no_stream', address: m.accountPhone };
    if (lookup.hint) return { ...lookup.hint.stream, hint: lookup.hint };
    const target = lookup.target;
    if (!target) return { held: 'unclaimed', address };
    const { owner, stream: named, optKeywords } = target;
    if (named) return { ...named, optKeywords };
    const spellings = [...new Set([m.accountPhone, address, address.replace(/^\+/, ''), `+${address.replace(/^\+/, '')}`])];
    const s = await this.readModels.streamChannelBySender(owner.accountId, m.channel, spellings);
    if (s) return { accountId: owner.accountId, streamId: String(s.streamId), streamUid: s.streamUid, streamType: s.streamType, optKeywords };
    const last = await this.readModels.lastOutboundTo(owner.accountId, m.channel, spellings, m.contactPhone);
    return last ? { ...last, optKeywords } : { held: 'no_stream', address };
  }

  /**
   * At most two statements for a batch of lookups: the distinct stream uids, the distinct addresses. An address whose
   * owner named a stream at its last lookup is answered from that hint, unread (the write checks it); none at all when
   * every address of the batch has one.
   */
  private async lookUp(items: PendingLookup[]): Promise<void> {
    const byUid = items.filter((i) => i.uid !== undefined);
    const byAddress: PendingLookup[] = [];
    for (const i of items) {
      if (i.uid !== undefined) continue;
      const hint = i.fresh ? undefined : this.hints.get(targetKey(i.channel, i.address));
      if (hint) i.hint = hint;
      else byAddress.push(i);
    }
    const [streams, targets] = await Promise.all([
      byUid.length > 0 ? this.readModels.inboundStreamsByUid([...new Set(byUid.map((i) => i.uid as string))]) : null,
      byAddress.length > 0 ? this.readModels.inboundTargets([...new Map(byAddress.map((i) => [targetKey(i.channel, i.address), i])).values()]) : null,
    ]);
    for (const i of byUid) i.byUid = streams?.get(i.uid as string) ?? null;
    for (const i of byAddress) {
      const key = targetKey(i.channel, i.address);
      const target = targets?.get(key) ?? null;
      i.target = target;
      if (!target?.stream) {
        this.hints.delete(key);
        continue;
      }
      if (this.hints.size >= MAX_HINTS && !this.hints.has(key)) this.hints.clear();
      const optKeywords = target.optKeywords;
      this.hints.set(key, { channel: i.channel, address: i.address, stream: { ...target.stream, optKeywords }, keywords: JSON.stringify(optKeywords) });
    }
  }
}
