import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { ACCOUNTS_CONNECTION, ACCOUNTS_OPTIONS, ACCOUNTS_SCHEMA, resolveAccountsOptions, type AccountsModuleOptions } from './accounts.options';
import { MessagingConsumer } from './consumers/messaging.consumer';
import { CountryController, TimezoneController } from './controllers/country.controller';
import { CustomerController } from './controllers/customer.controller';
import { UsageController } from './controllers/usage.controller';
import { ACCOUNTS_ENTITIES } from './entities';
import { ACCOUNTS_MIGRATIONS } from './migrations';
import { CountryRepository, CustomerRepository, FeatureRequestRepository, LedgerRepository, UsageRepository } from './repositories';
import { AccountGate } from './services/account-gate.service';
import { AccountsBootstrapService } from './services/accounts-bootstrap.service';
import { AccountsOutboxRelay, AccountsUnitOfWork } from './services/accounts-events.service';
import { BalanceService } from './services/balance.service';
import { ChargeReconciler } from './services/charge-reconcile.service';
import { CountryService } from './services/country.service';
import { CustomerService } from './services/customer.service';
import { DropdownService } from './services/dropdown.service';
import { FeatureRequestService } from './services/feature-request.service';
import { UsageService } from './services/usage.service';

/**
 * Customers (tenants), their settings, status, balance ledger and daily usage, feature requests, countries, time
 * zones, sending hours and prices. Needs PlatformModule.forRoot (DATABASE_URL, EventBus, RealtimeFanout, Mailer,
 * TokenVerifier, PROCESS_ROLES).
 */
@Module({})
export class AccountsModule {
  static register(options: AccountsModuleOptions = {}): DynamicModule {
    const resolved = resolveAccountsOptions(options);
    return {
      module: AccountsModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: ACCOUNTS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, ACCOUNTS_SCHEMA);
            return {
              ...serviceDataSourceOptions({
                name: ACCOUNTS_CONNECTION,
                url,
                schema: ACCOUNTS_SCHEMA,
                entities: ACCOUNTS_ENTITIES,
                migrations: ACCOUNTS_MIGRATIONS,
                migrationsRun: resolved.migrationsRun,
              }),
              // fail fast: the embedded server and the tests would otherwise wait half a minute on a bad URL
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
        TypeOrmModule.forFeature(ACCOUNTS_ENTITIES, ACCOUNTS_CONNECTION),
      ],
      controllers: [CustomerController, UsageController, CountryController, TimezoneController],
      providers: [
        { provide: ACCOUNTS_OPTIONS, useValue: resolved },
        CustomerRepository,
        LedgerRepository,
        UsageRepository,
        FeatureRequestRepository,
        CountryRepository,
        AccountsOutboxRelay,
        AccountsUnitOfWork,
        AccountGate,
        CustomerService,
        BalanceService,
        UsageService,
        FeatureRequestService,
        CountryService,
        DropdownService,
        MessagingConsumer,
        ChargeReconciler,
        AccountsBootstrapService,
      ],
      exports: [AccountsBootstrapService],
    };
  }
}
