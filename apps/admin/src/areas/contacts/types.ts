import type { CustomOperator, FilterGroupType } from './constants';

/** Lists of the API come back as `{ items, total }` (spec 3). */
export interface ListResult<T> {
  items: T[];
  total: number;
}

/** GET /api/import_lists/{id} (spec 3 "Import list" plus the counters the contacts service adds). */
export interface ImportList {
  id: number;
  name: string;
  type: string;
  status: string;
  parsed: number;
  failed: number;
  duplicates: number;
  numberOfContacts: number;
  invalid: number;
  notMobile: number;
  blacklisted: number;
  progress: number;
  mapping: Array<{ column: number; variable: number; name: string | null }> | null;
  ignoreFirstLine: boolean;
  defaultCountry: string | null;
  integrationKey: string | null;
  fileName: string;
  fileSize: number;
  fileFormat: string;
  delimiter: string | null;
  columns: number;
  contactList: number | null;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface ImportPreview {
  format: string;
  delimiter: string | null;
  columns: number;
  rows: Array<{ line: number; cells: string[] }>;
}

export type ImportWithPreview = ImportList & { preview: ImportPreview };

export interface ImportSummary {
  id: number;
  name: string;
  /** The uploaded file's name. */
  fileName: string;
  status: string;
  parsed: number;
  failed: number;
  duplicates: number;
  numberOfContacts: number;
}

/** Spec 3 "Contact list / segment". `filter` is the segment filter as JSON text. */
export interface ContactList {
  id: number;
  name: string;
  description: string;
  type: string;
  status: number;
  progress: number;
  filter: string | null;
  numOfContacts: number;
  createdContacts: number;
  importListId: number | null;
  importList: ImportSummary | null;
  campaigns: number[];
  isDeleted: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Contact {
  id: number;
  phone: string;
  normalizedPhone: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  country: string | null;
  timezone: string | null;
  operator: string | null;
  state: string;
  error: string | null;
  importList: number | null;
  rowNumber: number | null;
  optedOutAt: string | null;
  blocked: boolean;
  variables: Record<string, string>;
  contactLists: number[];
  createdAt: string;
  updatedAt: string | null;
}

export type ContactPage = ListResult<Contact> & { nextAfter: number | null };

export interface Variable {
  id: number;
  name: string;
  type: string;
  hidden: boolean;
  isStandard: boolean;
  UIname: string;
  example: string | null;
  mappable: boolean;
  createdAt: string;
}

export interface VariableInput {
  name: string;
  UIname: string;
  type: string;
  hidden: boolean;
  example: string | null;
}

export interface BlackListEntry {
  id: number;
  phone: string;
  normalizedPhone: string;
  importList: number | null;
  createdAt: string;
}

export interface Task {
  id: number;
  type: string;
  status: string;
  progress: number;
  fileType: string;
  params: Record<string, unknown>;
  filePath: string | null;
  fileName: string | null;
  total: number;
  processed: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface TaskParams {
  contactList?: number;
  importList?: number;
  filter?: SegmentFilter;
  state?: string;
  search?: string;
  country?: string;
  optedOut?: boolean;
}

export interface Country {
  id: number;
  name: string;
  iso2: string;
}

/** A segment filter (spec 3 "Filter groups"), as the contacts service reads it. */
export type SetOperator = 'in' | 'not_in';

export interface CustomCondition {
  variable: string;
  operator: CustomOperator;
  value?: string;
}

export type FilterGroup =
  | { type: 'country' | 'operator'; operator: SetOperator; values: string[] }
  | { type: Exclude<FilterGroupType, 'country' | 'operator' | 'custom_fields' | 'created_before' | 'created_after'>; operator: SetOperator; values: string[] }
  | { type: 'custom_fields'; match: 'all' | 'any'; conditions: CustomCondition[] }
  | { type: 'created_before' | 'created_after'; value: string };

export interface SegmentFilter {
  match: 'all' | 'any';
  groups: FilterGroup[];
}

/** One frame of `/realtime` (services/gateway/src/realtime): the SSE event name is the topic. */
export interface RealtimeFrame<T = Record<string, unknown>> {
  id: string;
  subject: string;
  accountId: string;
  topic: string;
  type: string;
  data: T;
  at: string;
}

export interface ImportProgress {
  id: number;
  status: string;
  progress: number;
  contactList: number | null;
  error: string | null;
  parsed?: number;
  failed?: number;
  duplicates?: number;
  invalid?: number;
  notMobile?: number;
  blacklisted?: number;
  numberOfContacts?: number;
}

export interface ListProgress {
  id: number;
  status?: number;
  progress?: number;
  numOfContacts?: number;
}

export interface TaskProgress {
  id: number;
  type: string;
  status: string;
  progress: number;
  total: number;
  processed: number;
}
