import 'reflect-metadata';
import { runStandalone } from '@switchboard/platform';
import { startCampaignsService } from './bootstrap';
import { loadCampaignsConfig } from './campaigns.config';

/** Standalone campaigns service (distributed mode): `node dist/services/campaigns/src/main.js`. */
runStandalone('campaigns', () => loadCampaignsConfig(), (config) => startCampaignsService(config));
