/** Dispatch's service types and adapter kinds (services/dispatch: vendors, channels, country routes). */
export const SERVICE_TYPES = ['sms', 'whatsapp', 'telegram', 'telegram_private'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];
export const ADAPTERS = ['smpp', 'simulator', 'whatsapp', 'telegram_bot', 'telegram_private'] as const;
export type Adapter = (typeof ADAPTERS)[number];
/** Which adapters serve which service type (the simulator serves all). */
export const ADAPTERS_OF: Record<ServiceType, Adapter[]> = {
  sms: ['smpp', 'simulator'],
  whatsapp: ['whatsapp', 'simulator'],
  telegram: ['telegram_bot', 'simulator'],
  telegram_private: ['telegram_private', 'simulator'],
};
/** Vendors a country route names, in failover order. */
export const MAX_ROUTE_VENDORS = 4;
/** Spec 3: a channel's routing provider is 1 to 4. */
export const ROUTING_PROVIDERS = [1, 2, 3, 4] as const;

/** The six decline reasons of spec 4 (keys; the texts are the streams area's `streams.declineReasons.*`). */
export const DECLINE_REASONS = ['brand_mismatch', 'generic_name', 'impersonation', 'misleading_content', 'missing_documents', 'country_restriction'] as const;

export const CURRENCY = /^[A-Z]{3}$/;
export const COUNTRIES_PER_PAGE = 1000;
export const CUSTOMERS_PER_PAGE = 2000;
