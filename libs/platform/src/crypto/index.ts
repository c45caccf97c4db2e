export * from './provider-secrets';
export * from './uuid-v5';
