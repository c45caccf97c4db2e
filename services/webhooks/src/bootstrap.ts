import type { LogLevel } from '@nestjs/common';
import { startStandaloneService, type RunningService, type StandaloneDrivers } from '@switchboard/platform';
import { webhooksModuleOptionsFromConfig, type WebhooksConfig } from './webhooks.config';
import { WebhooksModule } from './webhooks.module';

export type RunningWebhooksService = RunningService;

/** The standalone webhooks service (distributed mode): Kafka bus, NATS realtime, health endpoints. */
export function startWebhooksService(config: WebhooksConfig, opts: { logger?: LogLevel[]; drivers?: StandaloneDrivers } = {}): Promise<RunningWebhooksService> {
  return startStandaloneService({
    name: 'webhooks',
    config,
    verificationKey: config.JWT_PUBLIC_KEY,
    module: WebhooksModule.register(webhooksModuleOptionsFromConfig(config)),
    ...opts,
  });
}
