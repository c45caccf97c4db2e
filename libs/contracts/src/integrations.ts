import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * CRM and shop integrations (issue 18, docs/decisions/0040-integrations.md): the API of `services/integrations`
 * (`/integration_keys`, `/integration_config/{key}`) and the events it publishes on `switchboard.integrations`.
 * Credentials (OAuth tokens, API keys) never appear here: they stay sealed in the integrations schema.
 */

/** The vendors (spec 1). `zohoinbox` is the Zoho Inbox sign-on's integration (auth side), listed so keys of it resolve. */
export const IntegrationType = {
  HubSpot: 'hubspot',
  Pipedrive: 'pipedrive',
  Zoho: 'zoho',
  Shopify: 'shopify',
  Intercom: 'intercom',
  Monday: 'monday',
  Dialer: 'dialer',
  ZohoInbox: 'zohoinbox',
} as const;
export type IntegrationTypeValue = (typeof IntegrationType)[keyof typeof IntegrationType];
export const INTEGRATION_TYPES: readonly IntegrationTypeValue[] = Object.values(IntegrationType);
/** The CRM and shop connectors of this service (Zoho Inbox is the sign-on's). */
export const CONNECTOR_TYPES: readonly IntegrationTypeValue[] = INTEGRATION_TYPES.filter((t) => t !== IntegrationType.ZohoInbox);
export const isIntegrationType = (v: unknown): v is IntegrationTypeValue => typeof v === 'string' && (INTEGRATION_TYPES as readonly string[]).includes(v);

/** How an integration is authorised: the vendor's OAuth code flow, or a key the customer pastes (manual install). */
export type IntegrationAuthMode = 'oauth' | 'api_key';

/**
 * An integration's life:
 * - `pending`: created, waiting for the vendor's OAuth answer;
 * - `authorised`: credentials work, the completion screen's config is not saved or not started;
 * - `syncing`: the import runs (users, then contacts);
 * - `active`: imported; changes are followed incrementally;
 * - `paused`: the vendor is out or rate-limits us: retried later, nothing dropped;
 * - `error`: the vendor refused our credentials (revoked, expired refresh): reconnect;
 * - `disconnected`: removed by the account (kept for its key's history, credentials erased).
 */
export const IntegrationStatus = {
  Pending: 'pending',
  Authorised: 'authorised',
  Syncing: 'syncing',
  Active: 'active',
  Paused: 'paused',
  Error: 'error',
  Disconnected: 'disconnected',
} as const;
export type IntegrationStatusValue = (typeof IntegrationStatus)[keyof typeof IntegrationStatus];

/** One step of a sync as the console's progress list shows it. `progress` is the bar, 0..100. */
export interface SyncStepDto {
  name: 'users' | 'teams' | 'contacts' | 'changes';
  state: 'waiting' | 'running' | 'paused' | 'done' | 'failed';
  done: number;
  /** null while the vendor has not said how many there are. */
  total: number | null;
  progress: number;
}

/** Sync progress (`GET /integration_keys/{key}/sync`, the integration's `sync` field, realtime `integrations` topic). */
export interface SyncProgressDto {
  state: 'idle' | 'running' | 'paused' | 'done' | 'failed';
  /** The whole sync's bar, 0..100. */
  progress: number;
  steps: SyncStepDto[];
  /** When paused: when the next attempt runs (a vendor's Retry-After, or the outage backoff). */
  retryAt: string | null;
  /** A code and a message safe to show (never a vendor's raw answer with tokens in it). */
  error: { code: string; message: string } | null;
  startedAt: string | null;
  finishedAt: string | null;
}

/** An integration as `GET /integration_keys` answers it. No credential, ever: `credentials` says only whether some are kept. */
export interface IntegrationKeyDto {
  id: number;
  /** The integration key: the public handle in URLs (`/integration_config/{key}`, `/complete-integration/:type/:key`). */
  key: string;
  type: IntegrationTypeValue;
  name: string;
  status: IntegrationStatusValue;
  /** How it was connected. */
  authMode: IntegrationAuthMode;
  /** Pipedrive (spec 6): only an account admin (TENANT_OWNER) connects, configures or removes it. */
  adminOnly: boolean;
  companyName: string | null;
  /** The vendor API base URL this integration uses when it is not the platform's default for the type. */
  baseUrl: string | null;
  credentials: boolean;
  sync: SyncProgressDto;
  lastSyncedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * One entry of `GET /integration_keys/manual_install`: what can be connected here, and how. A vendor is connected by
 * OAuth when the platform has an OAuth app for it (`oauth.available`), or with a key the customer pastes (`apiKey`:
 * HubSpot private app token, Pipedrive API token, Shopify custom app token, Intercom access token, Monday API token).
 */
export interface IntegrationOptionDto {
  type: IntegrationTypeValue;
  name: string;
  adminOnly: boolean;
  /** null: the vendor has no OAuth flow. `available: false` with `reason` when the platform has no OAuth app for it (embedded mode). */
  oauth: { available: boolean; reason: string | null } | null;
  apiKey: boolean;
  /** The shop (Shopify, required), company (Pipedrive), region (Zoho) or board (Monday) the connect form asks for. */
  domain: { required: boolean; label: string } | null;
}

/** `POST /integration_keys/manual_install` body. OAuth vendors answer `authorizeUrl`; key vendors are checked at once. */
export interface IntegrationInstallRequest {
  type: IntegrationTypeValue;
  name?: string;
  apiKey?: string;
  domain?: string;
  baseUrl?: string;
}

export interface IntegrationInstallResponse {
  key: string;
  /** Where the browser goes to authorise (OAuth vendors); null when the key was accepted already. */
  authorizeUrl: string | null;
  integration: IntegrationKeyDto;
  /** The dialer's integration token (`X-Integration-Token`), answered this once: only its hash is kept. */
  token?: string;
}

/** `GET /integration_keys/dropdown`: the account's usable integrations (authorised or later, not removed). */
export interface IntegrationDropdownItemDto {
  key: string;
  type: IntegrationTypeValue;
  name: string;
}

export type ContactFieldType = 'string' | 'number' | 'boolean' | 'date' | 'enum' | 'phone' | 'email';

/** `GET /integration_keys/{key}/contact_fields`: the CRM's contact fields, which become contact variables of the list. */
export interface IntegrationContactFieldDto {
  /** The vendor's own field name (HubSpot property, Pipedrive field key, Zoho api_name, ...). */
  name: string;
  label: string;
  type: ContactFieldType;
  options: Array<{ value: string; label: string }>;
}

export type ContactFilterOperator = 'eq' | 'neq' | 'contains' | 'gt' | 'lt' | 'in' | 'empty' | 'not_empty';

/** `GET /integration_keys/{key}/contact_filters`: how an integration list may be filtered by the CRM's fields. */
export interface IntegrationContactFilterDto {
  field: string;
  label: string;
  type: ContactFieldType;
  operators: ContactFilterOperator[];
  options: Array<{ value: string; label: string }>;
}

/** One filter of an integration list (`POST /import_lists/integration` `filters`). */
export interface IntegrationContactFilter {
  field: string;
  operator: ContactFilterOperator;
  value?: string | number | boolean | Array<string | number> | null;
}

/** Spec 3, Integration config. `import_teams.type` defaults to `profiles` (a team per CRM profile). */
export interface IntegrationConfigInput {
  company_name?: string;
  space_name?: string;
  import_users: { type: 'admins' | 'all' | 'profiles'; profiles?: string[] };
  import_teams?: { type?: 'profiles' | 'none' };
  /** A note on the CRM contact when an inbox conversation with its number is closed (decision 0065); default true. */
  note_on_close?: boolean;
}

/** `GET /integration_config/{key}` `data`: the saved config and what the completion screen offers. */
export interface IntegrationConfigDto {
  key: string;
  type: IntegrationTypeValue;
  status: IntegrationStatusValue;
  company_name: string | null;
  space_name: string | null;
  import_users: { type: 'admins' | 'all' | 'profiles'; profiles: string[] } | null;
  import_teams: { type: 'profiles' | 'none' };
  /** Whether a closed inbox conversation leaves a note on the CRM contact (decision 0065). */
  note_on_close: boolean;
  /** The CRM's profiles (roles, permission sets, teams: the vendor's word) to choose from. */
  profiles: Array<{ id: string; name: string }>;
  sync: SyncProgressDto;
}

/** Every `/integration_config/{key}` answer: the completion screen shows its error state when status or data is missing (spec 8). */
export interface IntegrationConfigResponse {
  status: 'success';
  data: IntegrationConfigDto;
}

/** `POST /import_lists/integration` body (served by contacts: decision 0040). */
export interface ImportIntegrationListRequest {
  integrationKey: string;
  name?: string;
  filters?: IntegrationContactFilter[];
}

/** The answer of `POST /integration_keys/{key}/notes`: the CRM contacts of that integration the note is on. */
/** `POST /integration_keys/{key}/notes`: a note on the CRM contact with this id, or on those with this number (one of the two). */
export interface IntegrationNoteRequest {
  externalId?: string;
  phone?: string;
  /** 1 to 4,000 characters. */
  text: string;
}

export interface IntegrationNoteDto {
  integrationKey: string;
  externalIds: string[];
}

/** A CRM contact as the inbox shows it beside a conversation (`GET /integration_keys/contact_lookup?phone=`). */
export interface IntegrationContactDto {
  integrationKey: string;
  type: IntegrationTypeValue;
  externalId: string;
  name: string | null;
  email: string | null;
  phone: string;
  /** Link to the contact in the vendor's own app, when the vendor has one. */
  url: string | null;
  fields: Record<string, string | number | boolean | null>;
}

/** `POST /integration_keys/dialer/conversation` body: the dialer's caller (its `X-Integration-Token` authenticates it). */
export interface DialerConversationRequest {
  phone: string;
  name?: string;
}

/**
 * The answer: the console URL that opens a new conversation with the caller in one click
 * (`{APP_URL}/inbox?action=newDialerConv&contact_key=...`, spec 2), and the contact key the inbox resolves with
 * `GET /integration_keys/dialer_contacts/{contactKey}`.
 */
export interface DialerConversationResponse {
  url: string;
  contactKey: string;
}

export interface DialerContactDto {
  contactKey: string;
  integrationKey: string;
  phone: string;
  name: string | null;
  createdAt: string;
}

// ---------------------------------------------------------------- events

/** A CRM field's value: a string, a number, a boolean or null. */
const isFieldValue = (v: unknown): v is string | number | boolean | null => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
const FieldValue = z.custom<string | number | boolean | null>(isFieldValue, { message: 'a string, a number, a boolean or null' });

/** An integration's public state changed (created, authorised, configured, synced, paused, removed). Read models only: no credential. */
export const IntegrationChanged = defineEvent({
  type: 'integrations.integration.changed',
  version: 1,
  topic: Topics.Integrations,
  key: (d) => d.integrationKey,
  schema: z.object({
    accountId: z.string(),
    integrationKey: z.string(),
    type: z.string(),
    name: z.string(),
    status: z.string(),
    companyName: z.string().nullable(),
    changedAt: z.string(),
  }),
});
export type IntegrationChangedData = z.infer<typeof IntegrationChanged.schema>;

/** A CRM user to become an inbox agent (import_users of the config). */
export const ImportedAgent = z.object({
  externalId: z.string(),
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  admin: z.boolean(),
  /** The CRM profile (role) the user holds; the team the user joins when import_teams is `profiles`. */
  profile: z.string().nullable(),
  /** The profile's name in the CRM (the team's name); absent in events of older senders. */
  profileName: z.string().nullable().optional(),
});
export type ImportedAgentData = z.infer<typeof ImportedAgent>;

/**
 * CRM users chosen by the integration config, to become inbox agents: auth creates the users (an invite, inbox role)
 * and answers `auth.imported_agents.admitted` with their user ids, which the inbox uses to put them in `spaceName`
 * and, with import_teams `profiles`, in a team per profile (docs/decisions/0063). `spaceName` is the config's
 * space_name, else its company_name, else the vendor's name. Batches of at most
 * `MAX_AGENTS_PER_EVENT`; `seq`/`last` let a consumer know the import is complete. Each agent listed is placed in
 * exactly the teams of its current profiles (a user who moved profile moves team). `removed`: CRM users the
 * integration imported before who are no longer chosen (left the chosen profiles, deactivated or deleted in the CRM):
 * they leave the teams this integration put them in (decision 0064). A start lists every chosen user; the users
 * step of an incremental run only those added or changed since the last import.
 */
export const MAX_REMOVED_PER_EVENT = 500;
export const AgentsImported = defineEvent({
  type: 'integrations.agents.imported',
  version: 1,
  topic: Topics.Integrations,
  key: (d) => d.integrationKey,
  schema: z.object({
    accountId: z.string(),
    integrationKey: z.string(),
    type: z.string(),
    syncId: z.string(),
    seq: z.number().int().nonnegative(),
    last: z.boolean(),
    spaceName: z.string().nullable(),
    importTeams: z.enum(['profiles', 'none']),
    agents: z.array(ImportedAgent),
    /** Absent in events of older senders. */
    removed: z.array(z.object({ externalId: z.string(), email: z.string() })).max(MAX_REMOVED_PER_EVENT).optional(),
  }),
});
export type AgentsImportedData = z.infer<typeof AgentsImported.schema>;
export const MAX_AGENTS_PER_EVENT = 200;

/** A CRM contact as the contacts service stores it in an integration list. `fields` are the CRM's own fields by name. */
export const SyncedContact = z.object({
  externalId: z.string(),
  phone: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  email: z.string().nullable(),
  fields: z.record(FieldValue),
});
export type SyncedContactData = z.infer<typeof SyncedContact>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nullableString = (v: unknown) => v === null || typeof v === 'string';

/**
 * `SyncedContact`'s rules, checked by hand: a batch of 500 contacts is validated when integrations emits it and when
 * contacts consumes it, and zod's object, record and union parsers cost 40 to 90 µs a contact each time (the sync
 * bench's profile, decision 0063). Unknown keys are kept, not stripped (contacts reads the known ones).
 */
export function isSyncedContact(v: unknown): v is SyncedContactData {
  if (!isRecord(v) || typeof v.externalId !== 'string' || typeof v.phone !== 'string') return false;
  if (!nullableString(v.firstName) || !nullableString(v.lastName) || !nullableString(v.email) || !isRecord(v.fields)) return false;
  for (const k in v.fields) if (!isFieldValue(v.fields[k])) return false;
  return true;
}

/**
 * A batch of contact changes of one integration list (at most `MAX_CONTACTS_PER_EVENT` upserts plus deletes):
 * contacts applies it idempotently (event id in processed_events, upsert by (list, externalId)). A full sync's
 * batches share `syncId`; the one with `last: true` lets contacts remove the list's members the full sync did not
 * mention (`fullSync: true`). Incremental batches have `fullSync: false`.
 */
export const ContactsSynced = defineEvent({
  type: 'integrations.contacts.synced',
  version: 1,
  topic: Topics.Integrations,
  key: (d) => d.integrationKey,
  schema: z.object({
    accountId: z.string(),
    integrationKey: z.string(),
    listId: z.number().int().positive(),
    syncId: z.string(),
    seq: z.number().int().nonnegative(),
    fullSync: z.boolean(),
    last: z.boolean(),
    upserts: z.custom<SyncedContactData[]>((v) => Array.isArray(v) && v.every(isSyncedContact), {
      message: 'a list of CRM contacts { externalId, phone, firstName, lastName, email (strings, names and e-mail may be null), fields (strings, numbers, booleans or null) }',
    }),
    deletes: z.array(z.string()),
  }),
});
export type ContactsSyncedData = z.infer<typeof ContactsSynced.schema>;
export const MAX_CONTACTS_PER_EVENT = 500;

/**
 * Contacts created an integration list for `POST /import_lists/integration` (or removed one: `removed`): integrations
 * fills it with a full sync and keeps it in sync. Declared here because integrations is its consumer.
 */
export const IntegrationListRequested = defineEvent({
  type: 'contacts.integration_list.requested',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.integrationKey,
  schema: z.object({
    accountId: z.string(),
    integrationKey: z.string(),
    listId: z.number().int().positive(),
    importListId: z.number().int().positive().nullable(),
    filters: z.array(z.object({ field: z.string(), operator: z.string(), value: z.unknown().optional() })),
    removed: z.boolean(),
  }),
});
export type IntegrationListRequestedData = z.infer<typeof IntegrationListRequested.schema>;

/** Realtime topic of the console (`rt.<accountId>.integrations`): `integration.changed` and `sync.progress` frames. */
export const INTEGRATIONS_REALTIME_TOPIC = 'integrations';
