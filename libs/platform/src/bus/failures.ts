/**
 * Which failures are the infrastructure's (the database or the broker is away) and which are the event's own.
 *
 * An infrastructure failure says nothing about the event: retrying the same event later will work, and skipping it
 * would lose it. The drivers then hold the partition (Kafka) or lane (in memory) and retry the same event, with a
 * capped, jittered exponential backoff, for as long as it takes; it is never dead-lettered. Any other failure
 * (validation, a constraint violation, a bug in the handler) is retried a few times and then dead-lettered.
 */

/** Thrown by a handler to say "not now, try again later" when it knows the cause is passing. */
export class TransientError extends Error {
  readonly transient = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/**
 * PostgreSQL SQLSTATEs of a server that cannot serve now: class 08 (connection exception), 57P01-57P03
 * (admin/crash shutdown, cannot connect now), class 53 (insufficient resources: disk full, out of memory, too many
 * connections), 40001/40P01 (serialization failure, deadlock: the same work succeeds when retried), and 55000 only for a
 * database not accepting connections.
 */
function isTransientSqlState(code: string, message: unknown): boolean {
  // 55000 is a broad class (object not in prerequisite state); only its "database ... is not currently accepting
  // connections" (a database closed to connections for maintenance, ALLOW_CONNECTIONS false) is an outage
  if (code === '55000') return typeof message === 'string' && /is not currently accepting connections/.test(message);
  return /^08[0-9A-Z]{3}$/.test(code) || /^53[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '40001', '40P01'].includes(code);
}

/** Socket errors of a peer that is down or unreachable. */
const TRANSIENT_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/** kafkajs error classes that mean the cluster (not the record) is the problem. */
const TRANSIENT_KAFKA = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSLockTimeout',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTopicMetadataNotLoaded',
  'KafkaJSStaleTopicMetadataAssignment',
]);

/** Messages of node-postgres, pg-pool and TypeORM for a connection that failed, ended or could not be had. */
const TRANSIENT_MESSAGE =
  /Connection terminated|connection (?:is )?closed|Client has encountered a connection error|timeout exceeded when trying to connect|terminating connection|the database system is (?:starting up|shutting down|in recovery mode)|Connection is not established|Cannot use a pool after calling end|ECONNREFUSED|ECONNRESET/i;

/** Whether `error` (or anything it wraps: `cause`, TypeORM's `driverError`, an AggregateError's errors) is transient. */
export function isInfrastructureError(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const e = error as {
    transient?: unknown;
    code?: unknown;
    name?: unknown;
    message?: unknown;
    retriable?: unknown;
    cause?: unknown;
    driverError?: unknown;
    originalError?: unknown;
    errors?: unknown;
  };
  if (e.transient === true) return true;
  if (typeof e.code === 'string' && (isTransientSqlState(e.code, e.message) || TRANSIENT_ERRNO.has(e.code))) return true;
  if (typeof e.name === 'string' && TRANSIENT_KAFKA.has(e.name)) return true;
  // kafkajs marks protocol errors that a retry can cure (leader moved, broker not available, ...)
  if (typeof e.name === 'string' && e.name.startsWith('KafkaJS') && e.retriable === true) return true;
  if (typeof e.message === 'string' && TRANSIENT_MESSAGE.test(e.message)) return true;
  for (const inner of [e.cause, e.driverError, e.originalError]) if (isInfrastructureError(inner, depth + 1)) return true;
  if (Array.isArray(e.errors)) return e.errors.some((inner) => isInfrastructureError(inner, depth + 1));
  return false;
}

/** Kafka error types that refuse the record itself: sending it again can never work. */
const PERMANENT_KAFKA_TYPES = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE', 'POLICY_VIOLATION', 'INVALID_TIMESTAMP']);

/**
 * Whether a publish failed because of the events themselves, for good: the broker refused the record (too large,
 * invalid), or the event cannot be serialised (a BigInt, a cycle). Anything not known to be permanent is not: the
 * relay then tries again later rather than give an event up on a guess.
 */
export function isPermanentPublishError(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object') return false;
  const e = error as { type?: unknown; name?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
  if (typeof e.type === 'string' && PERMANENT_KAFKA_TYPES.has(e.type)) return true;
  if (depth === 0 && error instanceof TypeError && typeof e.message === 'string' && /serializ|circular|BigInt/i.test(e.message)) return true;
  for (const inner of [e.cause, e.originalError]) if (isPermanentPublishError(inner, depth + 1)) return true;
  if (Array.isArray(e.errors)) return e.errors.some((inner) => isPermanentPublishError(inner, depth + 1));
  return false;
}
