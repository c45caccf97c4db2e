import { InboundMediaController } from './controllers/inbound-media.controller';
import { InboundMediaService } from './services/inbound-media.service';
import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { ChannelsController } from './controllers/channels.controller';
import { InboundUnclaimedController } from './controllers/inbound-unclaimed.controller';
import { DeadLettersController } from './controllers/dead-letters.controller';
import { MessageResponsesController } from './controllers/message-responses.controller';
import { ServiceTypeManagerController } from './controllers/service-type-manager.controller';
import { WebhooksController } from './controllers/webhooks.controller';
import { DISPATCH_CONNECTION, DISPATCH_OPTIONS, DISPATCH_SCHEMA, resolveDispatchOptions, type DispatchModuleOptions } from './dispatch.options';
import { DISPATCH_MIGRATIONS } from './migrations';
import { MessageRepository } from './repositories/message.repository';
import { RateShareRepository } from './repositories/rate-share.repository';
import { ReadModelRepository } from './repositories/read-model.repository';
import { RoutingRepository } from './repositories/routing.repository';
import { AdapterRegistry } from './services/adapter-registry.service';
import { ReadModelConsumers } from './services/consumers.service';
import { ReconcileResponder } from './services/reconcile.service';
import { Dispatcher } from './services/dispatcher.service';
import { DispatchOutboxRelay, MessageRealtime } from './services/events.service';
import { InboundService } from './services/inbound.service';
import { InboundUnclaimedService } from './services/inbound-unclaimed.service';
import { OptOutBook } from './services/opt-out.book';
import { CampaignHolds } from './services/campaign-holds.service';
import { MessageResponsesService } from './services/message-responses.service';
import { RoutingAdminService } from './services/routing-admin.service';
import { RoutingService } from './services/routing.service';
import { StreamChannelCache } from './services/stream-channel.cache';
import { StuckMessageSweeper } from './services/stuck-sweeper.service';
import { TelegramAuthService } from './services/telegram-auth.service';
import { VendorSeeder } from './services/vendor-seeder.service';
import { WebhookRawBody, WebhookService } from './services/webhooks.service';

/**
 * Delivery: consumes `streams.message.accepted`, routes by country to vendors, sends through provider adapters
 * (SMPP, WhatsApp Cloud API, Telegram Bot API, Telegram private, simulator), follows receipts to a final status,
 * and emits status changes, EDRs, refunds and inbound messages through its outbox.
 * Needs PlatformModule.forRoot (DATABASE_URL, EventBus, RealtimeFanout, PROCESS_ROLES).
 */
@Module({})
export class DispatchModule {
  static register(options: DispatchModuleOptions = {}): DynamicModule {
    const resolved = resolveDispatchOptions(options);
    return {
      module: DispatchModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: DISPATCH_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, DISPATCH_SCHEMA);
            return {
              ...serviceDataSourceOptions({
                name: DISPATCH_CONNECTION,
                url,
                schema: DISPATCH_SCHEMA,
                entities: [],
                migrations: DISPATCH_MIGRATIONS,
                migrationsRun: resolved.migrationsRun,
                poolSize: 12,
              }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      controllers: [ServiceTypeManagerController, ChannelsController, MessageResponsesController, WebhooksController, InboundUnclaimedController, InboundMediaController, DeadLettersController],
      providers: [
        { provide: DISPATCH_OPTIONS, useValue: resolved },
        MessageRepository,
        RoutingRepository,
        ReadModelRepository,
        RateShareRepository,
        DispatchOutboxRelay,
        MessageRealtime,
        RoutingService,
        StreamChannelCache,
        AdapterRegistry,
        OptOutBook,
        CampaignHolds,
        InboundService,
        InboundMediaService,
        InboundUnclaimedService,
        Dispatcher,
        TelegramAuthService,
        ReadModelConsumers,
        ReconcileResponder,
        RoutingAdminService,
        MessageResponsesService,
        VendorSeeder,
        WebhookService,
        WebhookRawBody,
        StuckMessageSweeper,
      ],
      exports: [Dispatcher, RoutingService],
    };
  }
}
