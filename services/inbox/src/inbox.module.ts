import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { Clock } from './clock';
import { ConversationsController } from './controllers/conversations.controller';
import { InboxGenAiController } from './controllers/genai.controller';
import { ORGANISATION_CONTROLLERS } from './controllers/organisation.controller';
import { ReportsController } from './controllers/reports.controller';
import { INBOX_MIGRATIONS } from './migrations';
import { InboxAccess } from './services/access';
import { ConversationsService } from './services/conversations.service';
import { GenAiContextService } from './services/genai-context.service';
import { JoinService } from './services/join.service';
import { ReportsService } from './services/reports.service';
import { MessagingConsumer } from './services/messaging.consumer';
import { OrganisationService } from './services/organisation.service';
import { RoomEvents } from './services/rooms.service';
import { InboxOutboxRelay, InboxUnitOfWork, SendService } from './services/send.service';
import { SendWaiters } from './services/send-waiters';
import { ImportedAgentsConsumer } from './services/imported-agents.consumer';
import { ReadModelConsumer } from './services/read-model.consumer';
import { MediaController } from './media/media.controller';
import { MediaService } from './media/media.service';
import { MediaStorage } from './media/storage';
import { createClock, createMediaStorage, INBOX_CONNECTION, INBOX_OPTIONS, INBOX_SCHEMA, resolveInboxOptions, type InboxModuleOptions } from './inbox.options';

/**
 * The shared inbox: organisation, conversations from every channel, replies through streams, the websocket rooms'
 * events (docs/decisions/0035-inbox.md). Needs PlatformModule.forRoot (DATABASE_URL, EventBus, Realtime, TokenVerifier,
 * PROCESS_ROLES).
 */
@Module({})
export class InboxModule {
  static register(options: InboxModuleOptions = {}): DynamicModule {
    const resolved = resolveInboxOptions(options);
    return {
      module: InboxModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: INBOX_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, INBOX_SCHEMA);
            return {
              ...serviceDataSourceOptions({ name: INBOX_CONNECTION, url, schema: INBOX_SCHEMA, entities: [], migrations: INBOX_MIGRATIONS, migrationsRun: resolved.migrationsRun }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      // the reports' /inbox/{board}/{space}/... patterns last, after every fixed /inbox route
      controllers: [...ORGANISATION_CONTROLLERS, ConversationsController, MediaController, InboxGenAiController, ReportsController],
      providers: [{ provide: INBOX_OPTIONS, useValue: resolved }, { provide: Clock, useValue: createClock(options) }, ReadModelConsumer,
        ImportedAgentsConsumer,
        InboxAccess,
        OrganisationService,
        RoomEvents,
        ConversationsService,
        GenAiContextService,
        JoinService,
        SendWaiters,
        InboxOutboxRelay,
        InboxUnitOfWork,
        SendService,
        MessagingConsumer,
        { provide: MediaStorage, useFactory: () => createMediaStorage(options) },
        MediaService,
        ReportsService,
      ],
      exports: [],
    };
  }
}
