export * from './event-bus';
export { EventHeaders, DEFAULT_MAX_RETRIES, DEFAULT_RETRY_BACKOFF_MS, isDeadLetterTopic } from './delivery';
export * from './in-memory-event-bus';
export * from './kafka-event-bus';
