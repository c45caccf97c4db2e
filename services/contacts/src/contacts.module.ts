import { AudienceConsumer } from './services/audience.consumer';
import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATA_DIR, DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { CONTACTS_CONNECTION, CONTACTS_OPTIONS, CONTACTS_SCHEMA, resolveContactsOptions, type ContactsModuleOptions } from './contacts.options';
import { BlackListController } from './controllers/black-list.controller';
import { ContactListController } from './controllers/contact-list.controller';
import { ContactController, ContactVariableController } from './controllers/contact.controller';
import { ImportListController } from './controllers/import-list.controller';
import { TaskController, TaskDownloadController } from './controllers/task.controller';
import { ExportProgressConsumer } from './services/export-progress.consumer';
import { VariableController } from './controllers/variable.controller';
import { CONTACTS_MIGRATIONS } from './migrations';
import { BlackListRepository } from './repositories/black-list.repository';
import { ContactListRepository } from './repositories/contact-list.repository';
import { ContactRepository } from './repositories/contact.repository';
import { ImportListRepository } from './repositories/import-list.repository';
import { TaskRepository } from './repositories/task.repository';
import { VariableRepository } from './repositories/variable.repository';
import { SelectionService } from './segments/selection.service';
import { BlackListService } from './services/black-list.service';
import { ContactListService } from './services/contact-list.service';
import { ContactService } from './services/contact.service';
import { ContactsOutboxRelay, ContactsRealtime, ContactsUnitOfWork } from './services/contacts-events.service';
import { ImportJobsService } from './services/import-jobs.service';
import { ImportListService } from './services/import-list.service';
import { IntegrationListController, IntegrationListsService } from './services/integration-lists.service';
import { OptOutConsumer } from './services/opt-out.consumer';
import { LinkOptOutConsumer } from './services/link-opt-out.consumer';
import { CampaignOptOutConsumer } from './services/campaign-opt-out.consumer';
import { TaskJobsService } from './services/task-jobs.service';
import { TaskService } from './services/task.service';
import { VariableService } from './services/variable.service';

/**
 * Import lists, contacts, variables, contact lists and segments, the blacklist and background tasks.
 * Needs PlatformModule.forRoot (DATABASE_URL, EventBus, RealtimeFanout, TokenVerifier; DATA_DIR in embedded mode).
 */
@Module({})
export class ContactsModule {
  static register(options: ContactsModuleOptions = {}): DynamicModule {
    return {
      module: ContactsModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: CONTACTS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, CONTACTS_SCHEMA);
            return {
              ...serviceDataSourceOptions({
                name: CONTACTS_CONNECTION,
                url,
                schema: CONTACTS_SCHEMA,
                entities: [],
                migrations: CONTACTS_MIGRATIONS,
                migrationsRun: options.migrationsRun ?? true,
                poolSize: 10,
              }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      controllers: [IntegrationListController, ImportListController, ContactController, ContactVariableController, VariableController, ContactListController, BlackListController, TaskController, TaskDownloadController],
      providers: [
        { provide: CONTACTS_OPTIONS, inject: [DATA_DIR], useFactory: (dataDir: string | undefined) => resolveContactsOptions(options, dataDir) },
        VariableRepository,
        ImportListRepository,
        ContactListRepository,
        ContactRepository,
        BlackListRepository,
        TaskRepository,
        ContactsOutboxRelay,
        ContactsUnitOfWork,
        ContactsRealtime,
        IntegrationListsService,
        VariableService,
        SelectionService,
        ContactService,
        ContactListService,
        ImportJobsService,
        ImportListService,
        BlackListService,
        OptOutConsumer,
        LinkOptOutConsumer,
        ExportProgressConsumer,
        CampaignOptOutConsumer,
        AudienceConsumer,
        TaskJobsService,
        TaskService,
      ],
      exports: [ImportJobsService, TaskJobsService],
    };
  }
}
