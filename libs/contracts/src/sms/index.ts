export * from './encoding';
