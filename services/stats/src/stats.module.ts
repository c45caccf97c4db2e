import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATA_DIR, DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { CampaignEventsConsumer } from './consumers/campaign-events.consumer';
import { RollupConsumer } from './consumers/rollup.consumer';
import { CampaignDomainStatisticsController, CampaignReportsController, CampaignStatsController } from './controllers/campaign-reports.controller';
import { DashboardStatisticsController } from './controllers/dashboard-statistics.controller';
import { StreamsStatisticsController } from './controllers/streams-statistics.controller';
import { MessageExportsController } from './controllers/message-exports.controller';
import { ExportService, StatsOutboxRelay, StatsUnitOfWork } from './exports/export.service';
import { STATS_MIGRATIONS } from './migrations';
import { ReportCache } from './services/report-cache';
import { CampaignReportService } from './services/campaign-report.service';
import { ReportService } from './services/report.service';
import { resolveStatsOptions, STATS_CONNECTION, STATS_OPTIONS, STATS_SCHEMA, type StatsModuleOptions } from './stats.options';

/**
 * Statistics: rollups fed by the messaging events and the report calls answered from them. Owns no business rules.
 * Needs PlatformModule.forRoot (DATABASE_URL, EventBus, TokenVerifier).
 */
@Module({})
export class StatsModule {
  static register(options: StatsModuleOptions = {}): DynamicModule {
    return {
      module: StatsModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: STATS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, STATS_SCHEMA);
            return {
              ...serviceDataSourceOptions({ name: STATS_CONNECTION, url, schema: STATS_SCHEMA, entities: [], migrations: STATS_MIGRATIONS, migrationsRun: options.migrationsRun ?? true, poolSize: 10 }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      controllers: [DashboardStatisticsController, StreamsStatisticsController, CampaignReportsController, CampaignStatsController, CampaignDomainStatisticsController, MessageExportsController],
      providers: [
        { provide: STATS_OPTIONS, inject: [DATA_DIR], useFactory: (dataDir: string | undefined) => resolveStatsOptions(options, dataDir) },
        StatsOutboxRelay,
        StatsUnitOfWork,
        ExportService, ReportCache, ReportService, CampaignReportService, RollupConsumer, CampaignEventsConsumer],
      exports: [RollupConsumer, ReportService],
    };
  }
}
