import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { Clock } from './clock';
import { ReadModelsConsumer } from './consumers/read-models.consumer';
import { CampaignsController, CampaignStreamEventsController } from './controllers/campaigns.controller';
import {
  CampaignSendersController,
  CampaignTagsController,
  CampaignToolsController,
  CampaignVariablesController,
  CampaignVariantsController,
  TemplatesController,
  VariantsController,
  WordListsController,
  WordsController,
} from './controllers/catalog.controller';
import { CAMPAIGNS_MIGRATIONS } from './migrations';
import { EstimateService } from './run/estimate.service';
import { CampaignRunController } from './run/run.controller';
import { RunnerDatabase } from './run/runner-db';
import { RunnerConsumers } from './run/runner.consumers';
import { resolveRunnerOptions, RUNNER_OPTIONS } from './run/runner.options';
import { CampaignRunner } from './run/runner.service';
import { StatusReconciler } from './run/status-reconcile.service';
import { CampaignService } from './services/campaign.service';
import { CampaignScheduler } from './services/campaign-scheduler';
import { CampaignPartsService } from './services/campaign-parts.service';
import { TemplateService } from './services/template.service';
import { CampaignStatusService } from './services/campaign-status.service';
import { CampaignsOutboxRelay, CampaignsUnitOfWork } from './services/campaigns-events.service';
import { CAMPAIGNS_CONNECTION, CAMPAIGNS_OPTIONS, CAMPAIGNS_SCHEMA, createClock, resolveCampaignsOptions, type CampaignsModuleOptions } from './campaigns.options';

/**
 * Campaigns: templates and variants, word lists, tags, campaign variables and senders, campaigns and their status
 * machine, spintax (docs/decisions/0031-campaigns.md). Needs PlatformModule.forRoot (DATABASE_URL, EventBus,
 * RealtimeFanout, TokenVerifier, PROCESS_ROLES).
 */
@Module({})
export class CampaignsModule {
  static register(options: CampaignsModuleOptions = {}): DynamicModule {
    const resolved = resolveCampaignsOptions(options);
    return {
      module: CampaignsModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: CAMPAIGNS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, CAMPAIGNS_SCHEMA);
            return {
              ...serviceDataSourceOptions({ name: CAMPAIGNS_CONNECTION, url, schema: CAMPAIGNS_SCHEMA, entities: [], migrations: CAMPAIGNS_MIGRATIONS, migrationsRun: resolved.migrationsRun, poolSize: 10 }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      // the tools first: their static paths sit beside `campaigns/:id`
      controllers: [
        CampaignRunController,
        CampaignToolsController,
        CampaignsController,
        CampaignStreamEventsController,
        CampaignVariablesController,
        CampaignSendersController,
        CampaignVariantsController,
        CampaignTagsController,
        TemplatesController,
        VariantsController,
        WordListsController,
        WordsController,
      ],
      providers: [
        { provide: CAMPAIGNS_OPTIONS, useValue: resolved },
        { provide: Clock, useValue: createClock(options) },
        CampaignsOutboxRelay,
        CampaignsUnitOfWork,
        ReadModelsConsumer,
        { provide: RUNNER_OPTIONS, useValue: resolveRunnerOptions(options.runner) },
        RunnerDatabase,
        CampaignRunner,
        RunnerConsumers,
        StatusReconciler,
        EstimateService,
        CampaignStatusService,
        CampaignService,
        CampaignPartsService,
        TemplateService,
        CampaignScheduler,
      ],
      exports: [CampaignsUnitOfWork, CampaignsOutboxRelay, CampaignStatusService],
    };
  }
}
