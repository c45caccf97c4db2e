import { BalanceEntryEntity } from './balance-entry.entity';
import { CountrySettingEntity } from './country-setting.entity';
import { CountryEntity } from './country.entity';
import { CustomerEntity } from './customer.entity';
import { DailyUsageEntity } from './daily-usage.entity';
import { FeatureAccessRequestEntity } from './feature-access-request.entity';
import { TimezoneEntity } from './timezone.entity';

export * from './balance-entry.entity';
export * from './country-setting.entity';
export * from './country.entity';
export * from './customer.entity';
export * from './daily-usage.entity';
export * from './feature-access-request.entity';
export * from './timezone.entity';

export const ACCOUNTS_ENTITIES = [
  CustomerEntity,
  BalanceEntryEntity,
  DailyUsageEntity,
  FeatureAccessRequestEntity,
  CountryEntity,
  TimezoneEntity,
  CountrySettingEntity,
];
