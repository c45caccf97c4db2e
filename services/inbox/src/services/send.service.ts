import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';
import {
  Channel,
  INBOX_REPLY_BLOCKED,
  InboxSendRequestedV1,
  InboxWsEvent,
  Permission,
  ReplyBlock,
  SendResultCode,
  StreamType,
  WHATSAPP_REPLY_WINDOW_MS,
  type ReplyBlockValue,
  type SendResult,
} from '@switchboard/contracts';
import { AppError, timeOrderedUuid } from '@switchboard/platform';
import { InboxUnitOfWork } from './outbox';
import { Clock } from '../clock';
import { parse, refId, rowsOf } from '../http/input';
import { INBOX_CONNECTION, INBOX_OPTIONS, type ResolvedInboxOptions } from '../inbox.options';
import { actorOf, InboxAccess, requirePerm, type Actor } from './access';
import { ConversationsService, normalisePhone } from './conversations.service';
import { RoomEvents } from './rooms.service';
import { SendWaiters } from './send-waiters';
import { CONVERSATION_COLUMNS, conversationRooms, conversationView, EVENT_COLUMNS, eventView } from './views';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field

export { InboxOutboxRelay, InboxUnitOfWork } from './outbox';

const Message = z.object({ text: z.string().max(4096).optional(), media_id: z.string().uuid().nullable().optional() }).strict();
const SimpleSend = z.object({ messages: z.array(Message).min(1).max(1), sender_profile: z.union([z.string(), z.number()]).optional() }).strict();
const TemplateSend = z
  .object({
    streamUid: z.string().optional(),
    phone: z.string().trim().min(3).max(64),
    sender: z.string().max(64).nullable().optional(),
    template: z.union([z.string().min(1).max(512), z.object({ name: z.string().min(1).max(512), language: z.string().max(16).nullable().optional() }).strict()]).nullable().optional(),
    placeholders: z.record(z.unknown()).optional(),
    text: z.string().max(4096).optional(),
    convInfo: z.object({ agent: z.union([z.string(), z.number()]).nullable().optional(), team: z.union([z.string(), z.number()]).nullable().optional(), space: z.union([z.string(), z.number()]).nullable().optional() }).strict().optional(),
  })
  .strict();

const isWhatsApp = (streamType: number) => streamType === StreamType.WhatsApp;

/**
 * Spec 4's reply blocks, enforced here and not only in the console: no stream (deleted, disabled, not sending), and on
 * WhatsApp a temporary conversation (started by an agent, its first message not accepted by streams yet:
 * tempConversation), outgoing messages but no incoming (awaitingReply), or more than 24 hours since the contact's
 * last message (passed24Hours).
 */
export function replyBlock(conv: Row, stream: Row | undefined, now: Date): ReplyBlockValue | null {
  if (!stream || stream.deleted || !stream.enable_sending) return ReplyBlock.NoStream;
  if (!isWhatsApp(Number(conv.stream_type))) return null;
  if (conv.temp) return ReplyBlock.TempConversation;
  if (!conv.last_incoming_at) return conv.last_outgoing_at ? ReplyBlock.AwaitingReply : ReplyBlock.Passed24Hours;
  const from = new Date(conv.last_incoming_at).getTime();
  return now.getTime() - from > WHATSAPP_REPLY_WINDOW_MS ? ReplyBlock.Passed24Hours : null;
}

const BLOCK_MESSAGES: Record<ReplyBlockValue, string> = {
  noConversation: 'no conversation to reply to',
  noStream: 'the conversation has no stream that can send',
  tempConversation: 'the conversation was just started and its first message is not accepted yet',
  awaitingReply: 'waiting for the contact to reply on WhatsApp before a free-form message',
  passed24Hours: 'more than 24 hours since the contact wrote on WhatsApp: send a template',
};

/**
 * Replies and new conversations through streams (one charging path): the message is written to the timeline as
 * `sending` with `inbox.send_batch.requested` in the same transaction; streams' answer (`streams.send_batch.processed`)
 * makes it OK or SENT_FAILED, dispatch's statuses move it on. The request waits for streams' answer for a while.
 */
@Injectable()
export class SendService {
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    @Inject(INBOX_OPTIONS) private readonly options: ResolvedInboxOptions,
    private readonly uow: InboxUnitOfWork,
    private readonly access: InboxAccess,
    private readonly conversations: ConversationsService,
    private readonly rooms: RoomEvents,
    private readonly waiters: SendWaiters,
    private readonly clock: Clock,
  ) {}

  private agent(): Actor {
    const actor = actorOf();
    if (!actor.userId) throw new AppError(403, SendResultCode.NotAuthenticated, 'messages are sent by agents');
    return actor;
  }

  private async stream(accountId: string, streamId: string): Promise<Row | undefined> {
    const [s] = (await this.ds.query(`SELECT stream_id::text, stream_uid::text, stream_type, deleted, enable_sending, status FROM inbox.stream WHERE stream_id = $1 AND account_id = $2`, [streamId, accountId])) as Row[];
    return s;
  }

  private async profile(accountId: string, ref: string | number, spaceId: string | null): Promise<Row> {
    const [p] = (await this.ds.query(`SELECT id::text, stream_id::text, senders, space_id::text FROM inbox.sender_profile WHERE id = $1 AND account_id = $2`, [refId(ref) ?? '0', accountId])) as Row[];
    if (!p || (spaceId && p.space_id !== spaceId)) throw AppError.validation([{ propertyPath: 'sender_profile', message: 'no such sender profile in this space' }]);
    return p;
  }

  /** POST /inbox/simple_send/{uuid} and simple_send_sp/{uuid}: a reply in an existing conversation. */
  async reply(id: string, body: unknown, viaProfile: boolean): Promise<SendResult> {
    const actor = this.agent();
    const d = parse(SimpleSend, body);
    const msg = d.messages[0];
    if (!msg.text?.trim() && !msg.media_id) throw AppError.validation([{ propertyPath: 'messages.0.text', message: 'required' }]);
    let v;
    try {
      v = await this.conversations.visibleConversation(id, actor);
    } catch {
      throw blocked(ReplyBlock.NoConversation);
    }
    const conv = v.row;
    let sender: string | null = conv.channel === Channel.Sms || conv.channel === Channel.WhatsApp ? conv.account_phone : null;
    let streamId: string = conv.stream_id;
    if (viaProfile) {
      if (d.sender_profile === undefined) throw AppError.validation([{ propertyPath: 'sender_profile', message: 'required' }]);
      const p = await this.profile(actor.accountId, d.sender_profile, conv.space_id);
      requirePerm(v.scope, Permission.InboxSenderProfile);
      streamId = p.stream_id;
      sender = p.senders[0] ?? sender;
    }
    const stream = await this.stream(actor.accountId, streamId);
    const block = replyBlock(conv, stream, this.clock.now());
    if (block) throw blocked(block);
    const media = msg.media_id ? await this.media(actor.accountId, msg.media_id) : null;
    return this.send(actor, conv, stream as Row, { text: msg.text ?? '', sender, payload: media ? { media } : null, media, start: null });
  }

  private async media(accountId: string, id: string): Promise<Row> {
    const [m] = (await this.ds.query(`SELECT id::text, kind, mime, size::int, file_name FROM inbox.media WHERE id = $1 AND account_id = $2`, [id, accountId])) as Row[];
    if (!m) throw AppError.validation([{ propertyPath: 'messages.0.media_id', message: 'invalid media' }]);
    return { id: m.id, kind: m.kind, mime: m.mime, size: m.size, file_name: m.file_name, url: `/api/stream_media/${m.id}` };
  }

  /**
   * POST /inbox/template_send/{stream_uuid} (and template_send_sp/{sender_profile}): a new conversation, or a template
   * on an existing one (the way to reopen a WhatsApp conversation outside the 24 hours).
   */
  async start(ref: string, body: unknown, viaProfile: boolean): Promise<SendResult> {
    const actor = this.agent();
    const d = parse(TemplateSend, body);
    let streamRef = d.streamUid ?? ref;
    let sender = d.sender ?? null;
    const spaceRef = d.convInfo?.space !== undefined && d.convInfo.space !== null ? refId(d.convInfo.space) : null;
    if (!spaceRef) throw AppError.validation([{ propertyPath: 'convInfo.space', message: 'missing space' }], 'missing space');
    const scope = await this.access.scope(spaceRef, actor);
    requirePerm(scope, Permission.InboxNewConversation);
    if (viaProfile) {
      const p = await this.profile(actor.accountId, ref, scope.spaceId);
      requirePerm(scope, Permission.InboxSenderProfile);
      streamRef = p.stream_id;
      sender = sender ?? p.senders[0] ?? null;
    }
    const [stream] = (await this.ds.query(
      `SELECT stream_id::text, stream_uid::text, stream_type, deleted, enable_sending, status FROM inbox.stream WHERE account_id = $1 AND ${/^\d+$/.test(streamRef) ? 'stream_id = $2::bigint' : 'stream_uid::text = $2'}`,
      [actor.accountId, streamRef],
    )) as Row[];
    if (!stream) throw AppError.validation([{ propertyPath: 'streamUid', message: 'no such stream' }]);
    if (stream.deleted || !stream.enable_sending) throw blocked(ReplyBlock.NoStream);
    const type = Number(stream.stream_type);
    if (![StreamType.TwoWay, StreamType.WhatsApp, StreamType.TelegramBot, StreamType.TelegramPrivate].includes(type as 4)) {
      throw AppError.validation([{ propertyPath: 'streamUid', message: 'new conversations start on two-way, WhatsApp and Telegram streams' }]);
    }
    const templateName = typeof d.template === 'string' ? d.template : (d.template?.name ?? null);
    if (isWhatsApp(type) && !templateName) throw AppError.validation([{ propertyPath: 'template', message: 'required' }]);
    if (!isWhatsApp(type) && !d.text?.trim()) throw AppError.validation([{ propertyPath: 'text', message: 'required' }]);
    const team = d.convInfo?.team !== undefined && d.convInfo.team !== null ? refId(d.convInfo.team) : null;
    if (team && !(await this.ds.query(`SELECT 1 FROM inbox.team WHERE id = $1 AND space_id = $2`, [team, scope.spaceId])).length) throw AppError.validation([{ propertyPath: 'convInfo.team', message: 'invalid' }], 'invalid');
    const agent = d.convInfo?.agent !== undefined && d.convInfo.agent !== null ? refId(d.convInfo.agent) : actor.userId;
    const channel = type === StreamType.WhatsApp ? Channel.WhatsApp : type === StreamType.TelegramBot ? Channel.Telegram : type === StreamType.TelegramPrivate ? Channel.TelegramPrivate : Channel.Sms;
    const phone = channel === Channel.Sms || channel === Channel.WhatsApp ? normalisePhone(d.phone) : d.phone.trim();
    const now = this.clock.now();
    const template = templateName ? { name: templateName, language: typeof d.template === 'object' && d.template ? (d.template.language ?? null) : null, placeholders: d.placeholders ?? {} } : null;
    const [conv] = (await this.ds.query(
      `INSERT INTO inbox.conversation AS c (uuid, account_id, space_id, stream_id, stream_uid, stream_type, channel, account_phone, contact_phone, status, unread, temp, team_ids, agent_ids,
         start_time, start_conversation_at, last_updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'active', 0, $10, $11, $12, $13, $13, $13)
       ON CONFLICT (account_id, stream_id, contact_phone) DO UPDATE SET start_conversation_at = $13, last_updated = $13,
         team_ids = CASE WHEN cardinality($11::bigint[]) > 0 THEN $11::bigint[] ELSE c.team_ids END,
         agent_ids = CASE WHEN cardinality($12::bigint[]) > 0 THEN $12::bigint[] ELSE c.agent_ids END
       WHERE c.space_id = $3
       RETURNING ${CONVERSATION_COLUMNS}, (xmax = 0) AS created`,
      [timeOrderedUuid(), actor.accountId, scope.spaceId, stream.stream_id, stream.stream_uid, type, channel, sender ?? '', phone, true, team ? [team] : [], agent ? [agent] : [], now],
    )) as Row[];
    if (!conv) throw AppError.conflict('the contact has a conversation on this stream in another space');
    const payload = template ? { template } : null;
    return this.send(actor, conv, stream, { text: d.text ?? (template ? `[${template.name}]` : ''), sender, payload, media: null, start: template ? template.name : 'text', created: conv.created === true });
  }

  private async send(actor: Actor, conv: Row, stream: Row, m: { text: string; sender: string | null; payload: Record<string, unknown> | null; media: Row | null; start: string | null; created?: boolean }): Promise<SendResult> {
    const messageUuid = randomUUID();
    const batchId = `inbox-${messageUuid}`;
    const now = this.clock.now();
    const { updated, events } = await this.uow.run(async (tx: EntityManager, emit) => {
      const who = await this.who(tx, actor);
      const evs: Row[] = [];
      if (m.start) evs.push(await this.conversations.addEvent(tx, conv, { type: 'start_conversation', actor: who, data: { template_name: m.start }, at: now }));
      evs.push(
        await this.conversations.addEvent(tx, conv, {
          type: 'outgoing_message',
          actor: who,
          content: { body: m.text, ...(m.media ? { media: m.media } : {}), ...(m.payload?.template ? { template: m.payload.template } : {}) },
          body: m.text || null,
          messageUuid,
          sendStatus: 'sending',
          source: m.sender ?? conv.account_phone,
          destination: conv.contact_phone,
          messageType: m.payload?.template ? 'template' : m.media ? String(m.media.kind) : 'text',
          batchId,
          at: now,
        }),
      );
      const [u] = rowsOf(await tx.query(
        `UPDATE inbox.conversation c SET status = CASE WHEN $3 THEN c.status ELSE 'active' END, closed_by = NULL, closed_at = NULL, last_outgoing_at = $2, last_updated = $2,
           last_message = $4, last_message_type = $5, unread = 0 WHERE c.id = $1 RETURNING ${CONVERSATION_COLUMNS}`,
        [conv.id, now, false, m.text.slice(0, 500), m.payload?.template ? 'template' : 'text'],
      )) as Row[];
      emit(
        InboxSendRequestedV1,
        {
          batchId,
          accountId: actor.accountId,
          streamId: stream.stream_id,
          campaignId: null,
          items: [{ messageUuid, destination: conv.contact_phone, text: m.text, sender: m.sender, payload: m.payload, notBefore: null, ref: conv.uuid }],
        },
        actor.accountId,
      );
      return { updated: u, events: evs };
    });
    const rooms = conversationRooms(updated);
    const outgoing = events[events.length - 1];
    if (m.start) {
      await this.rooms.emit(actor.accountId, rooms, InboxWsEvent.StartConversation, { conversation: conversationView(updated, { showPhone: true, justAdded: m.created ?? false }), event: eventView(events[0], updated.uuid) });
    }
    await this.rooms.emit(actor.accountId, rooms, InboxWsEvent.DeliveryMessage, { conversation_uuid: updated.uuid, message: eventView(outgoing, updated.uuid) });
    if (conv.status !== 'active') await this.conversations.spaceStatistics(actor.accountId, updated.space_id);

    const outcome = await this.outcome(messageUuid, actor.accountId);
    const [ev] = (await this.ds.query(`SELECT ${EVENT_COLUMNS} FROM inbox.event e WHERE e.message_uuid = $1`, [messageUuid])) as Row[];
    const message = eventView(ev, updated.uuid);
    if (outcome?.outcome === 'not_authenticated') throw new AppError(403, SendResultCode.NotAuthenticated, `not authenticated: ${outcome.error ?? ''}`.trim());
    const code = outcome?.outcome === 'refused' ? SendResultCode.SentFailed : SendResultCode.Ok;
    return { code, conversation_uuid: updated.uuid, message_uuid: messageUuid, error: code === SendResultCode.SentFailed ? (outcome?.error ?? null) : null, message };
  }

  /** Streams' answer: in this process when it consumed it, otherwise from the database; null after the wait (still sending). */
  private async outcome(messageUuid: string, accountId: string): Promise<{ outcome: string; error: string | null } | null> {
    const deadline = Date.now() + this.options.sendWaitMs;
    const local = this.waiters.wait(messageUuid, this.options.sendWaitMs);
    for (;;) {
      const [r] = (await this.ds.query(`SELECT send_outcome, send_error FROM inbox.event WHERE message_uuid = $1 AND account_id = $2`, [messageUuid, accountId])) as Row[];
      if (r?.send_outcome) return { outcome: r.send_outcome, error: r.send_error };
      const left = deadline - Date.now();
      if (left <= 0) return null;
      const got = await Promise.race([local, new Promise<null>((res) => setTimeout(() => res(null), Math.min(250, left)).unref())]);
      if (got) return got;
    }
  }

  private async who(m: EntityManager, actor: Actor) {
    const [a] = (await m.query(`SELECT first_name, last_name FROM inbox.agent WHERE account_id = $1 AND user_id = $2`, [actor.accountId, actor.userId])) as Row[];
    return { type: 'agent' as const, id: Number(actor.userId), name: a ? `${a.first_name} ${a.last_name}`.trim() : null };
  }
}

/** 409 INBOX_REPLY_BLOCKED; the block is the violation's code (`passed24Hours`, ...). */
export function blocked(block: ReplyBlockValue): AppError {
  return new AppError(409, INBOX_REPLY_BLOCKED, `${block}: ${BLOCK_MESSAGES[block]}`, [{ propertyPath: 'conversation', message: BLOCK_MESSAGES[block], code: block }]);
}
