import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { CustomerSnapshot } from '@switchboard/contracts';
import { ACCOUNTS_OPTIONS, type ResolvedAccountsOptions } from '../accounts.options';
import type { CustomerEntity } from '../entities';
import { CustomerRepository } from '../repositories';
import { AccountsUnitOfWork } from './accounts-events.service';
import { BalanceService } from './balance.service';
import { CountryService } from './country.service';
import { toSnapshot } from './customer-view';
import { CustomerService, shortNameOf, type NewCustomerInput } from './customer.service';

export interface AccountsSeedInput {
  demoAccountName: string;
  /** Credit put on a newly created demo account, in currency units (default 100). */
  demoCredit?: number;
}

export interface AccountsSeedResult {
  demoAccountId: string;
  /** What CustomerCreatedV1 carried: lets auth write its read-model row at once instead of waiting for the event. */
  snapshot: CustomerSnapshot;
  created: boolean;
}

/** Loads the countries at start, and seeds the demo account (embedded first start) and test accounts. */
@Injectable()
export class AccountsBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('accounts');

  constructor(
    private readonly customers: CustomerRepository,
    private readonly customerService: CustomerService,
    private readonly balances: BalanceService,
    private readonly countries: CountryService,
    private readonly uow: AccountsUnitOfWork,
    @Inject(ACCOUNTS_OPTIONS) private readonly options: ResolvedAccountsOptions,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.options.syncCountries) await this.countries.sync();
  }

  /**
   * Idempotent: the demo account by name, created (active, approved, with a starting credit) when missing. Its
   * CustomerCreatedV1 and BalanceAdjustedV1 go through the outbox like any other change.
   */
  async seed(input: AccountsSeedInput): Promise<AccountsSeedResult> {
    // replicas started together (SEED_DEMO) take turns, so the later ones find the account and create nothing
    return this.customers.withAdvisoryLock(`switchboard.seed:accounts:${input.demoAccountName}`, () => this.seedLocked(input));
  }

  private async seedLocked(input: AccountsSeedInput): Promise<AccountsSeedResult> {
    const existing = await this.customers.findOldestByName(input.demoAccountName);
    if (existing) return { demoAccountId: existing.id, snapshot: toSnapshot(existing), created: false };
    const credit = BigInt(Math.round((input.demoCredit ?? 100) * 1_000_000));
    const row = await this.uow.run(async (m, emit, notify) => {
      const c = await this.customerService.insert({ name: input.demoAccountName, shortName: shortNameOf(input.demoAccountName), active: 1 }, m, emit);
      if (credit !== 0n) await this.balances.adjustIn(m, emit, notify, { accountId: c.id, currency: c.currency, amountMicros: credit, reason: 'demo credit', createdBy: null });
      return c;
    });
    this.logger.log(`seeded account "${row.name}" (#${row.id})`);
    return { demoAccountId: row.id, snapshot: toSnapshot(row), created: true };
  }

  /** For tests and operators' scripts: a customer, with its CustomerCreatedV1. */
  async createCustomer(input: NewCustomerInput): Promise<CustomerEntity> {
    return this.uow.run((m, emit) => this.customerService.insert(input, m, emit));
  }
}
