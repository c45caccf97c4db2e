import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startAccountsService } from './bootstrap';
import { loadAccountsConfig } from './accounts.config';

/** Standalone accounts service (distributed mode): `node dist/services/accounts/src/main.js`. */
runStandalone('accounts', () => loadAccountsConfig(), (config) => startAccountsService(config));
