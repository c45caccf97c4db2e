import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import { InboxConversationClosedV1, IntegrationStatus, Topics, type EventEnvelope, type InboxConversationClosed } from '@switchboard/contracts';
import { claimEvent, EventBus, PROCESS_ROLES, TransientError, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { VendorAddressRefused, VendorRateLimited, VendorUnavailable } from '../connectors/http';
import { connectorOf } from '../connectors/registry';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_SCHEMA } from '../integrations.options';
import type { IntegrationRow } from './credentials';
import { NotesService } from './notes.service';

export const CLOSE_NOTES_GROUP = 'integrations.close-notes';

/** The note's length bound (the notes route takes as much). */
export const CLOSE_NOTE_MAX_CHARS = 4000;
/** At most this many CRM contacts of one integration share the number and get the note (as the notes route). */
const MAX_CONTACTS = 20;
/** Statuses whose credentials work (as the notes route's `usable`). */
const USABLE = [IntegrationStatus.Authorised, IntegrationStatus.Syncing, IntegrationStatus.Active, IntegrationStatus.Paused];

const CHANNELS: Record<string, string> = { sms: 'SMS', whatsapp: 'WhatsApp', telegram: 'Telegram', telegram_private: 'Telegram' };

const minute = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/**
 * The note a closed conversation leaves on its CRM contact: who closed it, when, the channel and number, and its
 * last messages, oldest first, cut to CLOSE_NOTE_MAX_CHARS (the oldest lines go first when it is too long).
 */
export function closeNoteText(d: InboxConversationClosed): string {
  const who = d.closedBy.name?.trim() || (d.closedBy.userId ? `agent #${d.closedBy.userId}` : 'an API client');
  const head = `Inbox conversation closed by ${who} on ${minute(d.closedAt)} (${CHANNELS[d.channel] ?? d.channel}, ${d.contactPhone}).`;
  const lines = d.lastMessages.map((m) => `${minute(m.at)} ${m.from === 'contact' ? 'Contact' : 'Agent'}: ${m.text.replace(/\s+/g, ' ').trim()}`);
  if (!lines.length) return head.slice(0, CLOSE_NOTE_MAX_CHARS);
  let body = lines;
  const text = () => `${head}\nLast messages:\n${body.join('\n')}`;
  while (body.length > 1 && text().length > CLOSE_NOTE_MAX_CHARS) body = body.slice(1);
  return text().slice(0, CLOSE_NOTE_MAX_CHARS);
}

/**
 * `inbox.conversation.closed` -> a note on the CRM contact (decision 0065): for every integration of the event's
 * account that takes notes, has `note_on_close` on (the default) and usable credentials, and whose own sync mirrored a
 * contact with the conversation's number, each such contact (at most 20 an integration) gets the note through the
 * notes route's code (each vendor's documented note call).
 *
 * - Per account: the envelope's account must be the data's, and only that account's integrations and mirror rows are
 *   looked at; an event naming another account writes nothing.
 * - Once: the event is claimed in processed_events when every note is written; until then each note the vendor took is
 *   recorded (close_note), so a retried delivery writes only the missing ones. A session advisory lock on the event id
 *   keeps two deliveries of one event from writing at the same time.
 * - Outages (the vendor unreachable or 5xx, its rate limit, PostgreSQL away) throw a TransientError or a connection
 *   error: the bus pauses and retries the same event, never a dead letter. A note the vendor refuses (4xx, refused
 *   credentials, a refused address) fails by itself: the other notes are written, then the event fails and is
 *   dead-lettered after the bus's few retries (replayed, it writes only the notes still missing).
 */
@Injectable()
export class CloseNotesConsumer implements OnModuleInit {
  private readonly logger = new Logger('integrations.close-notes');

  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly notes: NotesService,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: CLOSE_NOTES_GROUP, topics: [Topics.Inbox], types: [InboxConversationClosedV1.type], handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    const d = InboxConversationClosedV1.schema.parse(e.data);
    // the inbox names its own tenant: an event whose data names another account than its envelope is not acted on
    if (e.accountId !== d.accountId) {
      this.logger.warn(`closed conversation ${d.conversationUuid} of account ${d.accountId} in an envelope of ${String(e.accountId)}: ignored`);
      return;
    }
    const digits = d.contactPhone.replace(/\D/g, '');
    // a Telegram bot's chat id is no phone number: nothing in a CRM has it
    if (d.channel === 'telegram' || digits.length < 6) return;

    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.query(`SELECT pg_advisory_lock(hashtextextended($1, 0))`, [`${CLOSE_NOTES_GROUP}:${e.id}`]);
      try {
        await this.notesFor(qr, e, d, digits);
      } finally {
        await qr.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [`${CLOSE_NOTES_GROUP}:${e.id}`]).catch(() => undefined);
      }
    } finally {
      await qr.release();
    }
  }

  private async notesFor(qr: QueryRunner, e: EventEnvelope, d: InboxConversationClosed, digits: string): Promise<void> {
    const [done] = (await qr.query(`SELECT 1 FROM integrations.processed_events WHERE consumer = $1 AND event_id = $2`, [CLOSE_NOTES_GROUP, e.id])) as unknown[];
    if (done) return;
    const integrations = (await qr.query(
      `SELECT * FROM integrations.integration
       WHERE account_id = $1 AND status = ANY($2) AND COALESCE(config->>'note_on_close', 'true') <> 'false' ORDER BY id`,
      [d.accountId, USABLE],
    )) as IntegrationRow[];
    const text = closeNoteText(d);
    const refused: string[] = [];
    for (const row of integrations) {
      if (!connectorOf(row.type)?.activity) continue;
      const contacts = (await qr.query(
        `SELECT c.external_id FROM integrations.crm_contact c
         WHERE c.integration_id = $1 AND c.account_id = $2 AND regexp_replace(c.phone, '[^0-9]', '', 'g') = $3
           AND NOT EXISTS (SELECT 1 FROM integrations.close_note n WHERE n.event_id = $4 AND n.integration_id = c.integration_id AND n.external_id = c.external_id)
         ORDER BY c.external_id LIMIT ${MAX_CONTACTS}`,
        [row.id, d.accountId, digits, e.id],
      )) as Array<{ external_id: string }>;
      for (const c of contacts) {
        try {
          await this.notes.write(row, c.external_id, text, d.closedAt);
        } catch (err) {
          if (err instanceof VendorAddressRefused || !(err instanceof VendorUnavailable || err instanceof VendorRateLimited)) {
            // refused by the vendor (or a bug): this note fails by itself; the others are still written
            refused.push(`${row.type} ${row.key} contact ${c.external_id}: ${(err as Error).message}`);
            continue;
          }
          throw new TransientError(`the note on ${row.type} contact ${c.external_id} (integration ${row.key}) waits: ${(err as Error).message}`, { cause: err });
        }
        await qr.query(
          `INSERT INTO integrations.close_note (event_id, integration_id, external_id, account_id, sent_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          [e.id, row.id, c.external_id, d.accountId, this.clock.now()],
        );
      }
    }
    if (refused.length) throw new Error(`closed conversation ${d.conversationUuid}: ${refused.length} note(s) refused: ${refused.join('; ')}`);
    await qr.startTransaction();
    try {
      await claimEvent(qr.manager, INTEGRATIONS_SCHEMA, CLOSE_NOTES_GROUP, e.id);
      await qr.query(`DELETE FROM integrations.close_note WHERE event_id = $1`, [e.id]);
      await qr.commitTransaction();
    } catch (err) {
      await qr.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  }
}
