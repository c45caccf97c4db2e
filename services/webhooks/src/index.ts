export { WebhooksModule } from './webhooks.module';
export { WEBHOOKS_CONNECTION, WEBHOOKS_SCHEMA, DEFAULT_RETRY_SCHEDULE_MS, type WebhooksModuleOptions } from './webhooks.options';
export { webhooksConfigSchema, webhooksModuleOptionsFromConfig, loadWebhooksConfig, type WebhooksConfig } from './webhooks.config';
export { Clock, ManualClock, SystemClock } from './clock';
export { WEBHOOKS_MIGRATIONS } from './migrations';
export { DeliveryService } from './services/delivery.service';
export { WebhookService } from './services/webhook.service';
export { WebhooksOutboxRelay } from './services/outbox-relay';
