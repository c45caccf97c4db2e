import { testEvent } from '../bus/test-support';
import { outboxMaxBatchBytes, packedRows } from './outbox';

const TOPIC = 'switchboard.test';

describe('packedRows', () => {
  const events = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => testEvent(TOPIC, `k${i}`, { text: text(i) }));

  it('keeps events that fit in one row as one row, the text JSON.stringify of them (or the caller’s own)', () => {
    const small = events(10, (i) => `m${i}`);
    expect(packedRows(small, undefined, 900_000)).toEqual([{ count: 10, text: JSON.stringify(small) }]);
    const json = JSON.stringify(small);
    expect(packedRows(small, json, 900_000)[0].text).toBe(json);
    const many = events(300, (i) => `m${i}`);
    expect(packedRows(many, undefined, 900_000)).toEqual([{ count: 300, text: JSON.stringify(many) }]);
  });

  it('cuts events over the cap into consecutive rows, each at most the cap in UTF-8 bytes, every event once and in order', () => {
    // multi-byte text, so characters and bytes differ; sizes vary from event to event
    const all = events(700, (i) => 'ж€x"\\'.repeat(1 + (i % 37)));
    for (const json of [undefined, JSON.stringify(all)]) {
      const rows = packedRows(all, json, 16_384);
      expect(rows.length).toBeGreaterThan(5);
      for (const row of rows) {
        expect(Buffer.byteLength(row.text)).toBeLessThanOrEqual(16_384);
        expect((JSON.parse(row.text) as unknown[]).length).toBe(row.count);
      }
      expect(rows.flatMap((r) => JSON.parse(r.text) as unknown[])).toEqual(JSON.parse(JSON.stringify(all)));
      // no two rows next to each other would have fitted in one
      for (let r = 0; r + 1 < rows.length; r++) expect(Buffer.byteLength(rows[r].text) + Buffer.byteLength(rows[r + 1].text) - 1).toBeGreaterThan(16_384);
    }
  });

  it('puts an event larger than the cap alone in its row, between the rows around it', () => {
    const all = events(5, (i) => (i === 2 ? 'y'.repeat(5000) : 'z'.repeat(1500)));
    const rows = packedRows(all, undefined, 4096);
    expect(rows.map((r) => r.count)).toEqual([2, 1, 2]);
    expect((JSON.parse(rows[1].text) as Array<{ key: string }>)[0].key).toBe('k2');
  });

  it('reads the cap from OUTBOX_MAX_BATCH_BYTES, 900,000 by default, and refuses one under 1 KB', () => {
    const was = process.env.OUTBOX_MAX_BATCH_BYTES;
    try {
      delete process.env.OUTBOX_MAX_BATCH_BYTES;
      expect(outboxMaxBatchBytes()).toBe(900_000);
      process.env.OUTBOX_MAX_BATCH_BYTES = '500000';
      expect(outboxMaxBatchBytes()).toBe(500_000);
      expect(outboxMaxBatchBytes(2048)).toBe(2048);
      process.env.OUTBOX_MAX_BATCH_BYTES = '100';
      expect(() => outboxMaxBatchBytes()).toThrow(/OUTBOX_MAX_BATCH_BYTES must be an integer of at least 1024/);
    } finally {
      if (was === undefined) delete process.env.OUTBOX_MAX_BATCH_BYTES;
      else process.env.OUTBOX_MAX_BATCH_BYTES = was;
    }
  });
});
