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
