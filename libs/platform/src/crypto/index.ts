export * from './provider-secrets';
