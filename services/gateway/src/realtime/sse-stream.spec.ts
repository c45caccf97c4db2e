import type { RealtimeMessage } from '@switchboard/contracts';
import { SseStream, sseFrame, type SseSink } from './sse-stream';

class FakeSocket implements SseSink {
  written: string[] = [];
  full = false;
  ended = false;
  private drainListener: (() => void) | null = null;
  write(chunk: string): boolean {
    this.written.push(chunk);
    return !this.full;
  }
  once(_e: 'drain', l: () => void) {
    this.drainListener = l;
  }
  removeListener() {
    this.drainListener = null;
  }
  end() {
    this.ended = true;
  }
  drain() {
    this.full = false;
    const l = this.drainListener;
    this.drainListener = null;
    l?.();
  }
}

const m = (n: number): RealtimeMessage => ({ id: `1-${n}`, subject: `rt.10.campaigns.${n}`, accountId: '10', topic: 'campaigns', type: 'x', data: { n }, at: '' });
const ids = (chunks: string[]) => chunks.map((c) => /^id: (.*)$/m.exec(c)?.[1] ?? /^event: (.*)$/m.exec(c)?.[1]);

describe('SseStream', () => {
  it('writes id, event (the topic) and one JSON data line per message', () => {
    expect(sseFrame({ id: '1-1', event: 'campaigns', data: { a: 'x\ny' } })).toBe('id: 1-1\nevent: campaigns\ndata: {"a":"x\\ny"}\n\n');
  });

  it('holds messages while the socket is backed up and sends them in order after drain', () => {
    const s = new FakeSocket();
    const stream = new SseStream(s, 10);
    stream.send(m(1));
    s.full = true;
    stream.send(m(2)); // written, but the socket says it is full
    stream.send(m(3));
    stream.send(m(4));
    expect(ids(s.written)).toEqual(['1-1', '1-2']);
    expect(stream.pending).toBe(2);
    s.drain();
    expect(ids(s.written)).toEqual(['1-1', '1-2', '1-3', '1-4']);
  });

  it('drops the oldest beyond its bound and warns the client before the next message', () => {
    const s = new FakeSocket();
    const overflows: number[] = [];
    const stream = new SseStream(s, 3, (n) => overflows.push(n));
    s.full = true;
    stream.send(m(0)); // goes out, then the socket is full
    for (let i = 1; i <= 6; i++) stream.send(m(i));
    expect(stream.pending).toBe(3);
    expect(overflows).toEqual([1]);
    s.drain();
    expect(ids(s.written)).toEqual(['1-0', 'warning', '1-4', '1-5', '1-6']);
    expect(s.written[1]).toContain('"dropped":3');
    expect(s.written[1]).toContain('"resync":true');
  });

  it('skips heartbeats while backed up and stops writing once closed', () => {
    const s = new FakeSocket();
    const stream = new SseStream(s, 3);
    s.full = true;
    stream.writeRaw(': a\n\n');
    stream.writeRaw(': b\n\n');
    expect(s.written).toEqual([': a\n\n']);
    stream.close();
    stream.send(m(1));
    expect(s.ended).toBe(true);
    expect(s.written).toEqual([': a\n\n']);
  });
});
