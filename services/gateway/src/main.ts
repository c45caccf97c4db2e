import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startGateway } from './bootstrap';
import { loadGatewayConfig } from './gateway.config';

/** Standalone gateway (distributed mode): `node dist/services/gateway/src/main.js`. */
runStandalone('gateway', () => loadGatewayConfig(), (config) => startGateway(config));
