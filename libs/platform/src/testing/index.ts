export * from './database';
export * from './brokers';
