import { randomBytes } from 'node:crypto';

/**
 * Realtime message ids: `<epoch ms>-<sequence>[-<node>]`. Monotonic per publishing process (the time part never
 * goes backwards, the sequence always grows), so they work as SSE ids; the time part lets a buffer answer a
 * `lastEventId` it no longer holds (or one from before a restart) by time, and tell whether it reaches back that far.
 * The node suffix tells publishers apart when several processes publish (NATS).
 */
export class EventIdGenerator {
  private lastMs = 0;
  private seq = 0;

  constructor(
    private readonly node: string | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  static withRandomNode(): EventIdGenerator {
    return new EventIdGenerator(randomBytes(4).toString('hex'));
  }

  next(): { id: string; ms: number } {
    this.lastMs = Math.max(this.lastMs, this.now());
    this.seq += 1;
    return { id: this.node ? `${this.lastMs}-${this.seq}-${this.node}` : `${this.lastMs}-${this.seq}`, ms: this.lastMs };
  }
}

export interface ParsedEventId {
  ms: number;
  seq: number;
  node: string | null;
}

const ID = /^(\d{1,15})-(\d{1,15})(?:-([0-9a-z]{1,32}))?$/;

export function parseEventId(id: string): ParsedEventId | null {
  const m = ID.exec(id);
  if (!m) return null;
  return { ms: Number(m[1]), seq: Number(m[2]), node: m[3] ?? null };
}
