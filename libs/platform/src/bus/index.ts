export * from './event-bus';
export { EventHeaders, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BACKOFF_MS, DEFAULT_MAX_BACKOFF_MS, isDeadLetterTopic, backoffMs, retryPolicy, eachAtOnce, withStatusBatches } from './delivery';
export * from './failures';
export * from './in-memory-event-bus';
export * from './kafka-event-bus';
