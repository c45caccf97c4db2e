export * from './errors';
export * from './events';
export * from './realtime';
export * from './permissions';
export * from './auth-events';
export * from './accounts-events';
export * from './messaging-events';
