export * from './database';
export * from './brokers';
export * from './test-app';
