import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startAuthService } from './bootstrap';
import { loadAuthConfig } from './auth.config';

/** Standalone auth service (distributed mode): `node dist/services/auth/src/main.js`. */
runStandalone('auth', () => loadAuthConfig(), (config) => startAuthService(config));
