import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { integrationsModuleOptionsFromConfig, type IntegrationsConfig } from './integrations.config';
import { IntegrationsModule } from './integrations.module';

export type RunningIntegrationsService = RunningService;

/** The standalone integrations service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startIntegrationsService(config: IntegrationsConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningIntegrationsService> {
  const roles = new Set(config.PROCESS_ROLES);
  return startStandaloneService({
    name: 'integrations',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: IntegrationsModule.register(integrationsModuleOptionsFromConfig(config)),
    roles: { http: roles.has('http'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') },
    ...opts,
  });
}
