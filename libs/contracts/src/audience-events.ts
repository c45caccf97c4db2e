import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * A campaign's audience, handed over by contacts (docs/decisions/0032-campaign-runner.md). Services never read each
 * other's schemas: at start the campaign runner asks for a snapshot of its lists and segments, and contacts answers
 * with batches of recipients on its own topic, all taken in ONE repeatable-read transaction (a consistent snapshot,
 * written to the outbox all together or not at all), the last batch flagged with the totals.
 *
 * - Blacklisted and opted-out contacts are left out (they are not counted either: `excluded`).
 * - A contact in several of the lists and segments comes once, unless `sendDuplicates`: then it comes once per list
 *   or segment it is in, `occurrence` 0, 1, ... telling the copies apart (a recipient is `contactId` + `occurrence`).
 * - Exactly once for the requester: batches are numbered (`seq` from 0); a batch delivered twice has the same
 *   `requestId` and `seq`, and a repeated request with the same `requestId` is answered once only.
 */
const id = z.string().regex(/^\d+$/, 'a decimal id');

export const AudienceRequestedV1 = defineEvent({
  type: 'campaigns.audience.requested',
  version: 1,
  topic: Topics.Campaigns,
  key: (d) => d.campaignId,
  schema: z.object({
    /** Unique per snapshot (a campaign re-snapshotted after an edit asks with a new one). */
    requestId: z.string().min(1).max(64),
    accountId: id,
    campaignId: id,
    /** Lists and segments (contact_list ids) of the account. */
    contactListIds: z.array(id).min(1).max(100),
    sendDuplicates: z.boolean(),
    /** The variables (ids) the campaign's texts use; null: every variable of the contact. */
    variableIds: z.array(id).max(500).nullable(),
    /** Recipients a batch (default 2,000). */
    batchSize: z.number().int().min(1).max(5000).optional(),
    /**
     * `snapshot` (default): the recipients in batches. `count`: only how many recipients there would be per country and
     * per time zone, answered by one `contacts.audience.counted` (the estimated cost and unreachable time zones shown
     * before a start).
     */
    mode: z.enum(['snapshot', 'count']).optional(),
    /**
     * How a snapshot is handed over: `columns` (default) in `contacts.audience.batch_prepared` batches; `copy` in
     * `contacts.audience.chunk_prepared` chunks of COPY text the requester pipes into its own COPY (docs/decisions/0043).
     */
    format: z.enum(['columns', 'copy']).optional(),
  }),
});

/** The answer to a `count` request: recipients (after the same exclusions and duplicate rule) per country and time zone. */
export const AudienceCountedV1 = defineEvent({
  type: 'contacts.audience.counted',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.campaignId,
  schema: z.object({
    requestId: z.string(),
    accountId: id,
    campaignId: id,
    total: z.number().int().nonnegative(),
    /** Recipients by country (ISO 3166-1 alpha-2; `''` for none). */
    byCountry: z.record(z.number().int().nonnegative()),
    /** Recipients by IANA time zone (`''` for none). */
    byTimezone: z.record(z.number().int().nonnegative()),
    error: z.string().nullable(),
  }),
});

/** Recipients in columns (every array the same length), which is smaller on the wire and faster to check. */
export const AudienceRecipients = z
  .object({
    contactId: z.array(id),
    /** E.164. */
    phone: z.array(z.string()),
    /** Country (ISO 3166-1 alpha-2) or null. */
    iso2: z.array(z.string().nullable()),
    /** IANA time zone of the contact or null (the campaign then uses its own rule). */
    timezone: z.array(z.string().nullable()),
    /** 0 for a contact's first copy; 1, 2, ... for the next ones (sendDuplicates). */
    occurrence: z.array(z.number().int().nonnegative()),
    /** Values by variable id (standard ones: 2 first name, 3 last name, 4 email, 5 country, 6 time zone; phone is 1). */
    variables: z.array(z.record(z.string())),
  })
  .refine((r) => [r.phone, r.iso2, r.timezone, r.occurrence, r.variables].every((c) => c.length === r.contactId.length), 'every column has one value per recipient');
export type AudienceRecipients = z.infer<typeof AudienceRecipients>;

export const AudienceTotals = z.object({
  batches: z.number().int().nonnegative(),
  recipients: z.number().int().nonnegative(),
  /** Distinct contacts among the recipients. */
  contacts: z.number().int().nonnegative(),
  /** Blacklisted or opted-out contacts of the lists and segments, left out. */
  excluded: z.number().int().nonnegative(),
  /** Copies left out because a contact is in more than one list or segment (0 with sendDuplicates). */
  duplicatesRemoved: z.number().int().nonnegative(),
});
export type AudienceTotals = z.infer<typeof AudienceTotals>;

export const AudienceBatchPreparedV1 = defineEvent({
  type: 'contacts.audience.batch_prepared',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.campaignId,
  schema: z.object({
    requestId: z.string(),
    accountId: id,
    campaignId: id,
    seq: z.number().int().nonnegative(),
    /** The snapshot's last batch (possibly empty): `totals` is set. */
    last: z.boolean(),
    recipients: AudienceRecipients,
    totals: AudienceTotals.nullable(),
    /** Why no audience could be taken (a list or segment that is not the account's, a broken filter); set on the only, last batch. */
    error: z.string().nullable(),
  }),
});

/**
 * The columns of a `copy` chunk's lines, in order: PostgreSQL COPY text format (tab-separated, `\N` for null,
 * backslash, tab and line breaks escaped, one line per recipient, each ending with a line feed). `variables` is the
 * JSON object of values by variable id (only the asked ones), as in `AudienceRecipients.variables`.
 */
export const AUDIENCE_COPY_COLUMNS = ['contact_id', 'occurrence', 'phone', 'iso2', 'timezone', 'variables'] as const;

/** Most bytes of COPY text a chunk carries: an event stays under the bus's 1 MB (Kafka's `message.max.bytes`). */
export const AUDIENCE_CHUNK_MAX_BYTES = 800_000;

/**
 * A `copy` snapshot's chunk (docs/decisions/0043): `rows` recipients as COPY text lines, the first one the snapshot's
 * recipient number `firstOrdinal` (0-based, in contact order), numbered by `seq` from 0; the last chunk (possibly
 * empty) has `last` and the totals. The same exactly-once rules as the batches: `(requestId, attempt, seq)` is stored
 * once.
 *
 * Attempts (docs/decisions/0140): a snapshot's chunks before the last may be published as they are read, before the
 * snapshot's transaction commits; only the last chunk is written with the commit. A snapshot that broke off (a crash,
 * a broken reader) leaves some chunks of its attempt and no last one, and the redelivered request is answered by a new
 * attempt with a larger `attempt` number. So a requester keeps the chunks of a request's highest attempt only: a chunk
 * of a higher attempt drops what a lower one stored, a chunk of a lower one is dropped, and the audience is complete
 * when the attempt holding the last chunk has all its rows. Chunks without `attempt` (attempt 0) come only from
 * producers that publish every chunk with the commit.
 */
export const AudienceChunkPreparedV1 = defineEvent({
  type: 'contacts.audience.chunk_prepared',
  version: 1,
  topic: Topics.Contacts,
  key: (d) => d.campaignId,
  schema: z.object({
    requestId: z.string(),
    accountId: id,
    campaignId: id,
    seq: z.number().int().nonnegative(),
    /** The snapshot's attempt (docs/decisions/0140): a later attempt of the same request has a larger number; absent: 0. */
    attempt: z.number().int().nonnegative().optional(),
    firstOrdinal: z.number().int().nonnegative(),
    rows: z.number().int().nonnegative(),
    last: z.boolean(),
    /** `AUDIENCE_COPY_COLUMNS`, named so a reader can refuse a layout it does not know. */
    columns: z.array(z.string()),
    data: z.string(),
    totals: AudienceTotals.nullable(),
    error: z.string().nullable(),
  }),
});
export type AudienceChunkData = z.infer<typeof AudienceChunkPreparedV1.schema>;

/** A COPY text field: `\N` for null; backslash, tab, line feed and carriage return escaped. */
export function copyTextField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  const s = String(v);
  return /[\\\t\n\r]/.test(s) ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : s;
}

/** Recipients as a chunk's COPY text (AUDIENCE_COPY_COLUMNS), for producers that hold them as objects. */
export function audienceCopyText(r: AudienceRecipients): string {
  let text = '';
  for (let i = 0; i < r.contactId.length; i++) {
    text += `${r.contactId[i]}\t${r.occurrence[i]}\t${copyTextField(r.phone[i])}\t${copyTextField(r.iso2[i])}\t${copyTextField(r.timezone[i])}\t${copyTextField(JSON.stringify(r.variables[i]))}\n`;
  }
  return text;
}

/** `AudienceChunkPreparedV1.schema.parse` without copying the data; the lines are checked by their reader. */
export function readAudienceChunk(data: unknown): AudienceChunkData {
  const fail = (what: string): never => {
    throw new Error(`contacts.audience.chunk_prepared: ${what}`);
  };
  if (!data || typeof data !== 'object') fail('not an object');
  const d = data as Record<string, unknown>;
  if (!isStr(d.requestId)) fail('requestId');
  if (!isStr(d.accountId) || !DECIMAL.test(d.accountId)) fail('accountId');
  if (!isStr(d.campaignId) || !DECIMAL.test(d.campaignId)) fail('campaignId');
  for (const k of ['seq', 'firstOrdinal', 'rows'] as const) if (!Number.isInteger(d[k]) || (d[k] as number) < 0) fail(k);
  if (d.attempt !== undefined && (!Number.isSafeInteger(d.attempt) || (d.attempt as number) < 0)) fail('attempt');
  if (typeof d.last !== 'boolean') fail('last');
  if (!isStrOrNull(d.error)) fail('error');
  if (!Array.isArray(d.columns) || d.columns.join(',') !== AUDIENCE_COPY_COLUMNS.join(',')) fail(`columns: expected ${AUDIENCE_COPY_COLUMNS.join(',')}`);
  if (!isStr(d.data)) fail('data');
  const text = d.data as string;
  if (text.length && !text.endsWith('\n')) fail('data: every line ends with a line feed');
  if (d.totals === undefined) fail('totals');
  const totals = d.totals === null ? null : AudienceTotals.parse(d.totals);
  return { requestId: d.requestId as string, accountId: d.accountId as string, campaignId: d.campaignId as string, seq: d.seq as number, attempt: (d.attempt as number | undefined) ?? 0, firstOrdinal: d.firstOrdinal as number, rows: d.rows as number, last: d.last as boolean, columns: d.columns as string[], data: text, totals, error: d.error as string | null };
}

export const AudienceEvents = [AudienceRequestedV1, AudienceBatchPreparedV1, AudienceCountedV1, AudienceChunkPreparedV1] as const;

export type AudienceBatchData = z.infer<typeof AudienceBatchPreparedV1.schema>;

const DECIMAL = /^\d+$/;
const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown): boolean => v === null || typeof v === 'string';

/**
 * `AudienceBatchPreparedV1.schema.parse` with the same rules, written out for the hot path: a million recipients go
 * through it at a campaign's start, and zod's per-element checks cost more than storing the rows. Throws on the first
 * rule broken, naming it.
 */
export function readAudienceBatch(data: unknown): AudienceBatchData {
  const fail = (what: string): never => {
    throw new Error(`contacts.audience.batch_prepared: ${what}`);
  };
  if (!data || typeof data !== 'object') fail('not an object');
  const d = data as Record<string, unknown>;
  if (!isStr(d.requestId)) fail('requestId');
  if (!isStr(d.accountId) || !DECIMAL.test(d.accountId)) fail('accountId');
  if (!isStr(d.campaignId) || !DECIMAL.test(d.campaignId)) fail('campaignId');
  if (!Number.isInteger(d.seq) || (d.seq as number) < 0) fail('seq');
  if (typeof d.last !== 'boolean') fail('last');
  if (!isStrOrNull(d.error)) fail('error');
  const r = d.recipients as Record<string, unknown[]> | undefined;
  if (!r || typeof r !== 'object') fail('recipients');
  const cols = ['contactId', 'phone', 'iso2', 'timezone', 'occurrence', 'variables'] as const;
  for (const c of cols) if (!Array.isArray(r?.[c])) fail(`recipients.${c}`);
  const n = (r as Record<string, unknown[]>).contactId.length;
  for (const c of cols) if ((r as Record<string, unknown[]>)[c].length !== n) fail('every column has one value per recipient');
  const rec = r as Record<string, unknown[]>;
  for (let i = 0; i < n; i++) {
    const id = rec.contactId[i];
    if (!isStr(id) || !DECIMAL.test(id)) fail(`recipients.contactId[${i}]`);
    if (!isStr(rec.phone[i])) fail(`recipients.phone[${i}]`);
    if (!isStrOrNull(rec.iso2[i])) fail(`recipients.iso2[${i}]`);
    if (!isStrOrNull(rec.timezone[i])) fail(`recipients.timezone[${i}]`);
    const o = rec.occurrence[i];
    if (!Number.isInteger(o) || (o as number) < 0) fail(`recipients.occurrence[${i}]`);
    const v = rec.variables[i];
    if (!v || typeof v !== 'object' || Array.isArray(v)) fail(`recipients.variables[${i}]`);
    for (const x of Object.values(v as Record<string, unknown>)) if (!isStr(x)) fail(`recipients.variables[${i}]`);
  }
  const totals = d.totals === null || d.totals === undefined ? null : AudienceTotals.parse(d.totals);
  if (d.totals === undefined) fail('totals');
  return { requestId: d.requestId as string, accountId: d.accountId as string, campaignId: d.campaignId as string, seq: d.seq as number, last: d.last as boolean, recipients: rec as unknown as AudienceRecipients, totals, error: d.error as string | null };
}
