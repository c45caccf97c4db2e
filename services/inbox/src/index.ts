export { InboxModule } from './inbox.module';
export { INBOX_CONNECTION, INBOX_SCHEMA, type InboxModuleOptions } from './inbox.options';
export { inboxConfigSchema, inboxModuleOptionsFromConfig, loadInboxConfig, type InboxConfig } from './inbox.config';
export { Clock, ManualClock, SystemClock } from './clock';
export { INBOX_MIGRATIONS } from './migrations';
export { MediaStorage, LocalMediaStorage, S3MediaStorage, type S3MediaOptions } from './media/storage';
export { sniff } from './media/sniff';
export { RoomEvents } from './services/rooms.service';
export { ImportedAgentsConsumer as InboxImportedAgentsConsumer, IMPORTED_AGENTS_GROUP as INBOX_IMPORTED_AGENTS_GROUP, type Placement } from './services/imported-agents.consumer';
