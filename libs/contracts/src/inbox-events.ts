import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * What a closed conversation's event carries of its timeline (decision 0065): its last messages with text, each cut
 * to this many characters. Enough for a transcript summary in the CRM, bounded so an event stays small.
 */
export const INBOX_CLOSE_TRANSCRIPT = { messages: 10, messageChars: 500 } as const;

const iso = z.string().datetime({ offset: true });

export const InboxConversationClosed = z.object({
  accountId: z.string().regex(/^\d+$/),
  conversationUuid: z.string().uuid(),
  /** The contact's number (or chat id) as the conversation holds it. */
  contactPhone: z.string().min(1).max(64),
  contactName: z.string().max(255).nullable(),
  /** sms, whatsapp, telegram, telegram_private. */
  channel: z.string().min(1).max(32),
  /** The agent who closed it (an API key closing it has no user: both null). */
  closedBy: z.object({ userId: z.string().regex(/^\d+$/).nullable(), name: z.string().max(255).nullable() }),
  closedAt: iso,
  /** Oldest first; only messages with text; no media, no internal notes, no credentials. */
  lastMessages: z
    .array(z.object({ from: z.enum(['contact', 'agent']), text: z.string().max(INBOX_CLOSE_TRANSCRIPT.messageChars), at: iso }))
    .max(INBOX_CLOSE_TRANSCRIPT.messages),
});
export type InboxConversationClosed = z.infer<typeof InboxConversationClosed>;

/**
 * An agent closed (resolved) an inbox conversation: published through the inbox's outbox in the transaction that
 * closed it, keyed by the conversation. The integrations service writes a note on the CRM contacts of that number
 * (decision 0065).
 */
export const InboxConversationClosedV1 = defineEvent({
  type: 'inbox.conversation.closed',
  version: 1,
  topic: Topics.Inbox,
  key: (d) => d.conversationUuid,
  schema: InboxConversationClosed,
});
