import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { inboxModuleOptionsFromConfig, type InboxConfig } from './inbox.config';
import { InboxModule } from './inbox.module';

export type RunningInboxService = RunningService;

/** The standalone inbox service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startInboxService(config: InboxConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningInboxService> {
  const roles = new Set(config.PROCESS_ROLES);
  return startStandaloneService({
    name: 'inbox',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: InboxModule.register(inboxModuleOptionsFromConfig(config)),
    roles: { http: roles.has('http'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') },
    ...opts,
  });
}
