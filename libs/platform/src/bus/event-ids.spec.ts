import { z } from 'zod';
import { defineEvent, Topics } from '@switchboard/contracts';
import { Outbox } from '../outbox/outbox';
import { createEnvelope } from './event-bus';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const Probe = defineEvent({ type: 'test.probe.made', version: 1, topic: Topics.Accounts, schema: z.object({ n: z.number() }), key: (d) => String(d.n) });
const msOf = (u: string): number => parseInt(u.replace(/-/g, '').slice(0, 12), 16);

/**
 * Event ids key the consumers' `processed_events` and the outbox's `event_id`: time-ordered (v7) ids append to those
 * indexes instead of dirtying a random leaf each (docs/decisions/0161). Nothing reads an id's version or time; it must
 * stay a valid, unique uuid.
 */
describe('event ids (docs/decisions/0161)', () => {
  it('are version 7 uuids of the time the envelope is made, unique and ascending in the order they are made', () => {
    const before = Date.now();
    const ids = Array.from({ length: 10_000 }, (_, n) => createEnvelope(Probe, { n }, { accountId: '1', source: 'test' }).id);
    const after = Date.now();
    expect(ids.every((id) => V7.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id, i) => i === 0 || ids[i - 1] < id)).toBe(true);
    expect(msOf(ids[0])).toBeGreaterThanOrEqual(before);
    // 10,000 ids may borrow a few ms ahead when a ms's counter runs out, never far
    expect(msOf(ids[ids.length - 1])).toBeLessThanOrEqual(after + 10);
  });

  it('keeps an id the caller gives (a re-published event is the same event)', () => {
    const id = '3b241101-e2bb-4255-8caf-4136c566a962';
    expect(createEnvelope(Probe, { n: 1 }, { accountId: '1', source: 'test', id }).id).toBe(id);
  });

  it('gives a packed outbox row a version 7 event_id too', async () => {
    const calls: unknown[][] = [];
    const manager = { queryRunner: { isTransactionActive: true }, query: (_sql: string, params: unknown[]) => (calls.push(params), Promise.resolve([])) };
    const events = [createEnvelope(Probe, { n: 1 }, { accountId: '1', source: 'test' })];
    await Outbox.addPacked(manager as never, 'test', events);
    await Outbox.addPacked(manager as never, 'test', events);
    const [a, b] = calls.map((p) => p[0] as string);
    expect(a).toMatch(V7);
    expect(a < b).toBe(true);
  });
});
