export * from './realtime';
