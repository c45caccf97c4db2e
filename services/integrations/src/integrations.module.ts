import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { Clock } from './clock';
import { GENAI_CONTROLLERS, GENAI_OPTIONS, GENAI_SERVICES_LIST, resolveGenAiOptions } from './genai';
import { IntegrationConfigController, IntegrationKeysController } from './controllers/integrations.controller';
import { createClock, INTEGRATIONS_CONNECTION, INTEGRATIONS_OPTIONS, INTEGRATIONS_SCHEMA, resolveIntegrationsOptions, type IntegrationsModuleOptions } from './integrations.options';
import { INTEGRATIONS_MIGRATIONS } from './migrations';
import { CredentialVault } from './services/credentials';
import { DialerService } from './services/dialer.service';
import { NotesService } from './services/notes.service';
import { OutboundAddresses } from './services/outbound';
import { IntegrationsService } from './services/integrations.service';
import { IntegrationListsConsumer } from './services/lists.consumer';
import { CloseNotesConsumer } from './services/close-notes.consumer';
import { IntegrationsOutboxRelay, IntegrationsUnitOfWork } from './services/outbox';
import { SyncWorker } from './services/sync.worker';

/**
 * CRM and shop integrations: connectors, credentials sealed at rest, the completion screen's config, the sync of
 * users and contacts (docs/decisions/0040-integrations.md). Needs PlatformModule.forRoot (DATABASE_URL, EventBus,
 * Realtime, TokenVerifier, PROCESS_ROLES).
 */
@Module({})
export class IntegrationsModule {
  static register(options: IntegrationsModuleOptions): DynamicModule {
    const resolved = resolveIntegrationsOptions(options);
    return {
      module: IntegrationsModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: INTEGRATIONS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, INTEGRATIONS_SCHEMA);
            return {
              ...serviceDataSourceOptions({ name: INTEGRATIONS_CONNECTION, url, schema: INTEGRATIONS_SCHEMA, entities: [], migrations: INTEGRATIONS_MIGRATIONS, migrationsRun: resolved.migrationsRun }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      controllers: [IntegrationKeysController, IntegrationConfigController, ...GENAI_CONTROLLERS],
      providers: [
        { provide: INTEGRATIONS_OPTIONS, useValue: resolved },
        { provide: Clock, useValue: createClock(options) },
        IntegrationsOutboxRelay,
        IntegrationsUnitOfWork,
        OutboundAddresses,
        CredentialVault,
        IntegrationsService,
        DialerService,
        NotesService,
        SyncWorker,
        IntegrationListsConsumer,
        CloseNotesConsumer,
        // generative AI: its own module folder (src/genai), the service's schema and connection
        { provide: GENAI_OPTIONS, useValue: resolveGenAiOptions(options.genai) },
        ...GENAI_SERVICES_LIST,
      ],
      exports: [IntegrationsService, SyncWorker],
    };
  }
}
