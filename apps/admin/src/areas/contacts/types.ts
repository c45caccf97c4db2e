/** The API's answers come from their one source (libs/contracts/src/contacts.ts), under the console's names. */
import type { BlackListDto, ContactDto, ContactListDto, ImportListDto, ImportPreviewDto, ImportSummaryDto, TaskDto, VariableDto } from '@switchboard/contracts/src/contacts';
import type { CustomOperator, FilterGroupType } from './constants';

export type ImportList = ImportListDto;
export type ImportPreview = ImportPreviewDto;
export type ImportSummary = ImportSummaryDto;
export type ContactList = ContactListDto;
export type Contact = ContactDto;
export type Variable = VariableDto;
export type BlackListEntry = BlackListDto;
export type Task = TaskDto;

/** Lists of the API come back as `{ items, total }` (spec 3). */
export interface ListResult<T> {
  items: T[];
  total: number;
}

export type ImportWithPreview = ImportList & { preview: ImportPreview };

export type ContactPage = ListResult<Contact> & { nextAfter: number | null };

export interface VariableInput {
  name: string;
  UIname: string;
  type: string;
  hidden: boolean;
  example: string | null;
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
