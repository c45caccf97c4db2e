import type { LogLevel } from '@nestjs/common';
import { DevMailbox, SmtpMailer, startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { accountsModuleOptionsFromConfig, type AccountsConfig } from './accounts.config';
import { AccountsModule } from './accounts.module';
import { AccountsBootstrapService } from './services/accounts-bootstrap.service';

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
    // SEED_DEMO: embedded mode's demo account, once however many replicas start (the seed holds an advisory lock)
    afterListen: config.SEED_DEMO ? async (app) => void (await app.get(AccountsBootstrapService).seed({ demoAccountName: config.SWITCHBOARD_DEMO_ACCOUNT })) : undefined,
    ...opts,
  });
}
