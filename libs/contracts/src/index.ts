export * from './errors';
export * from './events';
export * from './realtime';
export * from './permissions';
export * from './auth-events';
