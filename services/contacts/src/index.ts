export { ContactsModule } from './contacts.module';
export { CONTACTS_CONNECTION, CONTACTS_SCHEMA, type ContactsModuleOptions, type ImportHooks } from './contacts.options';
export { contactsConfigSchema, contactsModuleOptionsFromConfig, loadContactsConfig, type ContactsConfig } from './contacts.config';
export { CONTACTS_MIGRATIONS } from './migrations';
export { ImportJobsService } from './services/import-jobs.service';
export { TaskJobsService } from './services/task-jobs.service';
export { SegmentFilterSchema, type SegmentFilter } from './segments/filter';
export { ContactsOutboxRelay } from './services/contacts-events.service';
