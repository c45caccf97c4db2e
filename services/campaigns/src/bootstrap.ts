import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { campaignsModuleOptionsFromConfig, type CampaignsConfig } from './campaigns.config';
import { CampaignsModule } from './campaigns.module';

export type RunningCampaignsService = RunningService;

/** The standalone campaigns service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startCampaignsService(config: CampaignsConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningCampaignsService> {
  const roles = new Set(config.PROCESS_ROLES);
  return startStandaloneService({
    name: 'campaigns',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: CampaignsModule.register(campaignsModuleOptionsFromConfig(config)),
    roles: { http: roles.has('http'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') },
    ...opts,
  });
}
