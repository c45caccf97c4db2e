export * from './database';
export * from './brokers';
export * from './test-app';
export { DnsZone, type ZoneRecord } from './dns-zone';
export * from './api-client';
export * from './standalone';
export { startWireServer as startGenAiWireServer, type Misbehaviour as GenAiMisbehaviour, type WireServer as GenAiWireServer, type RecordedRequest as GenAiRecordedRequest } from './genai-wire-servers';
export * from './processes';
export * from './webhook-receiver';
