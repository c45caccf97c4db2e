import { loadStreamsConfig, streamsModuleOptionsFromConfig } from './streams.config';

const env = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  JWT_PUBLIC_KEY: 'a-key',
  KAFKA_BROKERS: '127.0.0.1:9092',
  STREAMS_SECRET: 'a-streams-secret-of-16+',
  PROVIDER_SECRETS_KEY: 'a-provider-secrets-key',
};

/** SEED_DEMO (docs/decisions/0030): embedded mode's demo price, 0.05 per SMS part where a country has no price. */
describe('streams configuration: SEED_DEMO', () => {
  it('prices every part 0.05 with the flag, and leaves unpriced countries refused without it', () => {
    expect(streamsModuleOptionsFromConfig(loadStreamsConfig({ ...env, SEED_DEMO: 'true' })).defaultPriceMicros).toBe(50_000);
    expect(streamsModuleOptionsFromConfig(loadStreamsConfig(env)).defaultPriceMicros).toBeUndefined();
    expect(streamsModuleOptionsFromConfig(loadStreamsConfig({ ...env, SEED_DEMO: 'false' })).defaultPriceMicros).toBeUndefined();
  });
});

/** The sweeper of accepted messages dispatch never got (docs/decisions/0087). */
describe('streams configuration: STREAMS_UNDISPATCHED_*', () => {
  it('asks after 15 minutes, every minute, 1000 a request and 10 requests a sweep by default, and takes each from the environment', () => {
    expect(streamsModuleOptionsFromConfig(loadStreamsConfig(env)).undispatched).toEqual({ afterMs: 900_000, intervalMs: 60_000, batch: 1000, requestsPerSweep: 10 });
    const set = { STREAMS_UNDISPATCHED_AFTER_MS: '60000', STREAMS_UNDISPATCHED_INTERVAL_MS: '5000', STREAMS_UNDISPATCHED_BATCH: '500', STREAMS_UNDISPATCHED_REQUESTS_PER_SWEEP: '4' };
    expect(streamsModuleOptionsFromConfig(loadStreamsConfig({ ...env, ...set })).undispatched).toEqual({ afterMs: 60_000, intervalMs: 5000, batch: 500, requestsPerSweep: 4 });
  });

  it('refuses a request larger than dispatch answers (1000 messages)', () => {
    expect(() => loadStreamsConfig({ ...env, STREAMS_UNDISPATCHED_BATCH: '1001' })).toThrow(/STREAMS_UNDISPATCHED_BATCH/);
  });
});

/** A send batch's events written compactly (docs/decisions/0210). */
describe('streams configuration: STREAMS_COMPACT_SEND_ROWS', () => {
  it('is on by default and off when set false (while an older streams process runs, or before a rollback)', () => {
    expect(streamsModuleOptionsFromConfig(loadStreamsConfig(env)).compactSendRows).toBe(true);
    expect(streamsModuleOptionsFromConfig(loadStreamsConfig({ ...env, STREAMS_COMPACT_SEND_ROWS: 'false' })).compactSendRows).toBe(false);
  });
});
