import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { contactsModuleOptionsFromConfig, type ContactsConfig } from './contacts.config';
import { ContactsModule } from './contacts.module';

export type RunningContactsService = RunningService;

/** The standalone contacts service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startContactsService(config: ContactsConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningContactsService> {
  const roles = new Set(config.PROCESS_ROLES);
  return startStandaloneService({
    name: 'contacts',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: ContactsModule.register(contactsModuleOptionsFromConfig(config)),
    roles: { http: roles.has('http'), consumers: roles.has('consumers'), relay: roles.has('relay'), schedulers: roles.has('schedulers') },
    ...opts,
  });
}
