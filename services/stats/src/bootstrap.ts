import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { statsModuleOptionsFromConfig, type StatsConfig } from './stats.config';
import { StatsModule } from './stats.module';

export type RunningStatsService = RunningService;

/** The standalone stats service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startStatsService(config: StatsConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningStatsService> {
  const roles = new Set(config.PROCESS_ROLES);
  return startStandaloneService({
    name: 'stats',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: StatsModule.register(statsModuleOptionsFromConfig(config)),
    roles: { http: roles.has('http'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') },
    ...opts,
  });
}
