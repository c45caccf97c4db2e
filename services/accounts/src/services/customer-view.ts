import type { CustomerSnapshot } from '@switchboard/contracts';
import type { BalanceEntryEntity, CustomerEntity } from '../entities';
import { currencySign, fromMicros } from '../rules/money';
import { readCustomSettings, readGenSettings } from '../rules/settings';

/** The customer as the API shows it (spec 3: Account). Amounts in currency units; `balanceMicros` is the exact value. */
export interface CustomerDto {
  id: number;
  customId: string | null;
  portalId: string;
  name: string;
  shortName: string | null;
  active: number;
  status: string;
  balance: number;
  balanceMicros: string;
  currency: string;
  currencySign: string;
  tps: number;
  createdAt: string;
  customSettings: Record<string, unknown>;
  genSettings: Record<string, unknown>;
}

export function toCustomerDto(c: CustomerEntity): CustomerDto {
  return {
    id: Number(c.id),
    customId: c.customId,
    portalId: c.portalId,
    name: c.name,
    shortName: c.shortName,
    active: c.active,
    status: c.status,
    balance: fromMicros(c.balanceMicros),
    balanceMicros: String(c.balanceMicros),
    currency: c.currency,
    currencySign: currencySign(c.currency),
    tps: c.tps,
    createdAt: new Date(c.createdAt).toISOString(),
    customSettings: readCustomSettings(c.customSettings),
    genSettings: readGenSettings(c.genSettings),
  };
}

/** The snapshot every customer event carries (auth and streams keep read models of it). */
export function toSnapshot(c: CustomerEntity): CustomerSnapshot {
  const custom = readCustomSettings(c.customSettings);
  return {
    accountId: String(c.id),
    name: c.name,
    shortName: c.shortName,
    status: c.status,
    active: c.active,
    currency: c.currency,
    tps: c.tps,
    dailyLimit: custom.streams_max_messages_per_day,
    customSettings: custom,
    genSettings: readGenSettings(c.genSettings),
    createdAt: new Date(c.createdAt).toISOString(),
  };
}

export interface DropdownCustomerDto {
  id: number;
  name: string;
  shortName: string | null;
  status: string;
  active: number;
}

export const toDropdownCustomer = (c: CustomerEntity): DropdownCustomerDto => ({ id: Number(c.id), name: c.name, shortName: c.shortName, status: c.status, active: c.active });

export interface BalanceEntryDto {
  id: number;
  kind: string;
  amount: number;
  amountMicros: string;
  currency: string;
  balanceAfter: number;
  balanceAfterMicros: string;
  reason: string;
  sourceId: string;
  createdBy: number | null;
  createdAt: string;
}

export const toBalanceEntryDto = (e: BalanceEntryEntity): BalanceEntryDto => ({
  id: Number(e.id),
  kind: e.kind,
  amount: fromMicros(e.amountMicros),
  amountMicros: String(e.amountMicros),
  currency: e.currency,
  balanceAfter: fromMicros(e.balanceAfterMicros),
  balanceAfterMicros: String(e.balanceAfterMicros),
  reason: e.reason,
  sourceId: e.sourceId,
  createdBy: e.createdBy === null ? null : Number(e.createdBy),
  createdAt: new Date(e.createdAt).toISOString(),
});
