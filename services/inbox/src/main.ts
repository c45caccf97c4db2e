import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startInboxService } from './bootstrap';
import { loadInboxConfig } from './inbox.config';

/** Standalone inbox service (distributed mode): `node dist/services/inbox/src/main.js`. */
runStandalone('inbox', () => loadInboxConfig(), (config) => startInboxService(config));
