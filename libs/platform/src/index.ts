// Each area has its own barrel; its owner edits only that file.
export * from './config/config';
export * from './context/request-context';
export * from './errors/app-error';
export * from './bus';
export * from './realtime';
export * from './outbox';
export * from './database';
export * from './http';
export * from './auth';
export * from './mail';
export * from './module';
export * from './health/health';
export * from './tenancy/account-directory';
export * from './crypto';
export * from './deadletter';
export * from './time/clock';
export * from './metrics';
