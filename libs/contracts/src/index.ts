export * from './errors';
export * from './events';
export * from './realtime';
