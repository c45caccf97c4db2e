import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startDispatchService } from './bootstrap';
import { loadDispatchConfig } from './dispatch.config';

/** Standalone dispatch service (distributed mode): `node dist/services/dispatch/src/main.js`. */
runStandalone('dispatch', () => loadDispatchConfig(), (config) => startDispatchService(config));
