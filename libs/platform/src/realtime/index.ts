export * from './realtime';
export * from './subjects';
export * from './event-id';
export * from './replay-buffer';
export * from './in-memory-realtime';
export * from './nats-realtime';
export * from './json-once';
