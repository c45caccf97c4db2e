import { backoffMs, retryPolicy } from './delivery';
import { isInfrastructureError, isPermanentPublishError, TransientError } from './failures';
import { InMemoryEventBus } from './in-memory-event-bus';
import type { DeadLetterRecord } from './event-bus';
import { silentLogger, testEvent, waitFor } from './test-support';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('infrastructure failures', () => {
  it('tells an outage (connection, server shutdown, resources, broker) from a failure of the event', () => {
    for (const e of [
      pgError('08006'),
      pgError('08001'),
      pgError('57P01', 'terminating connection due to administrator command'),
      pgError('57P03', 'the database system is starting up'),
      pgError('53300', 'too many connections'),
      pgError('55000', 'database "switchboard" is not currently accepting connections'),
      pgError('40P01', 'deadlock detected'),
      pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      // TypeORM wraps the driver's error
      Object.assign(new Error('query failed'), { name: 'QueryFailedError', driverError: pgError('57P01') }),
      Object.assign(new Error('wrapped'), { cause: pgError('08006') }),
      Object.assign(new Error('broker gone'), { name: 'KafkaJSConnectionError' }),
      Object.assign(new Error('leader moved'), { name: 'KafkaJSProtocolError', retriable: true }),
      new AggregateError([pgError('ECONNRESET')]),
      new TransientError('not now'),
    ]) {
      expect([e, isInfrastructureError(e)]).toEqual([e, true]);
    }
    for (const e of [
      new Error('validation failed'),
      pgError('23505', 'duplicate key value violates unique constraint'),
      pgError('23503'),
      pgError('55000', 'cannot delete from table "x" because it does not have a replica identity and publishes deletes'),
      pgError('22P02', 'invalid input syntax for type uuid'),
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      Object.assign(new Error('too large'), { name: 'KafkaJSProtocolError', retriable: false, type: 'MESSAGE_TOO_LARGE' }),
      'a string',
      null,
    ]) {
      expect([e, isInfrastructureError(e)]).toEqual([e, false]);
    }
  });

  it('calls a publish failure permanent only when the broker refused the record itself', () => {
    const tooLarge = Object.assign(new Error('too large'), { name: 'KafkaJSProtocolError', type: 'MESSAGE_TOO_LARGE', retriable: false });
    expect(isPermanentPublishError(Object.assign(new Error('x'), { name: 'KafkaJSNonRetriableError', cause: tooLarge }))).toBe(true);
    expect(isPermanentPublishError(new TypeError('Do not know how to serialize a BigInt'))).toBe(true);
    expect(isPermanentPublishError(new Error('broker unavailable'))).toBe(false);
    expect(isPermanentPublishError(Object.assign(new Error('x'), { name: 'KafkaJSNumberOfRetriesExceeded' }))).toBe(false);
  });

  it('backs off exponentially, capped, with jitter of up to half', () => {
    const policy = retryPolicy({ retryBackoffMs: 100, maxBackoffMs: 5000 });
    expect([1, 2, 3, 4, 5, 6, 7, 10, 50].map((n) => backoffMs(policy, n, () => 1))).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]);
    expect(backoffMs(policy, 10, () => 0)).toBe(2500);
  });
});

describe('in-memory bus through an outage', () => {
  it('holds the lane and retries the same event past maxRetries, in order, never dead-lettering it', async () => {
    const dead: DeadLetterRecord[] = [];
    const bus = new InMemoryEventBus({ partitions: 1, logger: silentLogger() });
    bus.useDeadLetters({ add: async (r) => (dead.push(r), true) });
    let down = 12; // failures before the "database" is back: far more than maxRetries
    const handled: number[] = [];
    await bus.subscribe({
      group: 'svc.g',
      topics: ['t'],
      maxRetries: 2,
      retryBackoffMs: 1,
      maxBackoffMs: 5,
      handler: async (e) => {
        if (down > 0) {
          down--;
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        }
        handled.push((e.data as { n: number }).n);
      },
    });
    await bus.start();
    await bus.publish([0, 1, 2, 3].map((n) => testEvent('t', `k${n}`, { n })));
    await bus.drain();
    expect(handled).toEqual([0, 1, 2, 3]);
    expect(dead).toEqual([]);
    await bus.stop();
  });

  it('dead-letters a failing event after its retries into the store, and goes on with the next', async () => {
    const dead: DeadLetterRecord[] = [];
    const bus = new InMemoryEventBus({ partitions: 1, logger: silentLogger() });
    bus.useDeadLetters({ add: async (r) => (dead.push(r), true) });
    const handled: number[] = [];
    await bus.subscribe({
      group: 'svc.g',
      topics: ['t'],
      maxRetries: 2,
      retryBackoffMs: 1,
      handler: async (e) => {
        const n = (e.data as { n: number }).n;
        if (n === 1) throw new Error('validation failed');
        handled.push(n);
      },
    });
    await bus.start();
    await bus.publish([0, 1, 2].map((n) => testEvent('t', 'k', { n })));
    await bus.drain();
    expect(handled).toEqual([0, 2]);
    expect(dead).toEqual([expect.objectContaining({ group: 'svc.g', topic: 't', attempts: 3, error: 'Error: validation failed' })]);
    await bus.stop();
  });

  it('keeps an event unacknowledged when stopped during an outage, and delivers it after the restart', async () => {
    const bus = new InMemoryEventBus({ partitions: 1, logger: silentLogger() });
    let down = true;
    let attempts = 0;
    const handled: string[] = [];
    await bus.subscribe({
      group: 'svc.g',
      topics: ['t'],
      retryBackoffMs: 1,
      maxBackoffMs: 5,
      handler: async (e) => {
        attempts++;
        if (down) throw Object.assign(new Error('Connection terminated unexpectedly'), {});
        handled.push(e.id);
      },
    });
    await bus.start();
    const event = testEvent('t', 'k');
    await bus.publish([event]);
    await waitFor(() => attempts > 3);
    await bus.stop();
    down = false;
    await bus.start();
    await bus.drain();
    expect(handled).toEqual([event.id]);
    await bus.stop();
  });
});
