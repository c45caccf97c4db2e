export { IntegrationsModule } from './integrations.module';
export { INTEGRATIONS_CONNECTION, INTEGRATIONS_SCHEMA, INTEGRATIONS_OPTIONS, type IntegrationsModuleOptions, type ResolvedIntegrationsOptions } from './integrations.options';
export { integrationsConfigSchema, integrationsModuleOptionsFromConfig, loadIntegrationsConfig, type IntegrationsConfig } from './integrations.config';
export { Clock, ManualClock, SystemClock } from './clock';
export { INTEGRATIONS_MIGRATIONS } from './migrations';
export { IntegrationsService } from './services/integrations.service';
export { IntegrationsOutboxRelay, IntegrationsUnitOfWork } from './services/outbox';
