import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { Clock } from './clock';
import { ReadModelsConsumer } from './consumers/read-models.consumer';
import { SendBatchesConsumer } from './consumers/send-batches.consumer';
import { StreamApiController } from './controllers/stream-api.controller';
import { MaliciousKeywordsController, SendersController, StreamEventsController } from './controllers/senders.controller';
import { MessageResponsesController, StreamToolsController, TechProviderController } from './controllers/stream-tools.controller';
import { StreamsController } from './controllers/streams.controller';
import { STREAMS_ENTITIES } from './entities';
import { STREAMS_MIGRATIONS } from './migrations';
import { TelegramClient, WhatsAppClient } from './providers/provider-clients';
import { ActivityService } from './services/activity.service';
import { ConsoleToolsService } from './services/console-tools.service';
import { HousekeepingService } from './services/housekeeping.service';
import { InboundBackfillService } from './services/inbound-backfill.service';
import { InboundClaimService } from './services/inbound-claims.service';
import { LookupsService } from './services/lookups.service';
import { OtpService } from './services/otp.service';
import { SendDatabase } from './services/send-database';
import { SendService } from './services/send.service';
import { KeywordService, SenderService } from './services/sender.service';
import { StatsService } from './services/stats.service';
import { StreamAuthService } from './services/stream-auth.service';
import { StreamEventService } from './services/stream-event.service';
import { StreamService } from './services/stream.service';
import { StreamsOutboxRelay, StreamsUnitOfWork } from './services/streams-events.service';
import { UndispatchedSweeper } from './services/undispatched-sweeper.service';
import { ChargeReconcileResponder } from './consumers/charge-reconcile.consumer';
import { createClock, resolveStreamsOptions, STREAMS_CONNECTION, STREAMS_OPTIONS, STREAMS_SCHEMA, type StreamsModuleOptions } from './streams.options';

/**
 * Streams, stream tokens, the stream API (send, OTP), senders, stream events, the malicious keyword list, provider
 * previews and proxies; the billing point of the send pipeline (docs/decisions/0014-streams.md).
 * Needs PlatformModule.forRoot (DATABASE_URL, EventBus, RealtimeFanout, TokenVerifier, PROCESS_ROLES).
 */
@Module({})
export class StreamsModule {
  static register(options: StreamsModuleOptions): DynamicModule {
    const resolved = resolveStreamsOptions(options);
    return {
      module: StreamsModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: STREAMS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, STREAMS_SCHEMA);
            return {
              ...serviceDataSourceOptions({
                name: STREAMS_CONNECTION,
                url,
                schema: STREAMS_SCHEMA,
                entities: STREAMS_ENTITIES,
                migrations: STREAMS_MIGRATIONS,
                migrationsRun: resolved.migrationsRun,
              }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
        TypeOrmModule.forFeature(STREAMS_ENTITIES, STREAMS_CONNECTION),
      ],
      // The stream API first: its static POST paths sit beside the console's `streams/:id` routes.
      controllers: [StreamApiController, StreamsController, StreamToolsController, TechProviderController, MessageResponsesController, SendersController, MaliciousKeywordsController, StreamEventsController],
      providers: [
        { provide: STREAMS_OPTIONS, useValue: resolved },
        { provide: Clock, useValue: createClock(options) },
        SendDatabase,
        StreamsOutboxRelay,
        StreamsUnitOfWork,
        LookupsService,
        ActivityService,
        StreamAuthService,
        SendService,
        OtpService,
        InboundClaimService,
        StreamService,
        SenderService,
        InboundBackfillService,
        KeywordService,
        StreamEventService,
        StatsService,
        WhatsAppClient,
        TelegramClient,
        ConsoleToolsService,
        ReadModelsConsumer,
        SendBatchesConsumer,
        HousekeepingService,
        UndispatchedSweeper,
        ChargeReconcileResponder,
      ],
      exports: [SendService, StreamAuthService],
    };
  }
}
