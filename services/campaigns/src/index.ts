export { CampaignsModule } from './campaigns.module';
export { CAMPAIGNS_CONNECTION, CAMPAIGNS_SCHEMA, type CampaignsModuleOptions } from './campaigns.options';
export { campaignsConfigSchema, campaignsModuleOptionsFromConfig, loadCampaignsConfig, type CampaignsConfig } from './campaigns.config';
export { CAMPAIGNS_MIGRATIONS } from './migrations';
export { ReadModelsConsumer as CampaignsReadModelsConsumer } from './consumers/read-models.consumer';
export { CampaignsOutboxRelay, CampaignsUnitOfWork } from './services/campaigns-events.service';
export { CampaignRunner, RecipientState } from './run/runner.service';
export { RunnerConsumers } from './run/runner.consumers';
export type { RunnerOptions } from './run/runner.options';
