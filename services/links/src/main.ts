import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startLinksService } from './bootstrap';
import { loadLinksConfig } from './links.config';

/** Standalone links service (distributed mode), the console API by default: `node dist/services/links/src/main.js`. */
runStandalone('links', () => loadLinksConfig(), (config) => startLinksService(config));
