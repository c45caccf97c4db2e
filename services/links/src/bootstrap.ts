import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { linksModuleOptionsFromConfig, platformRolesFromConfig, type LinksConfig } from './links.config';
import { LinksModule } from './links.module';

export type RunningLinksService = RunningService;

/** The standalone links service (distributed mode): Kafka bus, NATS realtime, health endpoints; roles from PROCESS_ROLES. */
export function startLinksService(config: LinksConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningLinksService> {
  return startStandaloneService({
    name: 'links',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: LinksModule.register(linksModuleOptionsFromConfig(config)),
    roles: platformRolesFromConfig(config),
    ...opts,
  });
}
