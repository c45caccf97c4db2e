import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { Clock } from './clock';
import { ActiveWebhooks } from './services/active-webhooks';
import { WebhookRequestsController, WebhooksController } from './controllers/webhooks.controller';
import { WEBHOOKS_MIGRATIONS } from './migrations';
import { DeliveryService } from './services/delivery.service';
import { WebhookEventsConsumer } from './services/events.consumer';
import { WebhooksOutboxRelay } from './services/outbox-relay';
import { WebhookService } from './services/webhook.service';
import { createClock, resolveWebhooksOptions, WEBHOOKS_CONNECTION, WEBHOOKS_OPTIONS, WEBHOOKS_SCHEMA, type WebhooksModuleOptions } from './webhooks.options';

/**
 * Customer webhooks: subscriptions, signed delivery with retries, the request log (docs/decisions/0027-webhooks.md).
 * Needs PlatformModule.forRoot (DATABASE_URL, EventBus, TokenVerifier, PROCESS_ROLES).
 */
@Module({})
export class WebhooksModule {
  static register(options: WebhooksModuleOptions): DynamicModule {
    const resolved = resolveWebhooksOptions(options);
    return {
      module: WebhooksModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: WEBHOOKS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, WEBHOOKS_SCHEMA);
            return {
              ...serviceDataSourceOptions({ name: WEBHOOKS_CONNECTION, url, schema: WEBHOOKS_SCHEMA, entities: [], migrations: WEBHOOKS_MIGRATIONS, migrationsRun: resolved.migrationsRun }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      controllers: [WebhooksController, WebhookRequestsController],
      providers: [{ provide: WEBHOOKS_OPTIONS, useValue: resolved }, { provide: Clock, useValue: createClock(options) }, WebhookService, DeliveryService, WebhookEventsConsumer, ActiveWebhooks, WebhooksOutboxRelay],
      exports: [DeliveryService],
    };
  }
}
