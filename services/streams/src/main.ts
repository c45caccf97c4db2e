import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startStreamsService } from './bootstrap';
import { loadStreamsConfig } from './streams.config';

/** Standalone streams service (distributed mode): `node dist/services/streams/src/main.js`. */
runStandalone('streams', () => loadStreamsConfig(), (config) => startStreamsService(config));
