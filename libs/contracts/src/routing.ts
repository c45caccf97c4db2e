/**
 * The routing API's answers (vendors, channels, routing history): one source for the dispatch service and the
 * console (apps/admin imports this file directly). No Nest imports.
 */

/** The spec's vendor shape (section 3: service_type, carrier, product_name, active, product_id, currency). */
export interface VendorDto {
  id: number;
  name: string;
  service_type: string;
  carrier: string;
  product_name: string;
  product_id: string;
  active: boolean;
  currency: string;
  adapter: string;
  /** Connection settings with secrets masked. */
  config: Record<string, unknown>;
}

export interface ChannelDto {
  id: number;
  name: string;
  active: boolean;
  stsMethods: string[];
  routingProvider: number;
}

/** One change of a country's routing, as GET /routing/history answers it. */
export interface RoutingHistoryDto {
  id: string;
  accountId: string | null;
  iso2: string;
  serviceType: string;
  previousVendorIds: string[] | null;
  vendorIds: string[] | null;
  changedBy: string | null;
  changedAt: string;
}
