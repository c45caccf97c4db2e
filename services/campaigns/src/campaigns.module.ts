import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { Clock } from './clock';
import { ReadModelsConsumer } from './consumers/read-models.consumer';
import { CampaignsController, CampaignStreamEventsController } from './controllers/campaigns.controller';
import { CAMPAIGNS_MIGRATIONS } from './migrations';
import { RunnerDatabase } from './run/runner-db';
import { RunnerConsumers } from './run/runner.consumers';
import { resolveRunnerOptions, RUNNER_OPTIONS } from './run/runner.options';
import { CampaignRunner } from './run/runner.service';
import { CampaignService } from './services/campaign.service';
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
      controllers: [CampaignsController, CampaignStreamEventsController],
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
        CampaignStatusService,
        CampaignService,
      ],
      exports: [CampaignsUnitOfWork, CampaignsOutboxRelay, CampaignStatusService],
    };
  }
}
