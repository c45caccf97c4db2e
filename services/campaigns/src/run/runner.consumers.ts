import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  ErrorCode,
  AudienceBatchPreparedV1,
  AudienceChunkPreparedV1,
  CampaignAction,
  CampaignHaltReason,
  CampaignOptOutBlockRequestedV1,
  CampaignStatusesReconciledV1,
  ContactOptedOutV1,
  InboundOptedOutV1,
  LinkBatchMintedV2,
  readLinkBatchMinted,
  type LinkBatchMinted,
  LinkClickedV1,
  LinkOptOutConfirmedV1,
  MessageStatusChangedV1,
  MessageStatusesChangedV1,
  readAudienceBatch,
  readAudienceChunk,
  parseEventData,
  SendBatchProcessedV1,
  SendRefusal,
  Topics,
  type CampaignHaltReasonValue,
  type EventData,
  type EventEnvelope,
  flattenStatusBatches,
  forEachStatusChange,
  parseStatusChanged,
} from '@switchboard/contracts';
import { claimEvent, countdown, eachAtOnce, EventBus, IdempotentConsumer, PROCESS_ROLES, tracingEnabled, withStatusBatches, type ProcessRoles } from '@switchboard/platform';
import { CAMPAIGNS_CONNECTION, CAMPAIGNS_SCHEMA } from '../campaigns.options';
import { Clock } from '../clock';
import { CampaignsUnitOfWork } from '../services/campaigns-events.service';
import { recipientMessageUuids } from './composer';
import { copyField, RunnerDatabase } from './runner-db';
import { StatusReconcileMetrics } from './status-reconcile.service';
import { lockRecipients, returned } from './runner.service';
import { transition } from './status';

export const AUDIENCE_GROUP = 'campaigns.audience';
export const ANSWERS_GROUP = 'campaigns.send-answers';
export const LINKS_GROUP = 'campaigns.link-answers';
export const STATUS_GROUP = 'campaigns.message-statuses';
export const CLICKS_GROUP = 'campaigns.clicks';
export const OPT_OUTS_GROUP = 'campaigns.opt-outs';
export const OPT_OUT_BLOCKS_GROUP = 'campaigns.opt-out-blocks';
/** An opt-out counts for the campaigns that sent to the number within this long before it. */
const OPT_OUT_WINDOW_MS = 30 * 86_400_000;

const DIGITS = /^\d{1,18}$/;

/** Refusals that stop the whole campaign (it halts and tries those recipients again after play), with their halt reason. */
const HALTING: Record<string, CampaignHaltReasonValue> = {
  [SendRefusal.LowBalance]: CampaignHaltReason.LowBalance,
  [SendRefusal.DailyLimit]: CampaignHaltReason.DailyLimit,
  [SendRefusal.TpsReached]: CampaignHaltReason.TpsLimitReached,
  [SendRefusal.StreamDisabled]: CampaignHaltReason.StreamDisabled,
  [SendRefusal.AccountDisabled]: CampaignHaltReason.AccountDisabled,
};

/** Delivery statuses in the order they may follow each other; a status never moves back (a late one counts nothing). */
const RANK: Record<string, number> = { sent: 1, delivered: 2, undelivered: 2, sent_failed: 2, no_routes: 2, rejected: 2 };
/** Which counters (campaign, variant, sender) a status adds to. */
const COUNTER: Record<string, 'delivered' | 'undelivered' | 'sent_failed' | 'dlr_failed' | null> = {
  sent: null,
  delivered: 'delivered',
  undelivered: 'undelivered',
  sent_failed: 'sent_failed',
  no_routes: 'sent_failed',
  rejected: 'dlr_failed',
};

type Answer = EventData<typeof SendBatchProcessedV1>;

/**
 * Each recipient's links as the JSON text of its `links` column (`{"<variable>":"<link>"}`), in the answer's ref order:
 * the per-recipient text built here from the compact answer (docs/decisions/0129), the same text v1's object gave.
 */
function recipientLinks(d: LinkBatchMinted): string[] {
  const keys = d.variables.map((v) => `${JSON.stringify(v)}:`);
  return d.refs.map((_, i) => {
    let out = '';
    for (let vi = 0; vi < keys.length; vi++) {
      // a v1 answer may leave a variable out of an item (v2 cannot): no member, as v1's object had none
      const link: string | undefined = d.link(i, vi);
      if (link !== undefined) out += `${out ? ',' : ''}${keys[vi]}${JSON.stringify(link)}`;
    }
    return `{${out}}`;
  });
}

/**
 * The recipients' ordinals of an answer's items: the runner asks with `ref` = the ordinal. A ref that is none (a demo
 * message's) names no recipient. With the messageUuid it is the recipient's key for the answer's statements.
 */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ordinals = (items: ReadonlyArray<{ ref: string }>): number[] => items.map((i) => (/^\d{1,9}$/.test(i.ref) ? Number(i.ref) : -1));

/** A status waiting for the status group commit: from a status event, or from dispatch's answer to a question (0093). */
interface StatusItem {
  id: string;
  messageUuid: string;
  campaignId: string;
  accountId: string;
  status: string;
  answer: boolean;
  resolve: (moved: boolean) => void;
  reject: (e: unknown) => void;
}

/** A chunk of a request the run no longer waits for: its transaction is rolled back and the chunk is done. */
class Superseded extends Error {}

/** An audience of at least this many recipients is followed by an ANALYZE of `campaigns.recipient` once stored. */
export const ANALYZE_AFTER_RECIPIENTS = 10_000;

async function supersededIsDone(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (e) {
    if (!(e instanceof Superseded)) throw e;
  }
}

/**
 * What comes back to a running campaign: its audience (COPY into `recipient`), streams' answers to its send batches,
 * links' minted links, and dispatch's statuses and links' clicks for its statistics. Every handler matches the
 * campaign AND its account (and stream): an answer naming another account's campaign changes nothing.
 */
@Injectable()
export class RunnerConsumers implements OnModuleInit {
  private readonly log = new Logger('CampaignRunnerConsumers');
  /** Totals of dispatch's status answers in this process (docs/decisions/0093), for tests and benchmarks. */
  readonly answerStats = { answers: 0, answered: 0, recovered: 0, unknown: 0 };

  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly db: RunnerDatabase,
    private readonly uow: CampaignsUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: AUDIENCE_GROUP,
      topics: [Topics.Contacts],
      types: [AudienceBatchPreparedV1.type, AudienceChunkPreparedV1.type],
      concurrency: 4,
      handler: (e) => (e.type === AudienceChunkPreparedV1.type ? this.onAudienceChunk(e) : this.onAudience(e)),
    });
    await this.bus.subscribe({ group: ANSWERS_GROUP, topics: [Topics.Streams], types: [SendBatchProcessedV1.type], concurrency: 4, handler: (e) => this.onAnswer(e) });
    await this.bus.subscribe({ group: LINKS_GROUP, topics: [Topics.Links], types: [LinkBatchMintedV2.type], handler: (e) => this.onLinks(e) });
    // dispatch's answers to the status questions of docs/decisions/0093 ride the same group (it reads the topic already)
    await this.bus.subscribe({
      group: STATUS_GROUP,
      topics: [Topics.Dispatch],
      types: [MessageStatusChangedV1.type, MessageStatusesChangedV1.type, CampaignStatusesReconciledV1.type],
      concurrency: 64,
      // a delivered chunk in one call: its statuses join the group commit together, without the bus's delivery each
      // (docs/decisions/0160); a failure hands each event to `handler` alone (a status moves only forward: idempotent).
      // Dispatch's batches of statuses as their per-message events, each with its own account (0173); without tracing
      // a chunk's status changes join the group commit with one promise for the chunk (onStatusChunk).
      handler: withStatusBatches((e) => (e.type === CampaignStatusesReconciledV1.type ? this.onStatusesAnswer(e) : this.onStatus(e))).handler,
      batchHandler: (events, context) => (tracingEnabled() ? this.tracedStatusChunk(flattenStatusBatches(events), context) : this.onStatusChunk(events)),
    });
    await this.bus.subscribe({ group: CLICKS_GROUP, topics: [Topics.Links], types: [LinkClickedV1.type], handler: (e) => this.onClick(e) });
    await this.bus.subscribe({ group: OPT_OUT_BLOCKS_GROUP, topics: [Topics.Links], types: [LinkOptOutConfirmedV1.type], handler: (e) => this.onLinkOptOut(e) });
    await this.bus.subscribe({ group: OPT_OUTS_GROUP, topics: [Topics.Dispatch, Topics.Contacts], types: [InboundOptedOutV1.type, ContactOptedOutV1.type], handler: (e) => this.onOptOut(e) });
  }

  /** An audience batch: its recipients by COPY, once per (request, seq), only for the run that asked. */
  async onAudience(e: EventEnvelope): Promise<void> {
    if (e.type !== AudienceBatchPreparedV1.type || e.version !== 1) return;
    const d = readAudienceBatch(e.data);
    const lastTotals = d.totals;
    await supersededIsDone(this.db.transaction(async (c) => {
      const run = (await c.query<{ batch_size: number }>(`SELECT batch_size FROM campaigns.run WHERE campaign_id = $1 AND account_id = $2 AND request_id::text = $3`, [d.campaignId, d.accountId, d.requestId])).rows[0];
      if (!run) return;
      const claimed = await c.query(`INSERT INTO campaigns.audience_batch (campaign_id, request_id, seq) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING seq`, [d.campaignId, d.requestId, d.seq]);
      if (claimed.rowCount === 0) return;
      const r = d.recipients;
      const n = r.contactId.length;
      if (n) {
        let text = '';
        const base = d.seq * run.batch_size;
        const campaign = copyField(d.campaignId);
        const account = copyField(d.accountId);
        const uuidOf = recipientMessageUuids(d.campaignId);
        for (let k = 0; k < n; k++) {
          const uuid = uuidOf(r.contactId[k], r.occurrence[k]);
          text += `${campaign}\t${base + k}\t${account}\t${r.contactId[k]}\t${r.occurrence[k]}\t${uuid}\t${copyField(r.phone[k])}\t${copyField(r.iso2[k])}\t${copyField(r.timezone[k])}\t${copyField(JSON.stringify(r.variables[k]))}\n`;
        }
        await this.db.copy(c, 'campaigns.recipient', ['campaign_id', 'ordinal', 'account_id', 'contact_id', 'occurrence', 'message_uuid', 'phone', 'iso2', 'timezone', 'variables'], text);
      }
      const updated = await c.query(
        `UPDATE campaigns.run SET audience_received = audience_received + $2, audience_total = coalesce($3, audience_total), audience_error = coalesce($4, audience_error),
                excluded = coalesce($5, excluded), duplicates_removed = coalesce($6, duplicates_removed), updated_at = now()
          WHERE campaign_id = $1 AND request_id::text = $7`,
        [d.campaignId, n, lastTotals?.recipients ?? null, d.error, lastTotals?.excluded ?? null, lastTotals?.duplicatesRemoved ?? null, d.requestId],
      );
      if (updated.rowCount === 0) throw new Superseded(); // the audience was asked again meanwhile (docs/decisions/0113)
      if (lastTotals) await c.query(`UPDATE campaigns.campaign SET total = $2 WHERE id = $1 AND account_id = $3`, [d.campaignId, lastTotals.recipients, d.accountId]);
    }));
  }

  /**
   * An audience chunk (COPY text, docs/decisions/0043): each line gets the campaign, its ordinal, the account and its
   * messageUuid in front and the chunk goes into `campaigns.recipient` by one COPY, once per (request, attempt, seq), only
   * for the run that asked. A line that is not `contact \t occurrence \t ...` refuses the whole chunk.
   *
   * Attempts (docs/decisions/0140): contacts publishes a snapshot's chunks before it commits, so a snapshot that broke
   * off leaves chunks of its attempt, and the redelivered request's next attempt (a larger number) sends them all again.
   * The run keeps its request's highest attempt only. A chunk of a lower attempt than the run's is dropped; one of a
   * higher attempt first moves the run to it (`switchAttempt`). A chunk's transaction holds the run row `FOR KEY SHARE`
   * for its attempt, so a move waits for every chunk being stored and no chunk of an older attempt starts after it.
   */
  async onAudienceChunk(e: EventEnvelope): Promise<void> {
    if (e.type !== AudienceChunkPreparedV1.type || e.version !== 1) return;
    const d = readAudienceChunk(e.data);
    const attempt = d.attempt ?? 0;
    const [current] = (await this.ds.query(`SELECT audience_attempt::text AS attempt FROM campaigns.run WHERE campaign_id = $1 AND account_id = $2 AND request_id::text = $3`, [d.campaignId, d.accountId, d.requestId])) as Array<{ attempt: string }>;
    if (!current || attempt < Number(current.attempt)) return;
    if (attempt > Number(current.attempt)) await this.switchAttempt(d.campaignId, d.requestId, attempt);
    let complete = false;
    await supersededIsDone(this.db.transaction(async (c) => {
      const run = (await c.query(`SELECT 1 FROM campaigns.run WHERE campaign_id = $1 AND account_id = $2 AND request_id::text = $3 AND audience_attempt = $4 FOR KEY SHARE`, [d.campaignId, d.accountId, d.requestId, attempt])).rows[0];
      if (!run) return;
      const claimed = await c.query(`INSERT INTO campaigns.audience_batch (campaign_id, request_id, seq) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING seq`, [d.campaignId, d.requestId, d.seq]);
      if (claimed.rowCount === 0) return;
      if (d.rows) {
        const head = `${copyField(d.campaignId)}\t`;
        const account = copyField(d.accountId);
        const text = d.data;
        const uuid = recipientMessageUuids(d.campaignId);
        const out: string[] = new Array<string>(d.rows);
        let at = 0;
        let k = 0;
        while (at < text.length) {
          const end = text.indexOf('\n', at);
          const t1 = text.indexOf('\t', at);
          const t2 = t1 < 0 ? -1 : text.indexOf('\t', t1 + 1);
          if (k >= d.rows || end < 0 || t1 < 0 || t2 < 0 || t2 > end) throw new Error(`audience chunk ${d.requestId}/${d.seq}: line ${k + 1} is not a recipient line`);
          const contact = text.slice(at, t1);
          const occurrence = text.slice(t1 + 1, t2);
          if (!DIGITS.test(contact) || !DIGITS.test(occurrence)) throw new Error(`audience chunk ${d.requestId}/${d.seq}: line ${k + 1} has no contact id and occurrence`);
          out[k] = `${head}${d.firstOrdinal + k}\t${account}\t${uuid(contact, Number(occurrence))}\t${text.slice(at, end + 1)}`;
          k++;
          at = end + 1;
        }
        if (k !== d.rows) throw new Error(`audience chunk ${d.requestId}/${d.seq}: ${k} lines for ${d.rows} rows`);
        await this.db.copy(c, 'campaigns.recipient', ['campaign_id', 'ordinal', 'account_id', 'message_uuid', 'contact_id', 'occurrence', 'phone', 'iso2', 'timezone', 'variables'], out.join(''));
      }
      const t = d.totals;
      // still the run's request: the runner may have asked the audience again meanwhile (a stalled snapshot,
      // docs/decisions/0113), and this chunk's rows must then not stay
      const updated = await c.query(
        `UPDATE campaigns.run SET audience_received = audience_received + $2, audience_total = coalesce($3, audience_total), audience_error = coalesce($4, audience_error),
                excluded = coalesce($5, excluded), duplicates_removed = coalesce($6, duplicates_removed), updated_at = now()
          WHERE campaign_id = $1 AND request_id::text = $7 AND audience_attempt = $8
          RETURNING audience_total IS NOT NULL AND audience_received >= audience_total AS complete, audience_received`,
        [d.campaignId, d.rows, t?.recipients ?? null, d.error, t?.excluded ?? null, t?.duplicatesRemoved ?? null, d.requestId, attempt],
      );
      if (updated.rowCount === 0) throw new Superseded();
      if (t) await c.query(`UPDATE campaigns.campaign SET total = $2 WHERE id = $1 AND account_id = $3`, [d.campaignId, t.recipients, d.accountId]);
      const done = updated.rows[0] as { complete: boolean; audience_received: number };
      complete = done.complete && Number(done.audience_received) >= ANALYZE_AFTER_RECIPIENTS;
    }));
    if (complete) await this.analyzeRecipients();
  }

  /**
   * After a large audience is stored: the planner learns the table's new rows. Until autovacuum passes it plans the
   * runner's reads of a fresh audience (the primary key from the run's cursor) for the few rows its statistics knew,
   * and took a bitmap scan of every remaining recipient and a sort for each page (docs/benchmarks.md, stop 24: 25 s of
   * PostgreSQL to read a million back in pages of 10,000). A failure only leaves that to autovacuum.
   */
  private async analyzeRecipients(): Promise<void> {
    try {
      await this.ds.query('ANALYZE campaigns.recipient');
    } catch (e) {
      this.log.warn(`ANALYZE after an audience snapshot failed: ${String(e)}`);
    }
  }

  /**
   * Moves the run of `requestId` to a later snapshot attempt: what earlier attempts stored (recipients, claimed chunks,
   * counts) goes, in one transaction. `FOR UPDATE` waits for the chunks being stored (they hold the row `FOR KEY SHARE`),
   * so the deletes see every row an earlier attempt committed; chunks of the earlier attempt that come after find
   * another attempt and are dropped. Another chunk of the same attempt that moved it first leaves nothing to do.
   */
  private async switchAttempt(campaignId: string, requestId: string, attempt: number): Promise<void> {
    await this.db.transaction(async (c) => {
      const [run] = (await c.query<{ attempt: string }>(`SELECT audience_attempt::text AS attempt FROM campaigns.run WHERE campaign_id = $1 AND request_id::text = $2 FOR UPDATE`, [campaignId, requestId])).rows;
      if (!run || Number(run.attempt) >= attempt) return;
      await c.query(
        `UPDATE campaigns.run SET audience_attempt = $2, audience_total = NULL, audience_received = 0, audience_error = NULL, excluded = 0, duplicates_removed = 0, next_ordinal = 0, updated_at = now() WHERE campaign_id = $1`,
        [campaignId, attempt],
      );
      await c.query(`DELETE FROM campaigns.recipient WHERE campaign_id = $1`, [campaignId]);
      await c.query(`DELETE FROM campaigns.audience_batch WHERE campaign_id = $1`, [campaignId]);
    });
  }

  /** Streams' answer to a send batch: accepted items are created (and charged), halting refusals halt, the others fail. */
  async onAnswer(e: EventEnvelope): Promise<void> {
    if (e.type !== SendBatchProcessedV1.type || e.version !== 1) return;
    const d: Answer = parseEventData(SendBatchProcessedV1, e.data);
    if (d.requester !== 'campaigns' || !d.campaignId) return;
    const campaignId = d.campaignId;
    const now = this.clock.now();
    await this.uow.run(async (m, emit, notify) => {
      // the campaign must be the answer's account's, with the answer's stream
      const [own] = (await m.query(`SELECT id FROM campaigns.campaign WHERE id = $1 AND account_id = $2 AND stream_id = $3`, [campaignId, d.accountId, d.streamId])) as unknown[];
      if (!own) return;
      // every recipient of the answer locked first, in the one order (the status group commit takes the same rows).
      // Each statement names the recipients by their key, (campaign, ordinal = the item's ref), and checks the
      // messageUuid: joined to the answer alone, or narrowed by the account (the campaign is the account's, checked
      // above, and so is each of its recipients), the planner read every recipient of the campaign or of the
      // account, for every batch (docs/decisions/0108).
      await lockRecipients(m, 'r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND r.message_uuid = ANY($3::uuid[])', [campaignId, ordinals(d.items), d.items.map((i) => i.messageUuid)]);
      const accepted = d.items.filter((i) => i.outcome === 'accepted');
      // A TPS refusal while a TPS is set is a moment's jitter against the account's bucket (the runner paces at the
      // TPS already): those recipients wait for a later step, the campaign goes on. Only "no TPS set" halts.
      const paced = d.items.filter((i) => i.outcome === 'refused' && i.refusal === SendRefusal.TpsReached && i.code !== ErrorCode.LimitUndefined);
      const halting = d.items.filter((i) => i.outcome === 'refused' && i.refusal !== null && i.refusal in HALTING && !paced.includes(i));
      const failed = d.items.filter((i) => i.outcome === 'refused' && !(i.refusal !== null && i.refusal in HALTING));
      // A batch the runner recorded once (docs/decisions/0188): its recipients are still at state 0 (the ones in flight
      // without a due time) and the batch row holds what a state-2 request wrote on each of them (choices, request
      // time). The answer takes it (a repeated answer finds none, and its recipients are answered already). None: a
      // batch of an older runner, whose recipients are at state 2 with their choices (`has` false: kept as they are).
      const batch = UUID_RE.test(d.batchId)
        ? returned<{ open: boolean; requested_at: Date; ordinals: number[]; variants: string[]; senders: Array<string | null>; segments: number[] }>(
            await m.query(
              `DELETE FROM campaigns.send_batch WHERE campaign_id = $1 AND batch_id = $2::uuid RETURNING open, requested_at, ordinals, variants::text[] AS variants, senders::text[] AS senders, segments`,
              [campaignId, d.batchId],
            ),
          )[0]
        : undefined;
      const at = new Map(batch?.ordinals.map((o, k) => [o, k]));
      // streams answers every item of a batch; were one left out, its recipients stay in flight in the batch row (asked
      // again once stale), as they stayed at state 2
      const answered = new Set(ordinals(d.items));
      const left = batch?.open ? batch.ordinals.map((o, k) => k).filter((k) => !answered.has(batch.ordinals[k])) : [];
      if (batch && left.length) {
        const pick = <T>(xs: T[]) => left.map((k) => xs[k]);
        await m.query(
          `INSERT INTO campaigns.send_batch (campaign_id, batch_id, account_id, requested_at, size, ordinals, variants, senders, segments) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [campaignId, d.batchId, d.accountId, batch.requested_at, left.length, pick(batch.ordinals), pick(batch.variants), pick(batch.senders), pick(batch.segments)],
        );
      }
      // each item's choices from the batch row, as unnest columns: found, variant, sender, segments
      const choices = (items: typeof d.items) => {
        const ks = items.map((i) => at.get(Number(i.ref)));
        return [ks.map((k) => k !== undefined), ks.map((k) => (k === undefined ? null : batch!.variants[k])), ks.map((k) => (k === undefined ? null : batch!.senders[k])), ks.map((k) => (k === undefined ? null : batch!.segments[k]))];
      };
      // what a state-2 request set, from the batch row when the item is in it
      const setRequested = (b: number, a: number) =>
        `batch_id = CASE WHEN t.has THEN $${b}::uuid ELSE r.batch_id END, requested_at = CASE WHEN t.has THEN $${a}::timestamptz ELSE r.requested_at END,
         variant_id = CASE WHEN t.has THEN t.variant ELSE r.variant_id END, sender_id = CASE WHEN t.has THEN t.sender ELSE r.sender_id END, segments = CASE WHEN t.has THEN t.segments ELSE r.segments END`;
      // in flight with this batch: state 2 (an older runner's request) or, while the batch is open, state 0 without a due time
      const inFlight = batch?.open ? '(r.state = 2 OR (r.state = 0 AND r.due_at IS NULL))' : 'r.state = 2';
      let created = 0;
      // No index names a column this update changes for a recipient of a batch row (state 0, no due time, not in
      // flight by `flight_at`): it is heap-only when its page has room (docs/decisions/0209). The sweep finds the
      // accepted recipients by the `status_due` row written below, not by an index on them.
      if (accepted.length) {
        const rows = returned<{ variant_id: string | null; sender_id: string | null; price: string; ordinal: number; requested_at: string }>(
          await m.query(
            `UPDATE campaigns.recipient r SET state = 3, price_micros = t.price, reason = NULL, flight_at = NULL, due_at = NULL, ${setRequested(9, 10)}
               FROM unnest($2::int[], $3::uuid[], $4::bigint[], $5::boolean[], $6::bigint[], $7::bigint[], $8::int[]) t(o, uuid, price, has, variant, sender, segments)
              WHERE r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND r.ordinal = t.o AND r.message_uuid = t.uuid AND r.state IN (0, 2)
              RETURNING r.variant_id::text, r.sender_id::text, coalesce(t.price, 0)::text AS price, r.ordinal, coalesce(r.requested_at, now())::text AS requested_at`,
            [campaignId, ordinals(accepted), accepted.map((i) => i.messageUuid), accepted.map((i) => i.priceMicros), ...choices(accepted), batch ? d.batchId : null, batch?.requested_at ?? null],
          ),
        );
        created = rows.length;
        if (rows.length) {
          // the status sweep's record of these accepted recipients (docs/decisions/0209): one row a request time (a
          // batch's recipients share theirs), in this transaction, so none is accepted without one
          const groups = new Map<string, number[]>();
          for (const r of rows) {
            const g = groups.get(r.requested_at);
            if (g) g.push(r.ordinal);
            else groups.set(r.requested_at, [r.ordinal]);
          }
          await m.query(
            `INSERT INTO campaigns.status_due (campaign_id, account_id, due_at, ordinals) SELECT $1, $2, t.at, string_to_array(t.o, ',')::int[] FROM unnest($3::timestamptz[], $4::text[]) t(at, o)`,
            [campaignId, d.accountId, [...groups.keys()], [...groups.values()].map((o) => o.join(','))],
          );
          const cost = rows.reduce((s, r) => s + Number(r.price), 0);
          // `created` is also the run's count of accepted recipients (auto-pause, the tail): no run row to update
          await m.query(`UPDATE campaigns.campaign SET created = created + $2, cost_micros = cost_micros + $3, updated_at = $4 WHERE id = $1`, [campaignId, rows.length, cost, now]);
          await this.addPer(m, campaignId, 'campaign_variant', rows.map((r) => [r.variant_id, Number(r.price)]), 'cost_micros');
          await this.addPer(m, campaignId, 'campaign_sender', rows.map((r) => [r.sender_id, Number(r.price)]), 'cost_micros');
        }
      }
      if (failed.length) {
        const rows = returned<{ variant_id: string | null; sender_id: string | null }>(
          await m.query(
            `UPDATE campaigns.recipient r SET state = 4, reason = t.reason, flight_at = NULL, due_at = NULL, ${setRequested(9, 10)}
               FROM unnest($2::int[], $3::uuid[], $4::text[], $5::boolean[], $6::bigint[], $7::bigint[], $8::int[]) t(o, uuid, reason, has, variant, sender, segments)
              WHERE r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND r.ordinal = t.o AND r.message_uuid = t.uuid AND ${inFlight}
              RETURNING r.variant_id::text, r.sender_id::text`,
            [campaignId, ordinals(failed), failed.map((i) => i.messageUuid), failed.map((i) => i.refusal ?? 'refused'), ...choices(failed), batch ? d.batchId : null, batch?.requested_at ?? null],
          ),
        );
        if (rows.length) {
          await m.query(`UPDATE campaigns.campaign SET sent_failed = sent_failed + $2 WHERE id = $1`, [campaignId, rows.length]);
          await this.addPer(m, campaignId, 'campaign_variant', rows.map((r) => [r.variant_id, 1]), 'sent_failed');
          await this.addPer(m, campaignId, 'campaign_sender', rows.map((r) => [r.sender_id, 1]), 'sent_failed');
        }
      }
      if (paced.length) {
        // back to waiting with a due time (now): the runner's step finds it in its due index (docs/decisions/0116)
        await m.query(`UPDATE campaigns.recipient r SET state = 0, batch_id = NULL, reason = NULL, due_at = $4, flight_at = NULL WHERE r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND ${inFlight} AND r.message_uuid = ANY($3::uuid[])`, [
          campaignId,
          ordinals(paced),
          paced.map((i) => i.messageUuid),
          now,
        ]);
      }
      if (halting.length) {
        // back to waiting: they are sent after play, with the same messageUuids
        const back = returned(
          await m.query(`UPDATE campaigns.recipient r SET state = 0, batch_id = NULL, reason = NULL, due_at = $4, flight_at = NULL WHERE r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND ${inFlight} AND r.message_uuid = ANY($3::uuid[]) RETURNING r.ordinal`, [
            campaignId,
            ordinals(halting),
            halting.map((i) => i.messageUuid),
            now,
          ]),
        );
        if (back.length) {
          const refusal = halting[0].refusal as string;
          await transition(m, emit, notify, { id: campaignId, accountId: d.accountId }, CampaignAction.Halt, now, { haltReasonId: HALTING[refusal], reason: refusal });
        }
      }
      if (created || failed.length) notify({ accountId: d.accountId, type: 'campaign.stats', data: { campaignId: Number(campaignId), created, failed: failed.length } });
    });
  }

  /**
   * `counts` per row added to `column`, in the campaign's rows only: a variant by its id; a sender by the campaign and
   * the sender's id (`campaign_sender` has a row per campaign using the sender: by the sender's id alone, every campaign
   * of the account using it took the cost and failures of each).
   */
  private async addPer(
    m: { query: (sql: string, p: unknown[]) => Promise<unknown> },
    campaignId: string,
    table: 'campaign_variant' | 'campaign_sender',
    pairs: Array<[string | null, number]>,
    column: string,
  ): Promise<void> {
    const sums = new Map<string, number>();
    for (const [k, v] of pairs) if (k !== null) sums.set(k, (sums.get(k) ?? 0) + v);
    if (!sums.size) return;
    const key = table === 'campaign_variant' ? 'id' : 'sender_id';
    // rows locked in key order, as the status group commit takes them (variants by id; senders by campaign, then sender)
    const keys = [...sums.keys()].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0));
    await m.query(
      `WITH l AS (SELECT x.${key} AS k FROM campaigns.${table} x WHERE x.campaign_id = $3 AND x.${key} = ANY($1::bigint[]) ORDER BY x.${key} FOR UPDATE)
       UPDATE campaigns.${table} x SET ${column} = x.${column} + t.n FROM unnest($1::bigint[], $2::bigint[]) t(k, n), l WHERE x.campaign_id = $3 AND x.${key} = t.k AND l.k = t.k`,
      [keys, keys.map((k) => sums.get(k)), campaignId],
    );
  }

  /** Links' answer: minted links go on the recipients (they are composed next); no valid domain halts the campaign. */
  async onLinks(e: EventEnvelope): Promise<void> {
    // v1 (one JSON member a link) and v2 (compact, docs/decisions/0129) both: links sends v2 once every consumer reads it
    const d = readLinkBatchMinted(e);
    if (!d) return;
    const now = this.clock.now();
    await this.uow.run(async (m, emit, notify) => {
      await lockRecipients(m, 'r.campaign_id = $1 AND r.account_id = $2 AND r.batch_id = $3::uuid AND r.state = 1', [d.campaignId, d.accountId, d.batchId]);
      const refs = d.refs;
      if (d.outcome === 'minted' && refs.length) {
        await m.query(
          `UPDATE campaigns.recipient r SET links = t.links, state = 0, batch_id = NULL, due_at = $6, flight_at = NULL
             FROM unnest($4::int[], $5::jsonb[]) t(o, links)
            WHERE r.campaign_id = $1 AND r.account_id = $2 AND r.batch_id = $3::uuid AND r.state = 1 AND r.ordinal = t.o`,
          [d.campaignId, d.accountId, d.batchId, refs.map(Number), recipientLinks(d), now],
        );
        return;
      }
      // back to waiting with a due time: the runner's step finds them in its due index (docs/decisions/0116)
      const back = returned(
        await m.query(`UPDATE campaigns.recipient SET state = 0, batch_id = NULL, due_at = $4, flight_at = NULL WHERE campaign_id = $1 AND account_id = $2 AND batch_id = $3::uuid AND state = 1 RETURNING ordinal`, [d.campaignId, d.accountId, d.batchId, now]),
      );
      if (back.length && d.outcome !== 'minted') {
        await transition(m, emit, notify, { id: d.campaignId, accountId: d.accountId }, CampaignAction.Halt, now, { haltReasonId: CampaignHaltReason.PoolsWithoutValidOptions, reason: d.outcome });
      }
    });
  }

  /**
   * Dispatch's statuses of campaign messages: each status counted once, never moving back. Statuses come two per
   * message and every one adds to its campaign's row, so they are group-committed: the handlers running at once
   * (concurrency 64 per lane) wait on one transaction that moves their recipients (only forward, which is what makes a
   * repeated event count nothing) and adds the counts per campaign, variant and sender in a few statements (one writer of a campaign's counters at a time,
   * instead of one transaction per status queueing on the campaign's row). A failed transaction fails every waiting
   * handler; the bus retries each event, which joins a later group.
   */
  async onStatus(e: EventEnvelope): Promise<void> {
    if (e.type !== MessageStatusChangedV1.type || e.version !== 1) return;
    // most messages are no campaign's: no parse for them
    if (!(e.data as { campaignId?: unknown } | null)?.campaignId) return;
    // the contract's check written out by hand for data that passes, the schema otherwise (docs/decisions/0160)
    const d = parseStatusChanged(e.data);
    if (!d.campaignId || !(d.status in RANK)) return;
    await this.enqueueStatus({ id: e.id, messageUuid: d.messageUuid, campaignId: d.campaignId, accountId: d.accountId, status: d.status, answer: false });
  }

  /** With tracing on, each event of a chunk in its own consumer span (as one by one). */
  private readonly tracedStatusChunk = eachAtOnce((e) => (e.type === CampaignStatusesReconciledV1.type ? this.onStatusesAnswer(e) : this.onStatus(e)));

  /**
   * A delivered chunk, per-message statuses and dispatch's batches alike (docs/decisions/0173): each status change read
   * as `onStatus` reads it (a campaign's only, its account and campaign its own data's) and queued for the group commit
   * with one pair of callbacks for the chunk, not a promise per status; an answer to a status question as ever. Resolves
   * once all of them committed, fails with the first failure once every one settled.
   */
  async onStatusChunk(events: EventEnvelope[]): Promise<void> {
    const running: Array<Promise<unknown>> = [];
    const items: Array<Omit<StatusItem, 'resolve' | 'reject'>> = [];
    forEachStatusChange(
      events,
      (id, data) => {
        // most messages are no campaign's: no parse for them
        if (!(data as { campaignId?: unknown } | null)?.campaignId) return;
        const d = parseStatusChanged(data);
        if (!d.campaignId || !(d.status in RANK)) return;
        items.push({ id, messageUuid: d.messageUuid, campaignId: d.campaignId, accountId: d.accountId, status: d.status, answer: false });
      },
      (e) => {
        if (e.type === CampaignStatusesReconciledV1.type) running.push(this.onStatusesAnswer(e));
      },
    );
    if (items.length) running.push(this.enqueueStatuses(items));
    if (running.length === 0) return;
    const results = await Promise.allSettled(running);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Many statuses into the group commit at once: resolves once all committed, rejects with the first failure. */
  private enqueueStatuses(items: Array<Omit<StatusItem, 'resolve' | 'reject'>>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const { done, fail } = countdown(items.length, { resolve, reject });
      const wasEmpty = this.statusQueue.length === 0;
      for (const it of items) this.statusQueue.push({ id: it.id, messageUuid: it.messageUuid, campaignId: it.campaignId, accountId: it.accountId, status: it.status, answer: it.answer, resolve: done, reject: fail });
      if (wasEmpty) setImmediate(() => void this.flushStatuses());
    });
  }

  /**
   * Dispatch's answer to a status question (docs/decisions/0093): each status of the answer's campaign joins the status
   * group commit like a status event (only forward: a status already reached, by the events or an earlier answer,
   * counts nothing). Only the recipients of the answer's account and campaign can move (the group commit matches
   * uuid, campaign and account); an answer whose envelope is another account's is dropped.
   */
  async onStatusesAnswer(e: EventEnvelope): Promise<void> {
    if (e.type !== CampaignStatusesReconciledV1.type || e.version !== 1) return;
    const d = CampaignStatusesReconciledV1.schema.parse(e.data);
    if (e.accountId !== d.accountId) {
      this.log.error(`status answer ${e.id} names account ${d.accountId} under envelope account ${String(e.accountId)}: ignored`);
      return;
    }
    const statuses = d.statuses.filter((s) => s.status in RANK);
    const moved = await Promise.all(statuses.map((s) => this.enqueueStatus({ id: e.id, messageUuid: s.messageUuid, campaignId: d.campaignId, accountId: d.accountId, status: s.status, answer: true })));
    const recovered = moved.filter(Boolean).length;
    this.answerStats.answers++;
    this.answerStats.answered += statuses.length;
    this.answerStats.recovered += recovered;
    this.answerStats.unknown += d.unknown.length;
    const metric = StatusReconcileMetrics.recipients();
    if (statuses.length) metric.inc({ outcome: 'answered' }, statuses.length);
    if (d.unknown.length) metric.inc({ outcome: 'unknown' }, d.unknown.length);
    if (recovered) {
      metric.inc({ outcome: 'recovered' }, recovered);
      this.log.warn(`account ${d.accountId} campaign ${d.campaignId}: ${recovered} statuses recovered from dispatch (their events never reached campaigns; request ${d.requestId})`);
    }
  }

  /** Joins the status group commit; resolves once it committed, with whether this status moved its recipient. */
  private enqueueStatus(item: Omit<StatusItem, 'resolve' | 'reject'>): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.statusQueue.push({ ...item, resolve, reject });
      if (this.statusQueue.length === 1) setImmediate(() => void this.flushStatuses());
    });
  }

  private statusQueue: StatusItem[] = [];
  private statusFlush: Promise<void> = Promise.resolve();

  /** One group of waiting statuses in one transaction; groups follow each other (one writer of the counters). */
  private flushStatuses(): Promise<void> {
    this.statusFlush = this.statusFlush.then(async () => {
      const group = this.statusQueue.splice(0, 2000);
      if (!group.length) return;
      if (this.statusQueue.length) setImmediate(() => void this.flushStatuses());
      try {
        const { touched, moved } = await this.applyStatuses(group);
        for (const g of group) g.resolve(moved.has(g));
        if (touched.size) await this.uow.run(async (_m, _emit, notify) => { for (const [campaignId, accountId] of touched) notify({ accountId, type: 'campaign.stats', data: { campaignId: Number(campaignId) } }); });
      } catch (err) {
        for (const g of group) g.reject(err);
      }
    });
    return this.statusFlush;
  }

  private async applyStatuses(group: StatusItem[]): Promise<{ touched: Map<string, string>; moved: Set<StatusItem> }> {
    const touched = new Map<string, string>();
    const moved = new Set<StatusItem>();
    await this.ds.transaction(async (m) => {
      // No processed_events claim: the move itself is idempotent. A status counts only when it moves its recipient
      // forward (below), so a repeated event, or a second event of a status already reached, changes and counts
      // nothing (docs/decisions/0051: the claim was an INSERT per status, two per message, for no effect).
      // per message, the furthest status of the group (a message's sent and delivered may come together); keyed by the
      // status's account too, so a status naming another account (which moves nothing) cannot mask the message's own
      const best = new Map<string, StatusItem>();
      for (const g of group) {
        const key = `${g.accountId}:${g.campaignId}:${g.messageUuid}`;
        const had = best.get(key);
        if (!had || RANK[g.status] > RANK[had.status]) best.set(key, g);
      }
      if (!best.size) return;
      const items = [...best.values()].sort((x, y) => (x.messageUuid < y.messageUuid ? -1 : 1));
      // the recipients by their key as well as joined to the group (`message_uuid = ANY`): joined alone, the planner
      // hashed every recipient of the table for each group (docs/decisions/0108)
      const rankCase = `coalesce((CASE old.status ${Object.entries(RANK).map(([st, k]) => `WHEN '${st}' THEN ${k}`).join(' ')} END), 0)`;
      const rows = returned<{ campaign_id: string; account_id: string; uuid: string; old: string | null; status: string; variant_id: string | null; sender_id: string | null }>(
        await m.query(
          `WITH t AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::bigint[], $4::text[], $5::int[]) AS t(uuid, campaign, account, status, rank)),
                old AS (SELECT r.campaign_id, r.ordinal, r.status, t.status AS next, t.rank FROM campaigns.recipient r JOIN t ON r.message_uuid = t.uuid AND r.campaign_id = t.campaign AND r.account_id = t.account
                         WHERE r.message_uuid = ANY($1::uuid[]) ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r)
           UPDATE campaigns.recipient r SET status = old.next FROM old
            WHERE r.campaign_id = old.campaign_id AND r.ordinal = old.ordinal AND ${rankCase} < old.rank
           RETURNING r.campaign_id::text, r.account_id::text, r.message_uuid::text AS uuid, old.status AS old, old.next AS status, r.variant_id::text, r.sender_id::text`,
          [items.map((i) => i.messageUuid), items.map((i) => i.campaignId), items.map((i) => i.accountId), items.map((i) => i.status), items.map((i) => RANK[i.status])],
        ),
      );
      type Counts = { sent: number; delivered: number; undelivered: number; sent_failed: number; dlr_failed: number; left_dispatch: number };
      const zero = (): Counts => ({ sent: 0, delivered: 0, undelivered: 0, sent_failed: 0, dlr_failed: 0, left_dispatch: 0 });
      const campaigns = new Map<string, Counts>();
      const variants = new Map<string, Counts>();
      const senders = new Map<string, Counts>();
      const add = (map: Map<string, Counts>, key: string | null, row: { old: string | null; status: string }) => {
        if (key === null) return;
        const c = map.get(key) ?? zero();
        // sent once a message reached the provider (a final status without "sent" before it counts as sent too, except a failure before sending)
        if ((row.status === 'sent' || row.status === 'delivered' || row.status === 'undelivered') && row.old === null) c.sent++;
        const counter = COUNTER[row.status];
        if (counter) c[counter]++;
        // the recipient's message left dispatch's queue with this group (its first status): the run's tail count
        if (row.old === null) c.left_dispatch++;
        map.set(key, c);
      };
      for (const r of rows) {
        const item = best.get(`${r.account_id}:${r.campaign_id}:${r.uuid}`);
        if (item) moved.add(item);
        touched.set(r.campaign_id, r.account_id);
        add(campaigns, r.campaign_id, r);
        add(variants, r.variant_id, r);
        add(senders, r.sender_id === null ? null : `${r.campaign_id}:${r.sender_id}`, r);
      }
      const cols = ['sent', 'delivered', 'undelivered', 'sent_failed', 'dlr_failed', 'left_dispatch'] as const;
      const apply = async (table: string, where: string, keys: string[][], map: Map<string, Counts>, columns: readonly (typeof cols)[number][], order: string) => {
        if (!map.size) return;
        const entries = [...map.entries()].sort(([x], [y]) => (x < y ? -1 : 1));
        const sets = columns.map((c) => `${c} = x.${c} + t.${c}`).join(', ');
        const keyCols = keys.map((k, i) => `$${i + 1}::bigint[]`);
        const colArgs = columns.map((_c, i) => `$${keys.length + i + 1}::int[]`);
        // the rows locked first in key order (the order every writer takes them), then changed, in one statement
        const keyNames = keys.map((k) => k[0]);
        await m.query(
          `WITH l AS (SELECT ${keyNames.map((k) => `t.${k}`).join(', ')} FROM campaigns.${table} x, unnest(${keyCols.join(', ')}) AS t(${keyNames.join(', ')}) WHERE ${where} ORDER BY ${order} FOR UPDATE OF x)
           UPDATE campaigns.${table} x SET ${sets} FROM unnest(${[...keyCols, ...colArgs].join(', ')}) AS t(${[...keyNames, ...columns].join(', ')}), l
            WHERE ${where} AND ${keyNames.map((k) => `l.${k} = t.${k}`).join(' AND ')}`,
          [...keys.map((k) => entries.map(([key]) => key.split(':')[Number(k[1])])), ...columns.map((c) => entries.map(([, v]) => v[c]))],
        );
      };
      // the order of rows every writer takes: recipients (above), campaigns, runs, variants, senders, each by key
      // (docs/decisions/0066); the tail count is the campaign's (0074), so this group commit takes no run row
      await apply('campaign', 'x.id = t.k0', [['k0', '0']], campaigns, cols, 'x.id');
      await apply('campaign_variant', 'x.id = t.k0', [['k0', '0']], variants, ['sent', 'delivered', 'undelivered', 'sent_failed', 'dlr_failed'], 'x.id');
      await apply('campaign_sender', 'x.campaign_id = t.k0 AND x.sender_id = t.k1', [['k0', '0'], ['k1', '1']], senders, ['sent', 'delivered', 'undelivered', 'sent_failed'], 'x.campaign_id, x.sender_id');
    });
    return { touched, moved };
  }

  /**
   * A number opted out (a STOP reply, or a contact opted out in contacts): each campaign that sent to it in the 30
   * days before counts one opt-out (campaign and variant), once per recipient however often it is reported.
   */
  async onOptOut(e: EventEnvelope): Promise<void> {
    const fromDispatch = e.type === InboundOptedOutV1.type;
    if ((!fromDispatch && e.type !== ContactOptedOutV1.type) || e.version !== 1) return;
    const d = fromDispatch ? InboundOptedOutV1.schema.parse(e.data) : ContactOptedOutV1.schema.parse(e.data);
    const at = new Date('at' in d ? d.at : d.optedOutAt);
    await IdempotentConsumer.handleOnce(this.ds, CAMPAIGNS_SCHEMA, OPT_OUTS_GROUP, e, async (m) => {
      const rows = returned<{ campaign_id: string; variant_id: string | null }>(
        await m.query(
          `WITH l AS (SELECT r.campaign_id, r.ordinal FROM campaigns.recipient r
                       WHERE r.account_id = $1 AND r.phone = $2 AND r.state = 3 AND NOT r.opted_out AND r.requested_at BETWEEN $3 AND $4
                       ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r)
           UPDATE campaigns.recipient r SET opted_out = true FROM l WHERE r.campaign_id = l.campaign_id AND r.ordinal = l.ordinal
            RETURNING r.campaign_id::text, r.variant_id::text`,
          [d.accountId, d.phone, new Date(at.getTime() - OPT_OUT_WINDOW_MS), at],
        ),
      );
      // campaigns, then variants, each in id order (the order of every writer)
      const byId = (x: string, y: string) => (BigInt(x) < BigInt(y) ? -1 : BigInt(x) > BigInt(y) ? 1 : 0);
      for (const r of [...rows].sort((x, y) => byId(x.campaign_id, y.campaign_id))) await m.query(`UPDATE campaigns.campaign SET opted_out = opted_out + 1 WHERE id = $1 AND account_id = $2`, [r.campaign_id, d.accountId]);
      for (const v of rows.map((r) => r.variant_id).filter((x): x is string => x !== null).sort(byId)) await m.query(`UPDATE campaigns.campaign_variant SET opted_out = opted_out + 1 WHERE id = $1`, [v]);
    });
  }

  /**
   * `unsubscribeAutoAdd`: a recipient confirmed the opt-out link of a campaign (of the event's account) that adds
   * opt-outs to the blocked numbers, so contacts is asked to blacklist the number. Once per event.
   */
  async onLinkOptOut(e: EventEnvelope): Promise<void> {
    if (e.type !== LinkOptOutConfirmedV1.type || e.version !== 1) return;
    const d = LinkOptOutConfirmedV1.schema.parse(e.data);
    if (!d.campaignId || !d.destination || !/^\+\d{6,16}$/.test(d.destination)) return;
    const { campaignId, destination } = d;
    await this.uow.run(async (m, emit) => {
      if (!(await claimEvent(m, CAMPAIGNS_SCHEMA, OPT_OUT_BLOCKS_GROUP, e.id))) return;
      const [campaign] = returned<{ id: string }>(await m.query(`SELECT id::text FROM campaigns.campaign WHERE id = $1 AND account_id = $2 AND unsubscribe_auto_add`, [campaignId, d.accountId]));
      if (!campaign) return;
      emit(CampaignOptOutBlockRequestedV1, { accountId: d.accountId, campaignId, phone: destination, optedOutAt: d.optedOutAt }, d.accountId);
    });
  }

  /** A click on a campaign message's link: the recipient's first click counts (campaign and variant). */
  async onClick(e: EventEnvelope): Promise<void> {
    if (e.type !== LinkClickedV1.type || e.version !== 1) return;
    const d = LinkClickedV1.schema.parse(e.data);
    if (!d.campaignId || !d.messageUuid) return;
    const campaignId = d.campaignId;
    const messageUuid = d.messageUuid;
    let counted = false;
    await IdempotentConsumer.handleOnce(this.ds, CAMPAIGNS_SCHEMA, CLICKS_GROUP, e, async (m) => {
      const rows = returned<{ variant_id: string | null }>(
        await m.query(`UPDATE campaigns.recipient SET clicked = true WHERE message_uuid = $1 AND campaign_id = $2 AND account_id = $3 AND NOT clicked RETURNING variant_id::text`, [messageUuid, campaignId, d.accountId]),
      );
      if (!rows.length) return;
      await m.query(`UPDATE campaigns.campaign SET clicked = clicked + 1 WHERE id = $1`, [campaignId]);
      if (rows[0].variant_id) await m.query(`UPDATE campaigns.campaign_variant SET clicked = clicked + 1 WHERE id = $1`, [rows[0].variant_id]);
      counted = true;
    });
    // open consoles load the campaign again: clicked and CTR move live (the campaign page's CTR by its indicators)
    if (counted) await this.uow.run(async (_m, _emit, notify) => notify({ accountId: d.accountId, type: 'campaign.stats', data: { campaignId: Number(campaignId), clicked: 1 } }));
  }
}
