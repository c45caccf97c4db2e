import type { RealtimeMessage } from '@switchboard/contracts';

/** What SseStream needs of an HTTP response (an Express response in production, a fake in unit tests). */
export interface SseSink {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
  end(): unknown;
}

/** Why the client should refetch what it shows: messages were dropped or cannot be replayed. */
export type ResyncReason = 'overflow' | 'history_unavailable' | 'interrupted';

/** One SSE frame. `data` is one line of JSON (JSON never contains raw newlines), so no multi-line splitting is needed. */
export function sseFrame(fields: { id?: string; event?: string; data: unknown; retry?: number }): string {
  let out = '';
  if (fields.id !== undefined) out += `id: ${fields.id.replace(/[\r\n]/g, '')}\n`;
  if (fields.event !== undefined) out += `event: ${fields.event.replace(/[\r\n]/g, '')}\n`;
  if (fields.retry !== undefined) out += `retry: ${fields.retry}\n`;
  return `${out}data: ${JSON.stringify(fields.data)}\n\n`;
}

/**
 * Writes realtime messages to one SSE client with a bounded queue. While the socket is backed up
 * (write() returned false), messages wait; beyond `maxQueue` the oldest are dropped and, before the next message
 * goes out, the client gets a `warning` frame telling it how many it lost so it can refetch.
 */
export class SseStream {
  private readonly queue: RealtimeMessage[] = [];
  private readonly pendingNotices: string[] = [];
  private dropped = 0;
  private blocked = false;
  private closed = false;
  private readonly onDrain = () => {
    this.blocked = false;
    this.flush();
  };

  constructor(
    private readonly sink: SseSink,
    private readonly maxQueue: number,
    private readonly onOverflow: (dropped: number) => void = () => undefined,
  ) {}

  get pending(): number {
    return this.queue.length;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Raw text that is not a message (comments, the opening retry line); skipped while the socket is backed up. */
  writeRaw(text: string): void {
    if (this.closed || this.blocked) return;
    this.write(text);
  }

  send(message: RealtimeMessage): void {
    if (this.closed) return;
    this.queue.push(message);
    if (this.queue.length > this.maxQueue) {
      this.queue.shift();
      if (this.dropped === 0) this.onOverflow(1);
      this.dropped++;
    }
    this.flush();
  }

  /** A frame that must reach the client ahead of later messages (e.g. a resync notice). */
  notice(event: string, data: unknown): void {
    if (this.closed) return;
    this.pendingNotices.push(sseFrame({ event, data }));
    this.flush();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.sink.removeListener('drain', this.onDrain);
    this.sink.end();
  }

  private flush(): void {
    while (!this.blocked && !this.closed) {
      let chunk: string;
      if (this.dropped > 0) {
        chunk = sseFrame({ event: 'warning', data: { reason: 'overflow' satisfies ResyncReason, dropped: this.dropped, resync: true } });
        this.dropped = 0;
      } else if (this.pendingNotices.length) {
        chunk = this.pendingNotices.shift() as string;
      } else if (this.queue.length) {
        const m = this.queue.shift() as RealtimeMessage;
        chunk = sseFrame({ id: m.id, event: m.topic, data: m });
      } else {
        return;
      }
      this.write(chunk);
    }
  }

  private write(chunk: string): void {
    if (!this.sink.write(chunk)) {
      this.blocked = true;
      this.sink.once('drain', this.onDrain);
    }
  }
}
