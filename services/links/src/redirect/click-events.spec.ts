import type { OutgoingEvent } from '@switchboard/platform';
import { clickGroupBytes, unpackClickGroup, unpackClickGroupV2 } from './click-events';
import type { ClickGroupRow, ClickGroupRowV2, CompactClick, CompactClickV2 } from './click-recorder';

/** A click of a `$links.click-group` row as a `$links.click-group.2` row holds it (the agent second, no first flag). */
const v2 = (c: CompactClick): CompactClickV2 => [c[0], c[15], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[13], c[14], c[16]];

/** The first clicks' positions among a row's clicks. */
const firstsOf = (row: ClickGroupRow) => row.events.flatMap((e) => e.clicks).flatMap((c, i) => (c[12] ? [i] : []));

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
        // the same clicks as the redirect writes them since 0165
        const textV2 = JSON.stringify([{ occurredAt: at, agents, events: row[0].events.map((e) => ({ ...e, clicks: e.clicks.map(v2) })), firsts: firstsOf(row[0]) }]);
        const eventsV2 = unpackClickGroupV2(JSON.parse(textV2) as OutgoingEvent[]);
        expect(eventsV2).toEqual(events);
        expect(serialised(eventsV2)).toBeLessThanOrEqual(clickGroupBytes(Buffer.byteLength(textV2), eventsV2));
      }
  });
});

describe('unpackClickGroupV2', () => {
  it('expands a row made by the redirect into the same events, in the same order, as the row of values the statement made before (0159)', () => {
    const at = '2026-11-28T05:00:00.000Z';
    const id = (i: number) => `0190a000-0000-7000-8000-${String(i).padStart(12, '0')}`;
    // two accounts, their clicks interleaved; first and repeat clicks; with and without an agent, address and ids
    const click = (i: number, first: boolean): CompactClick => [
      id(i), String(10 + (i % 2)), `Code${i}xx`, `https://go.example/Code${i}xx`, `https://shop.example/p?i=${i}&q="ü\\`, i % 3 ? '7' : null, '55', i % 2 ? '3' : null,
      null, String(100 + i), i % 4 ? id(100 + i) : null, i % 4 ? `+4915100000${i}` : null, first, i % 6, i % 5 ? '10.0.0.1' : null, i % 3, at,
    ];
    const row: ClickGroupRow = {
      occurredAt: at,
      agents: ['Mozilla/5.0 "x"', 'curl/8'],
      events: [
        { id: id(900), accountId: '1', clicks: [click(0, true), click(2, false), click(4, true)] },
        { id: id(901), accountId: '2', clicks: [click(1, true), click(3, true), click(5, false)] },
      ],
    };
    const before = unpackClickGroup(JSON.parse(JSON.stringify([row])) as OutgoingEvent[]);
    const rowV2: ClickGroupRowV2 = { occurredAt: at, agents: row.agents, events: row.events.map((e) => ({ ...e, clicks: e.clicks.map(v2) })), firsts: [4, 0, 3, 2] };
    const after = unpackClickGroupV2(JSON.parse(JSON.stringify([rowV2])) as OutgoingEvent[]);
    expect(before).toHaveLength(2 + 4);
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
  });
});
