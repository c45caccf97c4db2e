import type { LogLevel } from '@nestjs/common';
import { DevMailbox, SmtpMailer, startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { accountsModuleOptionsFromConfig, type AccountsConfig } from './accounts.config';
import { AccountsModule } from './accounts.module';

export type RunningAccountsService = RunningService;
export type AccountsDriverOverrides = StandaloneDrivers;

/** The standalone accounts service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startAccountsService(config: AccountsConfig, opts: { logger?: LogLevel[]; drivers?: AccountsDriverOverrides } = {}): Promise<RunningAccountsService> {
  return startStandaloneService({
    name: 'accounts',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: AccountsModule.register(accountsModuleOptionsFromConfig(config)),
    // Without SMTP the feature requests are still recorded and published; the mailbox only swallows the courtesy mails.
    mailer: config.SMTP_URL ? new SmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM }) : new DevMailbox(),
    ...opts,
  });
}
