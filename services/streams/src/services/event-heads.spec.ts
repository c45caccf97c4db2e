import { MessageAcceptedV1, MessageChargedV1 } from '@switchboard/contracts';
import { acceptedMiddle, eventHead, headPieces, joinHeads, type AcceptedData, type HeadTrace } from './event-heads';

/**
 * docs/decisions/0167: the heads a send's events get from its group's shared pieces are the text `eventHead` writes
 * for the send, byte for byte, whatever the values hold (quotes, escapes, unicode, a trace or not).
 */
describe('shared event heads', () => {
  const at = '2026-11-28T05:30:00.123Z';
  const streams = [
    { id: '10', accountId: '1', streamUid: 'sms-one', streamType: 1 },
    { id: '11', accountId: '22', streamUid: 'quote " and \\ back', streamType: 4 },
    { id: '12', accountId: '333', streamUid: 'ünïcødé ✓ 😀', streamType: 2 },
  ];
  const traces: HeadTrace[] = [
    { traceId: null, traceparent: undefined },
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    { traceId: 'a "quoted" trace', traceparent: undefined },
  ];
  const middles: Array<Omit<AcceptedData, 'messageUuid' | 'accountId' | 'streamId' | 'streamUid' | 'streamType' | 'channel' | 'acceptedAt'>> = [
    { sender: 'SHOP', destination: '+4915112345678', iso2: 'DE', text: 'Hello', encoding: 'GSM7', segments: 1, payload: null, campaignId: '42', notBefore: null },
    { sender: '+15550001', destination: '+15551234567', iso2: null, text: 'line\nbreak "quoted" \\ tab\t ü 😀 \u0001', encoding: 'UCS2', segments: 3, payload: { template: { name: 'x', params: ['a', 1] } }, campaignId: null, notBefore: '2026-11-28T08:00:00.000Z' },
    { sender: '@chat', destination: '@someone', iso2: null, text: '', encoding: null, segments: 1, payload: null, campaignId: null, notBefore: null },
  ];

  it('joins to the heads eventHead writes, for every stream, trace and send', () => {
    let n = 0;
    for (const s of streams) {
      for (const trace of traces) {
        for (const m of middles) {
          const channel = s.streamType === 4 ? 'whatsapp' : 'sms';
          const pieces = headPieces(s, channel, at, trace);
          expect(pieces).not.toBeNull();
          const uuid = `0193b2a0-7c00-7${String(n).padStart(3, '0')}-8000-00000000000${n % 10}`;
          const aid = `5e0c6f0a-1111-5111-8111-${String(n).padStart(12, '0')}`;
          const cid = `0193b2a0-7c00-7fff-9000-${String(n).padStart(12, '0')}`;
          const data: AcceptedData = { messageUuid: uuid, accountId: s.accountId, streamId: s.id, streamUid: s.streamUid, streamType: s.streamType, channel, ...m, acceptedAt: at };
          const joined = joinHeads(pieces!, aid, cid, uuid, acceptedMiddle(m));
          expect(joined.accepted).toBe(eventHead(MessageAcceptedV1, aid, at, s.accountId, trace, data as never, 'priceMicros'));
          expect(joined.charged).toBe(eventHead(MessageChargedV1, cid, at, s.accountId, trace, { messageUuid: uuid, accountId: s.accountId }, 'amountMicros'));
          // and the completed event is the JSON the schema takes
          const accepted = JSON.parse(`${joined.accepted}50000,"currency":"EUR"}}`) as { data: unknown; key: string };
          expect(MessageAcceptedV1.schema.parse(accepted.data)).toEqual({ ...data, priceMicros: 50000, currency: 'EUR' });
          expect(accepted.key).toBe(uuid);
          n++;
        }
      }
    }
  });

  it('gives no shared pieces when a shared value holds a control character (each send keeps its own heads)', () => {
    expect(headPieces(streams[0], 'sms', at, { traceId: 'x\u0001u', traceparent: undefined })).toBeNull();
    expect(headPieces({ ...streams[0], streamUid: 'a\u0001ib' }, 'sms', at, traces[0])).toBeNull();
  });
});
