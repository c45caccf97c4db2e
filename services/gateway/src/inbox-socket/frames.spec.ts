import { jsonOnce } from '@switchboard/platform';
import { eventFrame, masked } from './inbox-socket.service';

const event = () => ({
  room: 'team:7',
  seq: 42,
  event: 'incoming_message',
  payload: {
    conversation: { uuid: 'c1', contact_phone_number: '+491760000001', unread: 2 },
    message: { event_type: 'incoming_message', source: '+491760000001', content: { body: 'he said "hi" <script>' } },
  },
  at: '2026-11-27T05:00:00.000Z',
});

describe('inbox websocket frames', () => {
  it('serialises a room event once for all the sockets of its room, masked once for those without INBOX_SHOW_PHONE', () => {
    const e = event();
    const before = JSON.stringify(e);
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      // ten sockets that see numbers, ten that do not
      const plain = Array.from({ length: 10 }, () => eventFrame('team:7', e, true).toString());
      const hidden = Array.from({ length: 10 }, () => eventFrame('team:7', e, false).toString());
      // the payload serialised once per variant (the frame's scalar fields cost nothing alike)
      expect(stringify.mock.calls.filter(([v]) => typeof v === 'object' && v !== null)).toHaveLength(2);
      expect(new Set(plain).size).toBe(1);
      expect(new Set(hidden).size).toBe(1);
      stringify.mockRestore();
      // byte for byte what serialising the frame object gives
      expect(plain[0]).toBe(JSON.stringify({ type: 'event', ...e }));
      const m = JSON.parse(hidden[0]);
      expect(m.payload.conversation.contact_phone_number).toBe('+4917******01');
      expect(m.payload.message.source).toBe('+4917******01');
      expect(m.payload.message.content.body).toBe('he said "hi" <script>');
      expect({ ...m, payload: undefined }).toEqual({ type: 'event', ...e, payload: undefined });
    } finally {
      stringify.mockRestore();
    }
    // the shared payload itself is left as it was for the sockets that see numbers
    expect(JSON.stringify(e)).toBe(before);
  });

  it("takes the payload's text the room log made (embedded mode), serialising it no more", () => {
    const e = event();
    const text = jsonOnce(e.payload);
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      const frame = eventFrame('team:7', e, true).toString();
      expect(stringify.mock.calls.filter(([v]) => typeof v === 'object' && v !== null)).toHaveLength(0);
      expect(frame).toContain(`"payload":${text}`);
    } finally {
      stringify.mockRestore();
    }
    expect(eventFrame('team:7', e, true).toString()).toBe(JSON.stringify({ type: 'event', ...e }));
    // an event without a payload still makes a valid frame (the key left out, as JSON.stringify does)
    expect(JSON.parse(eventFrame('team:7', { ...e, payload: undefined }, true).toString())).toEqual({ type: 'event', room: 'team:7', seq: 42, event: 'incoming_message', at: e.at });
  });

  it('masks only the contact number fields, of incoming sources and outgoing destinations', () => {
    expect(masked(null)).toBeNull();
    expect(masked(undefined)).toBeNull();
    expect(masked({ space_id: 3, totals: { all: 1 } })).toEqual({ space_id: 3, totals: { all: 1 } });
    expect(masked({ event: { event_type: 'outgoing_message', destination: '+491760000001', source: '+4930111111' } })).toEqual({
      event: { event_type: 'outgoing_message', destination: '+4917******01', source: '+4930111111' },
    });
    expect(masked({ message: { event_type: 'internal_note', source: '+491760000001' } })).toEqual({ message: { event_type: 'internal_note', source: '+491760000001' } });
  });
});
