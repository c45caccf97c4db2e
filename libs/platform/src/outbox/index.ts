export * from './sql';
export * from './outbox';
export * from './outbox-relay';
export * from './idempotent-consumer';
export * from './unit-of-work';
export * from './batched-consumer';
export * from './countdown';
export * from './batched-writer';
