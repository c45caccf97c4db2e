/**
 * Links' relay unpacking one click group (decision 0159): `JSON.parse` and unpack of a `$links.clicks` row (the events'
 * text, 0110) against a `$links.click-group` row (the values) holding the same clicks, all first clicks or all repeats;
 * this process's CPU a click, interleaved rounds. Checks that both give the same events byte for byte.
 *
 *   node scripts/build.mjs --server-only && node dist/bench/links-click-unpack.js [clicks] [first|repeat]
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import type { OutgoingEvent } from '@switchboard/platform';
import type { ClickGroupRow, CompactClick } from '../services/links/src/redirect/click-recorder';
import { unpackClickEvents, unpackClickGroup } from '../services/links/src/redirect/click-events';

const N = Number(process.argv[2] ?? 1000);
const FIRST = process.argv[3] !== 'repeat';
const ROUNDS = 8;
const REPS = 200;
const AGENT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';

const clicks: CompactClick[] = Array.from({ length: N }, (_, i) => [randomUUID(), '12', 'Ab3xY9q', 'https://go.bench-shop.test/Ab3xY9q', `https://shop.example/p?c=C${i}&n=Zo%C3%AB`, null, '1', '1', null, String(i), randomUUID(), `+49151${String(i).padStart(8, '0')}`, FIRST, 2, '10.0.0.1', 1, new Date().toISOString()]);
const row: ClickGroupRow[] = [{ occurredAt: new Date().toISOString(), agents: [AGENT], events: [{ id: randomUUID(), accountId: '1', clicks }] }];
const newText = JSON.stringify(row);
const oldText = JSON.stringify(unpackClickGroup(JSON.parse(newText) as OutgoingEvent[]).filter((e) => e.type === 'links.clicks.recorded'));
const oldF = () => unpackClickEvents(JSON.parse(oldText) as OutgoingEvent[]);
const newF = () => unpackClickGroup(JSON.parse(newText) as OutgoingEvent[]);
const same = JSON.stringify(oldF()) === JSON.stringify(newF());
const time = (f: () => unknown) => {
  const t = process.cpuUsage();
  for (let i = 0; i < REPS; i++) f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / REPS / N;
};
for (let i = 0; i < 50; i++) {
  oldF();
  newF();
}
const o: number[] = [];
const n: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  if (r % 2) {
    n.push(time(newF));
    o.push(time(oldF));
  } else {
    o.push(time(oldF));
    n.push(time(newF));
  }
}
const med = (x: number[]) => [...x].sort((a, b) => a - b)[x.length >> 1].toFixed(2);
console.log(
  `${N} ${FIRST ? 'first' : 'repeat'} clicks: same events ${same}; text ${oldText.length} → ${newText.length} B; JSON.parse + unpack µs a click: $links.clicks ${med(o)} (${o.map((x) => x.toFixed(2)).join(' ')}), $links.click-group ${med(n)} (${n.map((x) => x.toFixed(2)).join(' ')}); load ${os.loadavg()[0].toFixed(2)}`,
);
