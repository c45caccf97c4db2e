export interface ListResult<T> {
  items: T[];
  total: number;
}

/** Spec 3, Vendor (and dispatch's extras: name, adapter, config with secrets masked). */
export interface Vendor {
  id: number;
  name: string;
  service_type: string;
  carrier: string;
  product_name: string;
  product_id: string;
  active: boolean;
  currency: string;
  adapter: string;
  config: Record<string, unknown>;
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

/** Spec 3, Channel. */
export interface Channel {
  id: number;
  name: string;
  active: boolean;
  stsMethods: string[];
  routingProvider: number;
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

export interface RoutingHistoryRow {
  id: string;
  accountId: string | null;
  iso2: string;
  serviceType: string;
  previousVendorIds: string[] | null;
  vendorIds: string[] | null;
  changedBy: string | null;
  changedAt: string;
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
