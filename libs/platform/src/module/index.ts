export * from './platform.module';
export * from './standalone';
