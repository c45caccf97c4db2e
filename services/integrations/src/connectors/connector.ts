import type { ContactFieldType, IntegrationAuthMode, IntegrationContactFieldDto, IntegrationTypeValue } from '@switchboard/contracts';
import type { VendorHttp } from './http';

/**
 * The connector framework (docs/decisions/0040-integrations.md): one small interface per capability, each vendor
 * implements the ones its API has. The sync worker and the routes only talk to these interfaces; the vendor's wire
 * format (auth, paging, field names) stays inside its connector file.
 */

/** What the sealed credentials hold once opened (in memory of the call only). */
export interface Credentials {
  accessToken?: string;
  refreshToken?: string;
  apiKey?: string;
  /** ISO time the access token expires; absent for keys and non-expiring tokens. */
  expiresAt?: string;
  /** Vendor-specific addresses learnt at authorisation (Zoho's api_domain, Pipedrive's api_domain). */
  apiDomain?: string;
}

/** The tokens of an OAuth code exchange or refresh. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Seconds the access token lives, as the vendor says. */
  expiresIn?: number;
  apiDomain?: string;
}

/** Where this integration reaches its vendor: the platform's endpoints, or the integration's own (shop, company). */
export interface ResolvedEndpoints {
  apiUrl: string;
  authorizeUrl: string | null;
  tokenUrl: string | null;
}

/** Everything a capability call needs. */
export interface ConnectorContext {
  http: VendorHttp;
  endpoints: ResolvedEndpoints;
  credentials: Credentials;
  /** The shop (Shopify), company (Pipedrive) or region the account gave, if any. */
  domain: string | null;
}

export interface CrmUser {
  externalId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  admin: boolean;
  /** The profile's id (see `profiles`). */
  profile: string | null;
  active: boolean;
}

export interface CrmProfile {
  id: string;
  name: string;
}

export interface CrmContact {
  externalId: string;
  /** The best phone the vendor has (mobile before work); contacts without one are skipped by the lists. */
  phone: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  /** The CRM's own fields by their vendor name. */
  fields: Record<string, string | number | boolean | null>;
  /** The vendor's last-modified time, ISO. */
  updatedAt: string | null;
}

export interface ContactPage {
  items: CrmContact[];
  /** Opaque to the worker: the next page's cursor, null after the last page. */
  next: string | null;
  /** How many there are in all, when the vendor says. */
  total: number | null;
}

export interface ChangePage {
  items: CrmContact[];
  /** externalIds the vendor reports deleted (vendors without a deleted feed report none: full syncs catch them). */
  deleted: string[];
  next: string | null;
  /** Where the next incremental run starts (ISO time or the vendor's own token), once this run's pages are done. */
  watermark: string;
}

export interface CompanyInfo {
  companyName: string | null;
}

/** Authorise with the vendor's OAuth 2 authorisation-code flow, and refresh before expiry. */
export interface OAuthCapability {
  authorizeUrl(ctx: { endpoints: ResolvedEndpoints; clientId: string; redirectUri: string; state: string; domain: string | null }): string;
  exchangeCode(ctx: ConnectorContext, args: { code: string; clientId: string; clientSecret: string; redirectUri: string }): Promise<TokenSet>;
  /** Vendors whose tokens do not expire (Shopify offline tokens, Intercom) have no refresh. */
  refresh?(ctx: ConnectorContext, args: { refreshToken: string; clientId: string; clientSecret: string }): Promise<TokenSet>;
}

/** Authorise with a key the customer pastes (manual install): checked against the vendor before it is kept. */
export interface ApiKeyCapability {
  verifyKey(ctx: ConnectorContext): Promise<CompanyInfo>;
}

export interface CompanyCapability {
  company(ctx: ConnectorContext): Promise<CompanyInfo>;
}

export interface UsersCapability {
  profiles(ctx: ConnectorContext): Promise<CrmProfile[]>;
  listUsers(ctx: ConnectorContext): Promise<CrmUser[]>;
}

export interface ContactsCapability {
  contactFields(ctx: ConnectorContext): Promise<IntegrationContactFieldDto[]>;
  /** `fields`: the vendor field names to bring along (from `contactFields`); vendors that answer every field ignore it. */
  listContacts(ctx: ConnectorContext, args: { cursor: string | null; limit: number; fields: string[] }): Promise<ContactPage>;
  /** How many contacts there are, for the progress bar, when the vendor can say it cheaply. */
  countContacts?(ctx: ConnectorContext): Promise<number | null>;
}

export interface ChangesCapability {
  /** Contacts changed after `since` (a watermark an earlier run returned, or the full sync's start time). */
  listChanges(ctx: ConnectorContext, args: { since: string; cursor: string | null; limit: number; fields: string[] }): Promise<ChangePage>;
}

/**
 * Contacts deleted in the CRM, for the incremental run (a full sync removes whatever it did not see). A vendor with a
 * feed of deletions answers `listDeleted`; a vendor without one is asked about the contacts the mirror knows
 * (`goneOf`), a page of ids at a time. Either way the worker applies only ids its mirror has, so an id reported twice
 * (or one this integration never synced) changes nothing.
 */
export interface DeletionsCapability {
  /** A page of contacts deleted (archived, destroyed) after `since`, and where the next run starts. */
  listDeleted?(ctx: ConnectorContext, args: { since: string; cursor: string | null; limit: number }): Promise<{ deleted: string[]; next: string | null; watermark: string }>;
  /** Of these known contact ids, those the vendor no longer has as a live contact. */
  goneOf?(ctx: ConnectorContext, args: { ids: string[] }): Promise<string[]>;
}

export interface ActivityCapability {
  /** A note or activity on the CRM contact (a conversation's summary, a call). */
  pushNote(ctx: ConnectorContext, args: { externalId: string; text: string; occurredAt: string }): Promise<void>;
}

/** A vendor: its description and the capabilities it implements. */
export interface Connector {
  type: IntegrationTypeValue;
  name: string;
  authMode: IntegrationAuthMode;
  /** Spec 6: Pipedrive is admin-only. */
  adminOnly: boolean;
  /** The vendor's documented production endpoints. `{domain}` is replaced by the integration's domain. */
  defaults: { apiUrl: string; authorizeUrl: string | null; tokenUrl: string | null };
  /** A domain is required (Shopify shop) or optional (Pipedrive company, Zoho region); the pattern it must match. */
  domain: { required: boolean; pattern: RegExp } | null;
  /** The link to a contact in the vendor's own app, when there is one. */
  contactUrl?(ctx: { domain: string | null; credentials: Credentials }, externalId: string): string | null;
  oauth?: OAuthCapability;
  apiKey?: ApiKeyCapability;
  company?: CompanyCapability;
  users?: UsersCapability;
  contacts?: ContactsCapability;
  changes?: ChangesCapability;
  deletions?: DeletionsCapability;
  activity?: ActivityCapability;
}

/** Filters every field type offers (contacts evaluates them on the list's contact variables). */
export function operatorsFor(type: ContactFieldType): Array<'eq' | 'neq' | 'contains' | 'gt' | 'lt' | 'in' | 'empty' | 'not_empty'> {
  switch (type) {
    case 'number':
    case 'date':
      return ['eq', 'neq', 'gt', 'lt', 'empty', 'not_empty'];
    case 'boolean':
      return ['eq', 'neq', 'empty', 'not_empty'];
    case 'enum':
      return ['eq', 'neq', 'in', 'empty', 'not_empty'];
    default:
      return ['eq', 'neq', 'contains', 'empty', 'not_empty'];
  }
}

/** The first of the values that is a non-empty string, trimmed; null if none. */
export function firstText(...values: unknown[]): string | null {
  for (const v of values) if (typeof v === 'string' && v.trim() !== '') return v.trim();
  return null;
}

/** A field value as the list's contact variables keep it. */
export function fieldValue(v: unknown): string | number | boolean | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' && x !== null ? ((x as Record<string, unknown>).value ?? (x as Record<string, unknown>).name ?? JSON.stringify(x)) : x)).join(', ');
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const inner = o.value ?? o.name ?? o.label ?? o.text;
    if (typeof inner === 'string' || typeof inner === 'number' || typeof inner === 'boolean') return inner;
    return JSON.stringify(v);
  }
  return String(v);
}
