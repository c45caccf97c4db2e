import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * The contacts service (topic `switchboard.contacts`): import lists, contacts, lists and segments, the blacklist,
 * background tasks. Values below are what the API returns and what travels on the bus.
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

/** Spec 4, contact parse status. A contact that entered a list has `no_error`; the others are rejected import rows. */
export const ContactState = { NoError: 'no_error', Invalid: 'invalid', NotMobile: 'not_mobile', Blacklist: 'blacklist', Duplicate: 'duplicate' } as const;
export type ContactStateValue = (typeof ContactState)[keyof typeof ContactState];
export const CONTACT_STATES: readonly ContactStateValue[] = Object.freeze(Object.values(ContactState));

/** Spec 4, contact list status (number): initializing 0, processing 1, ready 2. */
export const ContactListStatus = { Initializing: 0, Processing: 1, Ready: 2 } as const;
export type ContactListStatusValue = (typeof ContactListStatus)[keyof typeof ContactListStatus];

export const ContactListType = { List: 'list', Segment: 'segment', Integration: 'integration' } as const;
export type ContactListTypeValue = (typeof ContactListType)[keyof typeof ContactListType];

/** Spec 4, import status. */
export const ImportStatus = { Error: 'error', Uploaded: 'uploaded', Mapped: 'mapped', Processing: 'processing', Parsed: 'parsed' } as const;
export type ImportStatusValue = (typeof ImportStatus)[keyof typeof ImportStatus];

/** What an import list feeds: a contact list, or the blacklist (spec 9: blocked-destination imports). */
export const ImportListType = { Contacts: 'contacts', Blacklist: 'blacklist' } as const;
export type ImportListTypeValue = (typeof ImportListType)[keyof typeof ImportListType];

/** Spec 4, task types. The message ones wait for the messages read model (see docs/decisions/0012-contacts-imports.md). */
export const TaskType = {
  ExportMessages: 'export_messages',
  ExportContacts: 'export_contacts',
  DeleteMessages: 'delete_messages',
  DeleteContacts: 'delete_contacts',
  OptOutContacts: 'opt_out_contacts',
  ExportStreamMessages: 'export_stream_messages',
  ExportIncomingMessages: 'export_incoming_messages',
} as const;
export type TaskTypeValue = (typeof TaskType)[keyof typeof TaskType];
export const TASK_TYPES: readonly TaskTypeValue[] = Object.freeze(Object.values(TaskType));

export const TaskStatus = { Pending: 'pending', Running: 'running', Done: 'done', Error: 'error' } as const;
export type TaskStatusValue = (typeof TaskStatus)[keyof typeof TaskStatus];

/**
 * Standard variables exist once for every account with these fixed ids; custom variables get ids from 1000 up.
 * `phone`, `shorturl` and `optout` are the spec's special variables.
 */
export const StandardVariable = { phone: 1, firstName: 2, lastName: 3, email: 4, country: 5, timezone: 6, shorturl: 7, optout: 8 } as const;
export type StandardVariableName = keyof typeof StandardVariable;

/** Filter groups of a segment (spec 3); see the filter compiler of the contacts service for operators and values. */
export const FilterGroupType = {
  Country: 'country',
  Operator: 'operator',
  ImportList: 'import_list',
  Segment: 'segment',
  ContactList: 'contact_list',
  CampaignClickers: 'campaign_clickers',
  CampaignRegister: 'campaign_register',
  CampaignFtd: 'campaign_ftd',
  OffersClickers: 'offers_clickers',
  OffersRegister: 'offers_register',
  OffersFtd: 'offers_ftd',
  CustomFields: 'custom_fields',
  CreatedBefore: 'created_before',
  CreatedAfter: 'created_after',
} as const;
export type FilterGroupTypeValue = (typeof FilterGroupType)[keyof typeof FilterGroupType];

const importCounters = {
  /** Data rows read (the header line and empty lines not counted). */
  parsed: z.number().int().nonnegative(),
  /** invalid + notMobile + blacklisted. */
  failed: z.number().int().nonnegative(),
  duplicates: z.number().int().nonnegative(),
  invalid: z.number().int().nonnegative(),
  notMobile: z.number().int().nonnegative(),
  /** Blacklisted or opted out. */
  blacklisted: z.number().int().nonnegative(),
  /** Contacts in the resulting list (contacts imports) or entries added to the blacklist (blacklist imports). */
  numberOfContacts: z.number().int().nonnegative(),
};

/** An import finished: its list is ready (contacts) or its numbers are blocked (blacklist). */
export const ContactsImportedV1 = defineEvent({
  type: 'contacts.import_list.imported',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.importListId,
  schema: z.object({
    accountId: id,
    importListId: id,
    type: z.enum([ImportListType.Contacts, ImportListType.Blacklist]),
    contactListId: id.nullable(),
    ...importCounters,
    completedAt: z.string(),
  }),
});

/** A contact list or segment reached status ready (after an import, or a segment after its count). */
export const ContactListReadyV1 = defineEvent({
  type: 'contacts.contact_list.became_ready',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.contactListId,
  schema: z.object({
    accountId: id,
    contactListId: id,
    type: z.enum([ContactListType.List, ContactListType.Segment, ContactListType.Integration]),
    name: z.string(),
    numOfContacts: z.number().int().nonnegative(),
    importListId: id.nullable(),
    readyAt: z.string(),
  }),
});

/** A contact opted out: it is never sent to again (streams and campaigns keep the number in their read models). */
export const ContactOptedOutV1 = defineEvent({
  type: 'contacts.contact.opted_out',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => `${d.accountId}:${d.phone}`,
  schema: z.object({
    accountId: id,
    contactId: id,
    /** E.164. */
    phone: z.string(),
    optedOutAt: z.string(),
    /** `api` (a contact edit), `task` (an opt-out task). */
    source: z.string(),
  }),
});

/** Numbers added to or removed from an account's blacklist (chunks of at most 1000 numbers, E.164). */
export const BlacklistChangedV1 = defineEvent({
  type: 'contacts.black_list.changed',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.accountId,
  schema: z.object({
    accountId: id,
    added: z.array(z.string()).max(1000),
    removed: z.array(z.string()).max(1000),
    changedAt: z.string(),
  }),
});

export const ContactsEvents = [ContactsImportedV1, ContactListReadyV1, ContactOptedOutV1, BlacklistChangedV1] as const;
