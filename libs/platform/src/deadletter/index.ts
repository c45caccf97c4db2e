export * from './sql';
export * from './store';
export * from './replayer';
