import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startContactsService } from './bootstrap';
import { loadContactsConfig } from './contacts.config';

/** Standalone contacts service (distributed mode): `node dist/services/contacts/src/main.js`. */
runStandalone('contacts', () => loadContactsConfig(), (config) => startContactsService(config));
