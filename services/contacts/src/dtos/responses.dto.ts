import type { BlackListDto, ContactDto, ContactListDto, ImportListDto, ImportPreviewDto, ImportSummaryDto, TaskDto, VariableDto } from '@switchboard/contracts';
import { ApiProperty } from '@nestjs/swagger';

/**
 * What this service's routes answer, for the OpenAPI document (/api/docs.json). The shapes mirror the services'
 * return types; examples are what a caller sees.
 */
export class BlackListResponse implements BlackListDto {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: '+447400123456' })
  phone!: string;

  @ApiProperty({ type: String, example: '+447400123456' })
  normalizedPhone!: string;

  @ApiProperty({ type: Number, nullable: true })
  importList!: number;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;
}

export class ImportSummaryResponse implements ImportSummaryDto {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, example: 'acme-customers.csv', description: 'The name of the uploaded file.' })
  fileName!: string;

  @ApiProperty({ type: String, example: 'parsed' })
  status!: string;

  @ApiProperty({ type: Number })
  parsed!: number;

  @ApiProperty({ type: Number, example: 1 })
  failed!: number;

  @ApiProperty({ type: Number })
  duplicates!: number;

  @ApiProperty({ type: Number })
  numberOfContacts!: number;
}

export class ContactListResponse implements ContactListDto {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String })
  description!: string;

  @ApiProperty({ type: String })
  type!: string;

  @ApiProperty({ type: Number, description: '0 initializing, 1 processing, 2 ready.' })
  status!: number;

  @ApiProperty({ type: Number })
  progress!: number;

  @ApiProperty({ type: String, nullable: true, description: 'The segment filter as JSON text (spec 3), null for lists.' })
  filter!: string;

  @ApiProperty({ type: Number, description: 'Sendable contacts: members (lists) or matches (segments) neither blacklisted nor opted out.' })
  numOfContacts!: number;

  @ApiProperty({ type: Number })
  createdContacts!: number;

  @ApiProperty({ type: Number, nullable: true, example: 42 })
  importListId!: number;

  @ApiProperty({ type: () => ImportSummaryResponse, nullable: true })
  importList!: ImportSummaryResponse;

  @ApiProperty({ type: [Number], description: 'Campaigns using the list: filled once the campaigns service publishes them (empty until then).' })
  campaigns!: number[];

  @ApiProperty({ type: Boolean })
  isDeleted!: boolean;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  updatedAt!: string;
}

export class ContactListTotalByFilterResponse {
  @ApiProperty({ type: Number, example: 1 })
  total!: number;
}

export class ContactListMissingVariablesResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: Number })
  missing!: number;

  @ApiProperty({ type: Number, example: 1 })
  total!: number;
}

export class ContactResponse implements ContactDto {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: '+447400123456' })
  phone!: string;

  @ApiProperty({ type: String, nullable: true, example: '+447400123456' })
  normalizedPhone!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Jane' })
  firstName!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Doe' })
  lastName!: string;

  @ApiProperty({ type: String, nullable: true, example: 'jane@example.com' })
  email!: string;

  @ApiProperty({ type: String, nullable: true, example: 'GB' })
  country!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Europe/London' })
  timezone!: string;

  @ApiProperty({ type: String, nullable: true })
  operator!: string;

  @ApiProperty({ type: String, description: 'no_error for contacts; the parse state for rejected import rows (state filter).' })
  state!: string;

  @ApiProperty({ type: String, nullable: true })
  error!: string;

  @ApiProperty({ type: Number, nullable: true })
  importList!: number;

  @ApiProperty({ type: Number, nullable: true, description: 'Spreadsheet row of a rejected import row; null for contacts.' })
  rowNumber!: number;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  optedOutAt!: string;

  @ApiProperty({ type: Boolean, description: 'The number is on the account\'s blacklist.' })
  blocked!: boolean;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  variables!: Record<string, string>;

  @ApiProperty({ type: [Number] })
  contactLists!: number[];

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  updatedAt!: string;
}

export class ContactList2Response {
  @ApiProperty({ type: () => [ContactResponse] })
  items!: ContactResponse[];

  @ApiProperty({ type: Number, example: 0 })
  total!: number;

  @ApiProperty({ type: Number, nullable: true })
  nextAfter!: number;
}

export class ImportListMappingItemResponse {
  @ApiProperty({ type: Number })
  column!: number;

  @ApiProperty({ type: Number })
  variable!: number;

  @ApiProperty({ type: String, nullable: true, example: 'Acme' })
  name!: string;
}

export class ImportListResponse implements ImportListDto {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, description: 'contacts (fills a contact list) or blacklist (blocks the numbers).' })
  type!: string;

  @ApiProperty({ type: String, example: 'parsed' })
  status!: string;

  @ApiProperty({ type: Number })
  parsed!: number;

  @ApiProperty({ type: Number, example: 1 })
  failed!: number;

  @ApiProperty({ type: Number })
  duplicates!: number;

  @ApiProperty({ type: Number })
  numberOfContacts!: number;

  @ApiProperty({ type: Number, example: 42 })
  invalid!: number;

  @ApiProperty({ type: Number })
  notMobile!: number;

  @ApiProperty({ type: Number })
  blacklisted!: number;

  @ApiProperty({ type: Number })
  progress!: number;

  @ApiProperty({ type: () => [ImportListMappingItemResponse], nullable: true })
  mapping!: ImportListMappingItemResponse[];

  @ApiProperty({ type: Boolean })
  ignoreFirstLine!: boolean;

  @ApiProperty({ type: String, nullable: true })
  defaultCountry!: string;

  @ApiProperty({ type: String, nullable: true })
  integrationKey!: string;

  @ApiProperty({ type: String, example: 'customers.csv' })
  fileName!: string;

  @ApiProperty({ type: Number, example: 1 })
  fileSize!: number;

  @ApiProperty({ type: String })
  fileFormat!: string;

  @ApiProperty({ type: String, nullable: true })
  delimiter!: string;

  @ApiProperty({ type: Number })
  columns!: number;

  @ApiProperty({ type: Number, nullable: true })
  contactList!: number;

  @ApiProperty({ type: String, nullable: true })
  error!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  startedAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  finishedAt!: string;
}

export class ImportPreviewRowItemResponse {
  @ApiProperty({ type: Number, example: 1 })
  line!: number;

  @ApiProperty({ type: [String] })
  cells!: string[];
}

export class ImportPreviewResponse implements ImportPreviewDto {
  @ApiProperty({ type: String, example: 'csv' })
  format!: string;

  @ApiProperty({ type: String, nullable: true })
  delimiter!: string;

  @ApiProperty({ type: Number })
  columns!: number;

  @ApiProperty({ type: () => [ImportPreviewRowItemResponse], description: 'The first rows as read (cells as text); `line` is the file\'s line number.' })
  rows!: ImportPreviewRowItemResponse[];
}

export class ImportListGetResponse {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String, example: 'Acme' })
  name!: string;

  @ApiProperty({ type: String, description: 'contacts (fills a contact list) or blacklist (blocks the numbers).' })
  type!: string;

  @ApiProperty({ type: String, example: 'parsed' })
  status!: string;

  @ApiProperty({ type: Number })
  parsed!: number;

  @ApiProperty({ type: Number, example: 1 })
  failed!: number;

  @ApiProperty({ type: Number })
  duplicates!: number;

  @ApiProperty({ type: Number })
  numberOfContacts!: number;

  @ApiProperty({ type: Number, example: 42 })
  invalid!: number;

  @ApiProperty({ type: Number })
  notMobile!: number;

  @ApiProperty({ type: Number })
  blacklisted!: number;

  @ApiProperty({ type: Number })
  progress!: number;

  @ApiProperty({ type: () => [ImportListMappingItemResponse], nullable: true })
  mapping!: ImportListMappingItemResponse[];

  @ApiProperty({ type: Boolean })
  ignoreFirstLine!: boolean;

  @ApiProperty({ type: String, nullable: true })
  defaultCountry!: string;

  @ApiProperty({ type: String, nullable: true })
  integrationKey!: string;

  @ApiProperty({ type: String, example: 'customers.csv' })
  fileName!: string;

  @ApiProperty({ type: Number, example: 1 })
  fileSize!: number;

  @ApiProperty({ type: String })
  fileFormat!: string;

  @ApiProperty({ type: String, nullable: true })
  delimiter!: string;

  @ApiProperty({ type: Number })
  columns!: number;

  @ApiProperty({ type: Number, nullable: true })
  contactList!: number;

  @ApiProperty({ type: String, nullable: true })
  error!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  startedAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  finishedAt!: string;

  @ApiProperty({ type: () => ImportPreviewResponse })
  preview!: ImportPreviewResponse;
}

/** The upload answers the import list as `GET /import_lists/{id}` shows it. */
export class ImportListUploadResponse extends ImportListGetResponse {}

export class TaskResponse implements TaskDto {
  @ApiProperty({ type: Number, example: 42 })
  id!: number;

  @ApiProperty({ type: String })
  type!: string;

  @ApiProperty({ type: String, example: 'done' })
  status!: string;

  @ApiProperty({ type: Number })
  progress!: number;

  @ApiProperty({ type: String })
  fileType!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  params!: Record<string, unknown>;

  @ApiProperty({ type: String, nullable: true, description: 'Where the CSV is downloaded once progress is 100: /api/task/download?id={id}; null before.' })
  filePath!: string;

  @ApiProperty({ type: String, nullable: true, example: 'customers.csv' })
  fileName!: string;

  @ApiProperty({ type: Number, example: 1 })
  total!: number;

  @ApiProperty({ type: Number })
  processed!: number;

  @ApiProperty({ type: String, nullable: true })
  error!: string;

  @ApiProperty({ type: String, example: '2026-11-25T16:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T16:00:00.000Z' })
  finishedAt!: string;
}

export class VariableResponse implements VariableDto {
  @ApiProperty({ type: Number, example: 8 })
  id!: number;

  @ApiProperty({ type: String, example: 'optout' })
  name!: string;

  @ApiProperty({ type: String, example: 'url' })
  type!: string;

  @ApiProperty({ type: Boolean, example: false })
  hidden!: boolean;

  @ApiProperty({ type: Boolean, example: true })
  isStandard!: boolean;

  @ApiProperty({ type: String, example: 'Opt-out link' })
  UIname!: string;

  @ApiProperty({ type: String, nullable: true, example: 'https://sho.rt/o/aB3dE' })
  example!: string;

  @ApiProperty({ type: Boolean, description: 'Whether an import may map a column to it (shorturl and optout are filled when sending).', example: false })
  mappable!: boolean;

  @ApiProperty({ type: String, example: '2026-11-25T16:39:39.009Z' })
  createdAt!: string;
}
