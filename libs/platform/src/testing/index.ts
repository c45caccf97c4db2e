export * from './database';
export * from './brokers';
export * from './test-app';
export { DnsZone, type ZoneRecord } from './dns-zone';
export * from './api-client';
export * from './standalone';
