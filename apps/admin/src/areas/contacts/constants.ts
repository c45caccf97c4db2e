/**
 * Permission strings of spec 6 that the contacts screens check. They mirror `libs/contracts/src/permissions.ts`: the
 * console's tsconfig does not reach the libraries, so the strings needed here are repeated.
 */
export const P = {
  ContactView: 'CONTACT_VIEW',
  ContactAddEdit: 'CONTACT_ADD_EDIT',
  ContactRemove: 'CONTACT_REMOVE',
  ListView: 'CONTACT_LIST_SEGMENT_VIEW',
  ListAdd: 'CONTACT_LIST_SEGMENT_ADD',
  ListEdit: 'CONTACT_LIST_SEGMENT_EDIT',
  ListRemove: 'CONTACT_LIST_SEGMENT_REMOVE',
  ListExport: 'CONTACT_LIST_SEGMENT_EXPORT',
  FieldView: 'CONTACT_FIELD_VIEW',
  FieldAddEdit: 'CONTACT_FIELD_ADD_EDIT',
  FieldRemove: 'CONTACT_FIELD_REMOVE',
  BlockView: 'BLOCK_DESTINATION_VIEW',
  BlockAddEdit: 'BLOCK_DESTINATION_ADD_EDIT',
  BlockRemove: 'BLOCK_DESTINATION_REMOVE',
  CampaignView: 'CAMPAIGN_VIEW',
} as const;

/** Console paths of the area (spec 2 leaves them open; see README.md in this folder). */
export const PATHS = {
  lists: '/contact-lists',
  import: '/contact-lists/import',
  newSegment: '/contact-lists/segments/new',
  segment: (id: number | string) => `/contact-lists/segments/${id}`,
  contacts: '/contacts',
  variables: '/contact-fields',
  blacklist: '/blocked-destinations',
  exports: '/exports',
} as const;

/** Spec 4: contact list status (initializing 0, processing 1, ready 2) and type. */
export const ListStatus = { Initializing: 0, Processing: 1, Ready: 2 } as const;
export const ListType = { List: 'list', Segment: 'segment', Integration: 'integration' } as const;

/** Spec 4: import status; what an import fills (a contact list or the blacklist). */
export const ImportStatus = { Error: 'error', Uploaded: 'uploaded', Mapped: 'mapped', Processing: 'processing', Parsed: 'parsed' } as const;
export const ImportType = { Contacts: 'contacts', Blacklist: 'blacklist' } as const;
export type ImportTypeValue = (typeof ImportType)[keyof typeof ImportType];

/** Spec 4: contact parse states; `failed` is the server's union of invalid, not mobile and blacklist. */
export const ContactState = { NoError: 'no_error', Invalid: 'invalid', NotMobile: 'not_mobile', Blacklist: 'blacklist', Duplicate: 'duplicate', Failed: 'failed' } as const;

/** Spec 4: task types, and the statuses the server reports. */
export const TaskType = {
  ExportMessages: 'export_messages',
  ExportContacts: 'export_contacts',
  DeleteMessages: 'delete_messages',
  DeleteContacts: 'delete_contacts',
  OptOutContacts: 'opt_out_contacts',
  ExportStreamMessages: 'export_stream_messages',
  ExportIncomingMessages: 'export_incoming_messages',
} as const;
export const TASK_TYPES = Object.values(TaskType);

/** Standard variables have these fixed ids in every account; phone must be mapped by every import (spec 5). */
export const StandardVariable = { phone: 1, firstName: 2, lastName: 3, email: 4, country: 5, timezone: 6, shorturl: 7, optout: 8 } as const;
export const PHONE_VARIABLE_ID = StandardVariable.phone;

/** Custom variable types the server accepts. */
export const VARIABLE_TYPES = ['text', 'number', 'date'] as const;
/** Variable names: a letter, then letters, digits and underscores, 64 at most (server rule `invalidKey`). */
export const VARIABLE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** Segment filter groups (spec 3), in the order the "add filter" menu offers them. */
export const FILTER_GROUPS = [
  'country',
  'operator',
  'import_list',
  'segment',
  'contact_list',
  'campaign_clickers',
  'campaign_register',
  'campaign_ftd',
  'offers_clickers',
  'offers_register',
  'offers_ftd',
  'custom_fields',
  'created_before',
  'created_after',
] as const;
export type FilterGroupType = (typeof FILTER_GROUPS)[number];
/**
 * Groups whose data comes from other services (operators, campaign and offer results): the contacts service matches
 * nothing for them until that data reaches it (docs/decisions/0012-contacts-imports.md).
 */
export const PENDING_GROUPS: ReadonlySet<FilterGroupType> = new Set(['operator', 'campaign_clickers', 'campaign_register', 'campaign_ftd', 'offers_clickers', 'offers_register', 'offers_ftd']);
export const CUSTOM_OPERATORS = ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'empty', 'not_empty', 'gt', 'gte', 'lt', 'lte'] as const;
export type CustomOperator = (typeof CUSTOM_OPERATORS)[number];
export const VALUELESS_OPERATORS: ReadonlySet<CustomOperator> = new Set(['empty', 'not_empty']);

/** Spec 2 and 9: the drag-and-drop file field takes one .csv or .xlsx file of at most 100 (read as MB). */
export const UPLOAD_LIMIT_MB = 100;
export const UPLOAD_LIMIT_BYTES = UPLOAD_LIMIT_MB * 1024 * 1024;
export const UPLOAD_ACCEPT = '.csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const UPLOAD_EXTENSIONS = /\.(csv|xlsx)$/i;

/** Spec 9: items per page for variables and dropdowns, contacts, countries. */
export const VARIABLES_PER_PAGE = 500;
export const DROPDOWN_PER_PAGE = 2000;
export const CONTACTS_PER_PAGE = 200;
export const COUNTRIES_PER_PAGE = 1000;

/** Spec 9: export wait 5 s, task poll 10 s, status poll 5 s. */
export const EXPORT_WAIT_MS = 5000;
export const TASK_POLL_MS = 10_000;
export const STATUS_POLL_MS = 5000;
/** The segment builder asks for the live count this long after the last change. */
export const COUNT_DEBOUNCE_MS = 400;
/** The realtime topics the contacts screens follow. */
export const REALTIME_TOPICS = ['imports', 'contact_lists', 'tasks'] as const;

/** Spec 2: progress bar 120x8 px; sizes s=4, m=8, l=16 px. */
export const PROGRESS_WIDTH = 120;
export const PROGRESS_HEIGHTS = { s: 4, m: 8, l: 16 } as const;


/** Spec 9: the downloaded file name falls back to a timestamped .csv name. */
export const fallbackFileName = (now = new Date()): string => `export-${now.toISOString().replace(/[:.]/g, '-')}.csv`;
