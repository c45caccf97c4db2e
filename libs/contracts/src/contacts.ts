/**
 * The contacts API's answers (imports, lists and segments, contacts, variables, blacklist, export tasks): one source for
 * the contacts service and the console (apps/admin imports this file directly). No Nest imports.
 */

export interface ImportListDto {
  id: number;
  name: string;
  /** contacts (fills a contact list) or blacklist (blocks the numbers). */
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

export interface ImportPreviewDto {
  format: string;
  delimiter: string | null;
  columns: number;
  /** The first rows as read (cells as text); `line` is the file's line number. */
  rows: Array<{ line: number; cells: string[] }>;
}

export interface ImportSummaryDto {
  id: number;
  /** The import's name (the list's name when it made the list). */
  name: string;
  /** The name of the uploaded file. */
  fileName: string;
  status: string;
  parsed: number;
  failed: number;
  duplicates: number;
  numberOfContacts: number;
}

export interface ContactListDto {
  id: number;
  name: string;
  description: string;
  type: string;
  /** 0 initializing, 1 processing, 2 ready. */
  status: number;
  progress: number;
  /** The segment filter as JSON text (spec 3), null for lists. */
  filter: string | null;
  /** Sendable contacts: members (lists) or matches (segments) neither blacklisted nor opted out. */
  numOfContacts: number;
  createdContacts: number;
  importListId: number | null;
  importList: ImportSummaryDto | null;
  /** Campaigns using the list: filled once the campaigns service publishes them (empty until then). */
  campaigns: number[];
  isDeleted: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ContactDto {
  id: number;
  phone: string;
  normalizedPhone: string | null;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  country: string | null;
  timezone: string | null;
  operator: string | null;
  /** no_error for contacts; the parse state for rejected import rows (state filter). */
  state: string;
  error: string | null;
  importList: number | null;
  /** Spreadsheet row of a rejected import row; null for contacts. */
  rowNumber: number | null;
  optedOutAt: string | null;
  /** The number is on the account's blacklist. */
  blocked: boolean;
  variables: Record<string, string>;
  contactLists: number[];
  createdAt: string;
  updatedAt: string | null;
}

export interface BlackListDto {
  id: number;
  phone: string;
  normalizedPhone: string;
  importList: number | null;
  createdAt: string;
}

export interface TaskDto {
  id: number;
  type: string;
  status: string;
  progress: number;
  fileType: string;
  params: Record<string, unknown>;
  /** Where the CSV is downloaded once progress is 100: /api/task/download?id={id}; null before. */
  filePath: string | null;
  fileName: string | null;
  total: number;
  processed: number;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface VariableDto {
  id: number;
  name: string;
  type: string;
  hidden: boolean;
  isStandard: boolean;
  UIname: string;
  example: string | null;
  /** Whether an import may map a column to it (shorturl and optout are filled when sending). */
  mappable: boolean;
  createdAt: string;
}
