import { setFlagsFromString } from 'node:v8';
import type { EventEnvelope } from '@switchboard/contracts';
import { relayEvent } from './outbox-relay';

// V8's own answer to "do these objects have one hidden class" (the flag only lets this file's function parse it)
setFlagsFromString('--allow-natives-syntax');
// %HaveSameMap is V8 syntax TypeScript cannot parse: compiled at run time
const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;

describe('relayEvent (an outbox row published with its topic)', () => {
  const row = (i: number): EventEnvelope =>
    JSON.parse(
      JSON.stringify({
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        type: 'message.accepted',
        version: 1,
        key: `k${i}`,
        accountId: '1',
        source: 'streams',
        occurredAt: '2030-01-01T00:00:00.000Z',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        data: { messageUuid: `m${i}`, segments: 1 },
      }),
    ) as EventEnvelope;

  it('is the row with its topic, the topic winning', () => {
    const payload = row(1);
    const event = relayEvent({ ...payload, topic: 'stale' } as EventEnvelope, 'streams');
    expect(event).toEqual({ ...payload, topic: 'streams' });
    expect(payload).not.toHaveProperty('topic');
  });

  it('gives every event of a pass one hidden class, not one per event', () => {
    const events = Array.from({ length: 200 }, (_, i) => relayEvent(row(i), 'streams'));
    expect(sameShape(events[0], events[1])).toBe(true);
    expect(sameShape(events[100], events[199])).toBe(true);
  });
});
