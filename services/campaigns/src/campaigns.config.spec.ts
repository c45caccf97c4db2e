import { campaignsModuleOptionsFromConfig, loadCampaignsConfig } from './campaigns.config';
import { resolveRunnerOptions } from './run/runner.options';

const env = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  JWT_PUBLIC_KEY: 'a-key',
  KAFKA_BROKERS: '127.0.0.1:9092',
};

/** Campaigns asking dispatch for the statuses it lost (docs/decisions/0093). */
describe('campaigns configuration: CAMPAIGNS_STATUSES_*', () => {
  it('asks after 30 minutes, every minute, 1000 a request and 10 requests a sweep by default, and takes each from the environment', () => {
    expect(campaignsModuleOptionsFromConfig(loadCampaignsConfig(env)).runner?.statuses).toEqual({ afterMs: 1_800_000, intervalMs: 60_000, batch: 1000, requestsPerSweep: 10 });
    const set = { CAMPAIGNS_STATUSES_AFTER_MS: '60000', CAMPAIGNS_STATUSES_INTERVAL_MS: '5000', CAMPAIGNS_STATUSES_BATCH: '500', CAMPAIGNS_STATUSES_REQUESTS_PER_SWEEP: '4' };
    expect(campaignsModuleOptionsFromConfig(loadCampaignsConfig({ ...env, ...set })).runner?.statuses).toEqual({ afterMs: 60_000, intervalMs: 5000, batch: 500, requestsPerSweep: 4 });
    expect(resolveRunnerOptions({}).statuses).toEqual({ afterMs: 1_800_000, intervalMs: 60_000, batch: 1000, requestsPerSweep: 10 });
  });

  it('refuses a request larger than dispatch answers (1000 recipients)', () => {
    expect(() => loadCampaignsConfig({ ...env, CAMPAIGNS_STATUSES_BATCH: '1001' })).toThrow(/CAMPAIGNS_STATUSES_BATCH/);
    expect(() => resolveRunnerOptions({ statuses: { batch: 1001 } })).toThrow(/statuses.batch/);
  });
});
