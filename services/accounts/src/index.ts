export { AccountsModule } from './accounts.module';
export { ACCOUNTS_CONNECTION, ACCOUNTS_SCHEMA, DEFAULT_AVAILABILITY, type AccountsModuleOptions } from './accounts.options';
export { accountsConfigSchema, accountsModuleOptionsFromConfig, loadAccountsConfig, type AccountsConfig } from './accounts.config';
export { AccountsBootstrapService, type AccountsSeedInput, type AccountsSeedResult } from './services/accounts-bootstrap.service';
export type { NewCustomerInput } from './services/customer.service';
export { ACCOUNTS_GROUPS } from './consumers/messaging.consumer';
export { ACCOUNTS_ENTITIES } from './entities';
export { ACCOUNTS_MIGRATIONS } from './migrations';
export { CUSTOM_SETTINGS_DEFAULTS, GEN_SETTINGS_DEFAULTS } from './rules/settings';
