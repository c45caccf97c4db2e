export { StatsModule } from './stats.module';
export { STATS_CONNECTION, STATS_SCHEMA, type StatsModuleOptions } from './stats.options';
export { statsConfigSchema, statsModuleOptionsFromConfig, loadStatsConfig, type StatsConfig } from './stats.config';
export { STATS_MIGRATIONS } from './migrations';
export { RollupConsumer } from './consumers/rollup.consumer';
export { ReportService } from './services/report.service';
export { rebuildRollups } from './rebuild';
export { COUNT_TABLES, STATUS_COLUMNS, STATUSES } from './rollup-shape';
