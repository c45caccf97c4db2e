import type { InboxConversationClosed } from '@switchboard/contracts';
import { CLOSE_NOTE_MAX_CHARS, closeNoteText } from './close-notes.consumer';

const closed = (o: Partial<InboxConversationClosed> = {}): InboxConversationClosed => ({
  accountId: '1',
  conversationUuid: '7d7d3f4e-3c55-4b61-9a63-0c2f1f6b5b10',
  contactPhone: '+447922000004',
  contactName: null,
  channel: 'whatsapp',
  closedBy: { userId: '12', name: 'Ann Agent' },
  closedAt: '2026-11-26T08:10:42.123Z',
  lastMessages: [
    { from: 'contact', text: 'Where is\nmy parcel?', at: '2026-11-26T08:01:00.000Z' },
    { from: 'agent', text: 'It left today.', at: '2026-11-26T08:02:30.000Z' },
  ],
  ...o,
});

describe('the note a closed conversation leaves in the CRM', () => {
  it('says who closed it, when, on which channel and number, and the last messages oldest first on one line each', () => {
    expect(closeNoteText(closed())).toBe(
      'Inbox conversation closed by Ann Agent on 2026-11-26 08:10 UTC (WhatsApp, +447922000004).\nLast messages:\n2026-11-26 08:01 UTC Contact: Where is my parcel?\n2026-11-26 08:02 UTC Agent: It left today.',
    );
  });

  it('names an agent without a name by id, and a close without a user as an API client', () => {
    expect(closeNoteText(closed({ closedBy: { userId: '12', name: null }, lastMessages: [] }))).toBe('Inbox conversation closed by agent #12 on 2026-11-26 08:10 UTC (WhatsApp, +447922000004).');
    expect(closeNoteText(closed({ closedBy: { userId: null, name: null }, lastMessages: [] }))).toMatch(/closed by an API client on/);
  });

  it('stays within the notes route\'s 4,000 characters by leaving out the oldest messages', () => {
    const lastMessages = Array.from({ length: 10 }, (_, i) => ({ from: 'contact' as const, text: `${i}`.repeat(500), at: '2026-11-26T08:01:00.000Z' }));
    const text = closeNoteText(closed({ lastMessages }));
    expect(text.length).toBeLessThanOrEqual(CLOSE_NOTE_MAX_CHARS);
    expect(text).toContain('9'.repeat(500));
    expect(text).not.toContain('0'.repeat(500));
  });
});
