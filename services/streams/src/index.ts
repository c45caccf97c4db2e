export { StreamsModule } from './streams.module';
export { STREAMS_CONNECTION, STREAMS_SCHEMA, type StreamsModuleOptions } from './streams.options';
export { streamsConfigSchema, streamsModuleOptionsFromConfig, loadStreamsConfig, type StreamsConfig } from './streams.config';
export { Clock, ManualClock, SystemClock } from './clock';
export { STREAMS_MIGRATIONS } from './migrations';
export { STREAMS_ENTITIES } from './entities';
export { StreamsOutboxRelay } from './services/streams-events.service';
export { HousekeepingService } from './services/housekeeping.service';
