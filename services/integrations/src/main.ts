import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startIntegrationsService } from './bootstrap';
import { loadIntegrationsConfig } from './integrations.config';

/** Standalone integrations service (distributed mode): `node dist/services/integrations/src/main.js`. */
runStandalone('integrations', () => loadIntegrationsConfig(), (config) => startIntegrationsService(config));
