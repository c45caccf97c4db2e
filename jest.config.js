/** One jest run for the whole repository: unit (*.spec.ts), integration (*.int-spec.ts) and browser (*.e2e-spec.ts) tests.
 * PostgreSQL, NATS and the Kafka mock broker are started once per run by the global setup; each test file gets its own database. */
const swcConfig = JSON.parse(require('fs').readFileSync(__dirname + '/.swcrc', 'utf8'));
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '/dist/',
    // broker tests (Kafka mock cluster, nats-server): left out only on request, never in CI (the global setup refuses)
    ...(process.env.SWITCHBOARD_SKIP_BROKER_TESTS === '1' ? ['kafka[^/]*\\.int-spec\\.ts$', 'nats[^/]*\\.int-spec\\.ts$', 'standalone[^/]*\\.int-spec\\.ts$', 'distributed[^/]*-spec\\.ts$'] : []),
  ],
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { ...swcConfig, swcrc: false }] },
  moduleNameMapper: {
    '^@switchboard/platform/testing$': '<rootDir>/libs/platform/src/testing/index.ts',
    '^@switchboard/integrations/testing$': '<rootDir>/services/integrations/src/testing/index.ts',
    '^@switchboard/(contracts|platform)$': '<rootDir>/libs/$1/src/index.ts',
    '^@switchboard/(auth|gateway|accounts|contacts|streams|dispatch|campaigns|links|inbox|webhooks|stats|integrations)$': '<rootDir>/services/$1/src/index.ts',
  },
  globalSetup: '<rootDir>/libs/platform/src/testing/global-setup.ts',
  globalTeardown: '<rootDir>/libs/platform/src/testing/global-teardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
};
