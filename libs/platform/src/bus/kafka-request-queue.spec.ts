import { kafkaRequestQueueClass } from './kafka-request-queue';
// The bus module applies the patch when it is loaded, as every Kafka-mode process loads it.
import './kafka-event-bus';

const queues: Array<{ destroy(): void }> = [];
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** kafkajs' request queue of one broker connection, and requests pushed on it as its Connection pushes them. */
function connectionQueue(maxInFlightRequests: number | null = null) {
  const RequestQueue = kafkaRequestQueueClass();
  const queue = new RequestQueue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'test', broker: 'b:9092', logger: silent }) as InstanceType<
    ReturnType<typeof kafkaRequestQueueClass>
  > & { push(r: unknown): void; fulfillRequest(r: { correlationId: number; payload: Buffer; size: number }): void; maybeThrottle(ms: number): void; destroy(): void };
  queues.push(queue);
  const sent: number[] = [];
  const answered: number[] = [];
  const push = (correlationId: number) =>
    queue.push({
      entry: { correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: () => answered.push(correlationId), reject: () => undefined },
      expectResponse: true,
      sendRequest: () => sent.push(correlationId),
    });
  const answer = (correlationId: number) => queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });
  return { queue, push, answer, sent, answered };
}

describe("kafkajs' request queue (patched: no timer spinning on an idle connection)", () => {
  // destroyed even when a test fails: an unpatched queue's timer would keep jest's process alive
  afterEach(() => {
    for (const q of queues.splice(0)) q.destroy();
    jest.useRealTimers();
  });

  it('arms no timer on a connection whose requests are all answered (kafkajs 2.2.4 re-armed a 1 ms timer for ever)', () => {
    const c = connectionQueue();
    c.push(1);
    c.answer(1);
    expect(c.answered).toEqual([1]);
    expect(c.queue.pending).toHaveLength(0);
    expect(c.queue.throttleCheckTimeoutId).toBeNull();
    c.queue.checkPendingRequests();
    expect(c.queue.throttleCheckTimeoutId).toBeNull();
  });

  it('still sends a request that waited behind the in-flight limit once the one before it is answered, then goes quiet', () => {
    jest.useFakeTimers();
    const c = connectionQueue(1);
    c.push(1);
    c.push(2);
    expect(c.sent).toEqual([1]);
    c.answer(1);
    expect(c.sent).toEqual([1, 2]);
    c.answer(2);
    expect(c.answered).toEqual([1, 2]);
    // the check armed while 2 was pending runs once and arms nothing more
    jest.advanceTimersByTime(50);
    expect(jest.getTimerCount()).toBe(0);
  });

  it("still sends a request queued during a broker's throttle once the throttle is over, then goes quiet", () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const c = connectionQueue();
    c.queue.maybeThrottle(500);
    c.push(1);
    expect(c.sent).toEqual([]);
    jest.advanceTimersByTime(499);
    expect(c.sent).toEqual([]);
    jest.advanceTimersByTime(20);
    expect(c.sent).toEqual([1]);
    c.answer(1);
    expect(c.answered).toEqual([1]);
    expect(jest.getTimerCount()).toBe(0);
  });
});
