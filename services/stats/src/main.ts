import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startStatsService } from './bootstrap';
import { loadStatsConfig } from './stats.config';

/** Standalone stats service (distributed mode): `node dist/services/stats/src/main.js`. */
runStandalone('stats', () => loadStatsConfig(), (config) => startStatsService(config));
