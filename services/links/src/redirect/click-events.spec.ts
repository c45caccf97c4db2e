import type { OutgoingEvent } from '@switchboard/platform';
import { clickGroupBytes, unpackClickGroup } from './click-events';
import type { ClickGroupRow, CompactClick } from './click-recorder';

/** What the relay's publish sizes must not be below: each event serialised (the bus sends it without its topic). */
const serialised = (events: OutgoingEvent[]) => events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);

describe('clickGroupBytes', () => {
  it('bounds what a click group row expands to, for the smallest values, the largest ids and agents of control characters', () => {
    const big = '9223372036854775807';
    const at = '2026-11-28T02:00:00.000Z';
    const uuid = '00000000-0000-4000-8000-000000000000';
    const agents = ['\u0001'.repeat(512), 'a', '"\\'.repeat(256)];
    // all-null, shortest clicks (a first click needs its message uuid) and the longest ids, in one group of two accounts
    const small = (first: boolean, agent: number): CompactClick => [uuid, '1', 'AAAAAAA', '"', '', null, null, null, null, null, first ? uuid : null, null, first, 0, null, agent, at];
    const large = (first: boolean, agent: number): CompactClick => [uuid, big, 'zzzzzzz', 'https://a/zzzzzzz', 'https://a/', big, big, big, big, big, uuid, '+4915100000000', first, 5, '::1', agent, at];
    for (const first of [true, false])
      for (const agent of [0, 1, 2, 3]) {
        const row: ClickGroupRow[] = [
          {
            occurredAt: at,
            agents,
            events: [
              { id: uuid, accountId: big, clicks: Array.from({ length: 50 }, (_, i) => (i % 2 ? small(first, agent) : large(first, agent))) },
              { id: uuid, accountId: '1', clicks: [small(first, agent)] },
            ],
          },
        ];
        const text = JSON.stringify(row);
        const events = unpackClickGroup(JSON.parse(text) as OutgoingEvent[]);
        expect(events).toHaveLength(first ? 2 + 51 : 2);
        expect(serialised(events)).toBeLessThanOrEqual(clickGroupBytes(Buffer.byteLength(text), events));
      }
  });
});
