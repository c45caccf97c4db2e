import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startWebhooksService } from './bootstrap';
import { loadWebhooksConfig } from './webhooks.config';

/** Standalone webhooks service (distributed mode): `node dist/services/webhooks/src/main.js`. */
runStandalone('webhooks', () => loadWebhooksConfig(), (config) => startWebhooksService(config));
