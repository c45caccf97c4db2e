export * from './platform.module';
