export * from './tokens';
export * from './revocations';
