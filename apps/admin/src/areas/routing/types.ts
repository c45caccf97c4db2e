/** The routing API's answers come from their one source (libs/contracts/src/routing.ts), under the console's names. */
import type { ChannelDto as ChannelDtoContract, RoutingHistoryDto as RoutingHistoryDtoContract, VendorDto as VendorDtoContract } from '@switchboard/contracts/src/routing';
export type Vendor = VendorDtoContract;
export type Channel = ChannelDtoContract;
export type RoutingHistoryRow = RoutingHistoryDtoContract;

export interface ListResult<T> {
  items: T[];
  total: number;
}

export interface VendorInput {
  name: string;
  service_type?: string;
  adapter?: string;
  carrier: string;
  product_name: string;
  product_id: string;
  currency: string;
  active: boolean;
  config?: Record<string, unknown>;
  routingProvider?: number;
}

export interface CountryRoute {
  id: string;
  accountId: string | null;
  iso2: string;
  serviceType: string;
  vendorIds: string[];
  updatedBy: string | null;
  updatedAt: string;
}

export interface CurrentRouting {
  iso2: string | null;
  serviceType: string;
  source: string;
  vendors: Vendor[];
}

export interface Country {
  id: number;
  name: string;
  iso2: string;
}

export interface CustomerOption {
  id: number;
  name: string;
  shortName: string | null;
  status: string;
  active: number;
}

/** A sender as super administrators see it: any account's. */
export interface AdminSender {
  id: number;
  name: string;
  value: string;
  createdAt: string;
  type: string;
  country: string | null;
  approved: number;
  declinedReason: string | null;
  accountId: number;
}
