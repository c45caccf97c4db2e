import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  AudienceRequestedV1,
  CampaignAction,
  CampaignHaltReason,
  CampaignSendBatchRequestedV1,
  CampaignStatus,
  CampaignType,
  LinkBatchRequestedV1,
  type CampaignActionValue,
  type CampaignHaltReasonValue,
  type LinkVariableRequest,
  type MissingRuleValue,
  type SendRequestItem,
  checkWordLists,
  parseSpintax,
  spin,
  type SpinNode,
  type WordLists,
} from '@switchboard/contracts';
import { PROCESS_ROLES, type ProcessRoles, type UnitOfWorkEmit, type UnitOfWorkNotify } from '@switchboard/platform';
import { CAMPAIGNS_CONNECTION } from '../campaigns.options';
import { Clock } from '../clock';
import { CampaignsUnitOfWork } from '../services/campaigns-events.service';
import { Composer, STANDARD_VARIABLE_NAMES, type ComposeVariable } from './composer';
import { RunnerDatabase } from './runner-db';
import { RUNNER_OPTIONS, type ResolvedRunnerOptions } from './runner.options';
import { transition } from './status';
import { WindowCache, zoneFor, type SendingWindow } from './time-window';

/** Recipient states (migration 1796680000000-runner). */
export const RecipientState = { Waiting: 0, Linking: 1, Requested: 2, Accepted: 3, Refused: 4, Skipped: 5 } as const;

/** What the runner reads of a campaign to run it. */
export interface RunCampaign {
  id: string;
  accountId: string;
  status: number;
  type: number;
  streamId: string | null;
  contactListIds: string[];
  sendDuplicates: boolean;
  settings: Record<string, unknown>;
  window: SendingWindow;
  accountZone: string;
  tps: number;
}

interface RunRow {
  request_id: string;
  batch_size: number;
  audience_total: number | null;
  audience_received: number;
  audience_error: string | null;
  accepted: string;
  auto_paused: boolean;
  pause_mark: string;
  ctr_mark: string;
  last_send_at: Date | null;
  /** Every recipient at or after this ordinal is fresh: never looked at by the runner (docs/decisions/0116). */
  next_ordinal: number;
}

/** A recipient waiting for its links, taken from a page (below). */
interface RecipientRow {
  ordinal: number;
  contact_id: string;
  message_uuid: string;
  phone: string;
  /** Every variable of the recipient (links take them all). */
  variables: Record<string, string> | null;
}

/**
 * The columns of a page of recipients the send step reads, in this order, then the composer's values (`valueColumns`);
 * `variables` only when links are minted (they take them all), NULL otherwise. A page is read by COPY as one array of
 * fields, `RECIPIENT_FIELDS + values` a recipient (docs/decisions/0156).
 */
const RECIPIENT_COLUMNS = ['ordinal', 'contact_id', 'occurrence', 'message_uuid', 'phone', 'timezone', 'variables', 'links'] as const;
const RECIPIENT_FIELDS = RECIPIENT_COLUMNS.length;
const F_ORDINAL = 0;
const F_CONTACT = 1;
const F_OCCURRENCE = 2;
const F_UUID = 3;
const F_PHONE = 4;
const F_ZONE = 5;
const F_VARIABLES = 6;
const F_LINKS = 7;


/** The columns of a recipient's values of `ids` (decimal variable ids), `v0`, `v1`, ... in order. */
export function valueColumns(ids: readonly string[]): string {
  return ids.map((id, i) => {
    if (!/^\d{1,18}$/.test(id)) throw new Error(`variable id ${JSON.stringify(id)} is not a decimal id`);
    return `, variables->>'${id}' AS v${i}`;
  }).join('');
}

/** TypeORM answers an UPDATE ... RETURNING on PostgreSQL as `[rows, affected]`. */
export function returned<R>(result: unknown): R[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as R[];
  return result as R[];
}

/**
 * Locks recipients in the one order every writer takes them, (campaign, ordinal) (docs/decisions/0066). A statement
 * that changes many recipients locks them in its plan's order (an answer's items when the recipients are hashed, the
 * table's order on a sequential or bitmap scan), and two writers taking the same rows in different orders deadlock;
 * locking first, in this order, leaves every later statement of the transaction only rows it already holds.
 * `where` is over `r`.
 */
export async function lockRecipients(m: Pick<EntityManager, 'query'>, where: string, params: unknown[]): Promise<void> {
  await m.query(`SELECT count(*) FROM (SELECT 1 FROM campaigns.recipient r WHERE ${where} ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r) l`, params);
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
const hhmm = (v: string | null): string | null => (v ? v.slice(0, 5) : null);

/**
 * Runs started campaigns (docs/decisions/0032-campaign-runner.md): asks contacts for the audience, then sends in
 * batches through streams paced by the TPS, each recipient in its sending hours, halting on the limits streams
 * reports and on auto-pause, and finishing when every recipient has a final outcome and dispatch has sent (or failed)
 * every message streams accepted. All state is in the database:
 * a campaign is leased by one runner at a time, a runner killed anywhere is replaced after its lease, and a recipient
 * re-requested after a crash is the same message (messageUuid) to streams.
 */
@Injectable()
export class CampaignRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('CampaignRunner');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  /** Window answers per campaign, kept while its settings stay the same. */
  private readonly windows = new Map<string, { key: string; cache: WindowCache }>();

  constructor(
    @InjectDataSource(CAMPAIGNS_CONNECTION) private readonly ds: DataSource,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(RUNNER_OPTIONS) private readonly o: ResolvedRunnerOptions,
    private readonly uow: CampaignsUnitOfWork,
    private readonly clock: Clock,
    private readonly db: RunnerDatabase,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers || this.o.intervalMs === 0) return;
    const loop = () => {
      if (this.stopped) return;
      this.running = this.runOnce()
        .catch((e: unknown) => this.log.warn(`runner pass failed: ${(e as Error).message}`))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, this.o.intervalMs);
        });
    };
    this.timer = setTimeout(loop, this.o.intervalMs);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: every running campaign this runner holds or can take gets one step. */
  async runOnce(): Promise<void> {
    const now = this.clock.now();
    const ids = (await this.ds.query(
      `SELECT c.id::text AS id FROM campaigns.campaign c LEFT JOIN campaigns.run r ON r.campaign_id = c.id
        WHERE c.deleted_at IS NULL AND c.status IN (1, 2, 5, 6)
          AND (r.campaign_id IS NULL OR r.lease_until IS NULL OR r.lease_until < $1 OR r.lease_owner = $2)
        ORDER BY c.id LIMIT 100`,
      [now, this.o.instanceId],
    )) as Array<{ id: string }>;
    for (const { id } of ids) {
      try {
        await this.step(id);
      } catch (e) {
        this.log.warn(`campaign ${id}: ${(e as Error).message}`);
      }
    }
  }

  /** Reads a campaign with what the runner needs (account zone and TPS, stream TPS). */
  async load(m: EntityManager | DataSource, id: string): Promise<RunCampaign | null> {
    const [r] = (await m.query(
      `SELECT c.id::text, c.account_id::text, c.status, c.type, c.stream_id::text, c.contact_list_ids::text[] AS lists, c.send_duplicates, c.campaign_settings,
              c.timezone_mode, c.timezone, c.working_days, c.working_hours_start::text AS wh_start, c.working_hours_end::text AS wh_end, c.start_date, c.end_date,
              coalesce(a.time_zone, 'UTC') AS account_zone, coalesce(a.tps, 0) AS account_tps, coalesce(s.tps, 0) AS stream_tps
         FROM campaigns.campaign c
         LEFT JOIN campaigns.account a ON a.account_id = c.account_id
         LEFT JOIN campaigns.stream s ON s.stream_id = c.stream_id AND s.account_id = c.account_id
        WHERE c.id = $1 AND c.deleted_at IS NULL`,
      [id],
    )) as Array<Record<string, never>>;
    if (!r) return null;
    const tpsList = [r.account_tps as number, r.stream_tps as number].filter((t) => t > 0);
    return {
      id: r.id,
      accountId: r.account_id,
      status: r.status,
      type: r.type,
      streamId: r.stream_id,
      contactListIds: r.lists ?? [],
      sendDuplicates: r.send_duplicates,
      settings: r.campaign_settings ?? {},
      window: {
        start: hhmm(r.wh_start),
        end: hhmm(r.wh_end),
        days: r.working_days ?? null,
        mode: r.timezone_mode,
        timezone: r.timezone,
        dateStart: r.start_date ? new Date(r.start_date).toISOString() : null,
        dateEnd: r.end_date ? new Date(r.end_date).toISOString() : null,
      },
      accountZone: r.account_zone,
      tps: tpsList.length ? Math.min(...tpsList) : 1,
    };
  }

  /** One step of one campaign, under its lease. */
  async step(id: string): Promise<void> {
    const now = this.clock.now();
    const c = await this.load(this.ds, id);
    if (!c) return;
    if (c.status === CampaignStatus.Started && !(await this.hasRun(id))) {
      await this.begin(c, now);
      return;
    }
    const leased = returned<RunRow>(
      await this.ds.query(
        `UPDATE campaigns.run SET lease_owner = $2, lease_until = $3
          WHERE campaign_id = $1 AND (lease_until IS NULL OR lease_until < $4 OR lease_owner = $2)
          RETURNING request_id::text, batch_size, audience_total, audience_received, audience_error, (SELECT c.created::text FROM campaigns.campaign c WHERE c.id = $1) AS accepted,
                    auto_paused, pause_mark::text, ctr_mark::text, last_send_at, next_ordinal`,
        [id, this.o.instanceId, new Date(now.getTime() + this.o.leaseMs), now],
      ),
    );
    const run = leased[0];
    if (!run) return;
    if (c.status === CampaignStatus.Started) {
      await this.act(c, CampaignAction.Process, now);
      c.status = CampaignStatus.Processing;
    }
    if (c.status === CampaignStatus.Processing) {
      if (run.audience_error) {
        await this.act(c, CampaignAction.Finish, now, { reason: `audience: ${run.audience_error}` });
        return;
      }
      if (run.audience_total === null || run.audience_received < run.audience_total) {
        if (run.audience_received > 0 || run.audience_total !== null) await this.askAudienceAgainIfStalled(c, run.request_id);
        return;
      }
      await this.act(c, CampaignAction.Ready, now);
      c.status = CampaignStatus.Ready;
    }
    if (c.status === CampaignStatus.Ready) {
      if (!(await this.act(c, CampaignAction.Send, now))) return;
      c.status = CampaignStatus.Sending;
    }
    if (c.status === CampaignStatus.Sending) await this.send(c, run, now);
  }

  private async hasRun(id: string): Promise<boolean> {
    return ((await this.ds.query(`SELECT 1 FROM campaigns.run WHERE campaign_id = $1`, [id])) as unknown[]).length > 0;
  }

  private act(c: RunCampaign, action: CampaignActionValue, now: Date, o: { haltReasonId?: CampaignHaltReasonValue | null; reason?: string | null } = {}): Promise<boolean> {
    return this.uow.run((m, emit, notify) => transition(m, emit, notify, c, action, now, o));
  }

  /** Start: the run row (taken by one runner only), the audience request, and the move to processing, in one transaction. */
  private async begin(c: RunCampaign, now: Date): Promise<void> {
    const variableIds = await this.variableIds(c.id);
    await this.uow.run(async (m, emit, notify) => {
      const requestId = randomUUID();
      const created = returned(
        await m.query(
          `INSERT INTO campaigns.run (campaign_id, account_id, request_id, batch_size, lease_owner, lease_until) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (campaign_id) DO NOTHING RETURNING campaign_id`,
          [c.id, c.accountId, requestId, this.o.audienceBatchSize, this.o.instanceId, new Date(now.getTime() + this.o.leaseMs)],
        ),
      );
      if (!created.length) return;
      await m.query(`UPDATE campaigns.campaign SET started_at = coalesce(started_at, $2) WHERE id = $1`, [c.id, now]);
      if (!(await transition(m, emit, notify, c, CampaignAction.Process, now))) throw new Error('the campaign is no longer started');
      if (!c.contactListIds.length) {
        await m.query(`UPDATE campaigns.run SET audience_total = 0 WHERE campaign_id = $1`, [c.id]);
        return;
      }
      emit(
        AudienceRequestedV1,
        { requestId, accountId: c.accountId, campaignId: c.id, contactListIds: c.contactListIds.slice(0, 100), sendDuplicates: c.sendDuplicates, variableIds, batchSize: this.o.audienceBatchSize, format: this.o.audienceFormat },
        c.accountId,
      );
    });
  }

  /**
   * A snapshot that delivered part of its chunks and then nothing for `audienceStallMs` lost the rest on the way (the
   * broker deleted chunks campaigns had not read: a partition's retention, an offset reset; docs/decisions/0113). Those
   * chunks never come, and the PostgreSQL snapshot they were read in is gone, so the audience is asked again from the
   * start under a new request id: nothing was sent yet (sending starts once every recipient is stored), the stored
   * recipients and claimed chunks are dropped in the same transaction, and chunks of the old request still on the way
   * are ignored (their request id is no longer the run's; one being stored meanwhile rolls back, see onAudienceChunk).
   */
  private async askAudienceAgainIfStalled(c: RunCampaign, oldRequest: string): Promise<void> {
    if (!this.o.audienceStallMs || !c.contactListIds.length) return;
    const variableIds = await this.variableIds(c.id);
    await this.uow.run(async (m, emit) => {
      const requestId = randomUUID();
      // the run row first: a chunk transaction of the old request updates it last, so it either committed before (its
      // rows are deleted below) or waits and then finds another request id (and rolls back)
      const moved = returned(
        await m.query(
          `UPDATE campaigns.run SET request_id = $3, audience_attempt = 0, audience_total = NULL, audience_received = 0, audience_error = NULL, excluded = 0, duplicates_removed = 0, next_ordinal = 0, updated_at = now()
            WHERE campaign_id = $1 AND request_id::text = $2 AND (audience_total IS NULL OR audience_received < audience_total)
              AND (audience_received > 0 OR audience_total IS NOT NULL) AND updated_at < now() - $4 * interval '1 millisecond'
            RETURNING audience_received`,
          [c.id, oldRequest, requestId, this.o.audienceStallMs],
        ),
      );
      if (!moved.length) return;
      await m.query(`DELETE FROM campaigns.recipient WHERE campaign_id = $1`, [c.id]);
      await m.query(`DELETE FROM campaigns.audience_batch WHERE campaign_id = $1`, [c.id]);
      this.log.warn(`campaign ${c.id}: the audience snapshot ${oldRequest} delivered part of its chunks and nothing for ${this.o.audienceStallMs} ms (chunks lost on the way); asked again as ${requestId}`);
      emit(
        AudienceRequestedV1,
        { requestId, accountId: c.accountId, campaignId: c.id, contactListIds: c.contactListIds.slice(0, 100), sendDuplicates: c.sendDuplicates, variableIds, batchSize: this.o.audienceBatchSize, format: this.o.audienceFormat },
        c.accountId,
      );
    });
  }

  /** The variables the campaign's texts may use: its variable links and the standard ones (null: all of them, none linked). */
  private async variableIds(campaignId: string): Promise<string[] | null> {
    const rows = (await this.ds.query(`SELECT variable_id::text AS id FROM campaigns.campaign_variable WHERE campaign_id = $1`, [campaignId])) as Array<{ id: string }>;
    return [...new Set(['1', '2', '3', '4', '5', '6', ...rows.map((r) => r.id)])];
  }

  /** The composer of the campaign's variants, senders and variables as they are now (ratio changes apply to the recipients not sent yet). */
  async composer(m: EntityManager | DataSource, c: RunCampaign): Promise<{ composer: Composer; senderIds: string[]; variants: string[]; links: LinkVariableRequest[] }> {
    const variants = (await m.query(`SELECT id::text, text, ratio FROM campaigns.campaign_variant WHERE campaign_id = $1 ORDER BY position, id`, [c.id])) as Array<{ id: string; text: string; ratio: number }>;
    const senders = (await m.query(
      `SELECT cs.sender_id::text AS id, s.value, cs.ratio FROM campaigns.campaign_sender cs
         JOIN campaigns.sender s ON s.sender_id = cs.sender_id AND s.account_id = cs.account_id AND NOT s.deleted
        WHERE cs.campaign_id = $1 ORDER BY cs.position, cs.id`,
      [c.id],
    )) as Array<{ id: string; value: string; ratio: number }>;
    const vars = (await m.query(`SELECT variable_id::text AS id, variable_name AS name, default_value, missing_rule, params FROM campaigns.campaign_variable WHERE campaign_id = $1`, [c.id])) as Array<{
      id: string;
      name: string;
      default_value: string | null;
      missing_rule: number;
      params: Record<string, unknown>;
    }>;
    const isLink = (v: { name: string; params: Record<string, unknown> }) => v.name === 'shorturl' || v.name === 'optout' || num(v.params?.offer) !== null || Array.isArray(v.params?.domains) || num(v.params?.domain_pool) !== null;
    const variables: ComposeVariable[] = vars.map((v) => ({ id: isLink(v) ? null : v.id, name: v.name, defaultValue: v.default_value, missingRule: v.missing_rule as MissingRuleValue, link: isLink(v) }));
    const composer = new Composer({ campaignId: c.id, variants, senders, variables, spin: await this.spinner(m, c, variants), sms: c.type !== CampaignType.WhatsApp && c.type !== CampaignType.Telegram });
    const links: LinkVariableRequest[] = composer.linkVariables.map((name) => {
      const p = vars.find((v) => v.name === name)?.params ?? {};
      return {
        variable: name,
        kind: name === 'optout' ? 'optout' : 'shorturl',
        offerId: num(p.offer) !== null ? String(num(p.offer)) : null,
        url: typeof p.url === 'string' ? p.url : null,
        domainIds: Array.isArray(p.domains) ? p.domains.map((d) => num(typeof d === 'object' && d ? (d as { id?: unknown }).id : d)).filter((d): d is number => d !== null).map(String) : [],
        domainPoolId: num(p.domain_pool) !== null ? String(num(p.domain_pool)) : null,
        expireInDays: num(p.expired),
      };
    });
    return { composer, senderIds: senders.map((s) => s.id), variants: variants.map((v) => v.id), links };
  }

  /** The campaigns service's spintax with the account's word lists (when the texts use any), each text parsed once. */
  private async spinner(m: EntityManager | DataSource, c: RunCampaign, variants: Array<{ text: string }>): Promise<(text: string, seed: string) => string> {
    let lists: WordLists = new Map();
    if (variants.some((v) => v.text.includes('[['))) {
      const rows = (await m.query(
        `SELECT lower(wl.name) AS name, array_agg(w.value ORDER BY w.id) AS words FROM campaigns.word_list wl JOIN campaigns.word w ON w.word_list_id = wl.id
          WHERE wl.account_id = $1 GROUP BY lower(wl.name)`,
        [c.accountId],
      )) as Array<{ name: string; words: string[] }>;
      lists = new Map(rows.map((r) => [r.name, r.words]));
    }
    const parsed = new Map<string, SpinNode[]>();
    return (text, seed) => {
      let nodes = parsed.get(text);
      if (!nodes) {
        nodes = parseSpintax(text);
        checkWordLists(nodes, lists);
        parsed.set(text, nodes);
      }
      return spin(nodes, seed, undefined, lists).text;
    };
  }

  private windowCache(c: RunCampaign): WindowCache {
    const key = JSON.stringify(c.window);
    const hit = this.windows.get(c.id);
    if (hit && hit.key === key) return hit.cache;
    const cache = new WindowCache(c.window);
    this.windows.set(c.id, { key, cache });
    return cache;
  }

  /** The auto-pause cap: how many more messages may be requested before the campaign pauses (Infinity: no cap). */
  private autoPauseRoom(c: RunCampaign, run: RunRow, inFlight: number): number {
    const after = num(c.settings.auto_pause_after_messages);
    const every = num(c.settings.auto_pause_after_every_messages);
    const done = Number(run.accepted) + inFlight;
    let room = Infinity;
    if (after && after > 0 && !run.auto_paused) room = Math.min(room, after - done);
    if (every && every > 0) room = Math.min(room, Number(run.pause_mark) + every - done);
    return room;
  }

  /**
   * A sending step: stale requests again, auto-pause, links, then a batch of the recipients whose window is open.
   * Every statement reads by key, so a step costs the same at the millionth recipient as at the tenth
   * (docs/decisions/0116): the recipients waiting again (due time reached: their hours opened, a request sent back)
   * from `recipient_due_idx`, then the fresh ones from the run's cursor (`next_ordinal`) on the primary key. A
   * recipient whose hours are closed gets its due time and leaves the fresh ones; no step reads it again before then.
   */
  private async send(c: RunCampaign, run: RunRow, now: Date): Promise<void> {
    const nowMs = now.getTime();
    // a batch streams has not answered for too long is asked again: the same messageUuids, so nothing is sent twice.
    // Behind the cursor a waiting recipient always has a due time (here: now), which is how the step finds it again.
    await this.ds.query(
      `WITH l AS (SELECT r.campaign_id, r.ordinal FROM campaigns.recipient r WHERE r.campaign_id = $1 AND r.flight_at < $2 AND r.state IN (1, 2) ORDER BY r.campaign_id, r.ordinal FOR UPDATE OF r)
       UPDATE campaigns.recipient r SET state = 0, batch_id = NULL, due_at = $3, flight_at = NULL FROM l WHERE r.campaign_id = l.campaign_id AND r.ordinal = l.ordinal`,
      [c.id, new Date(nowMs - this.o.resendAfterMs), now],
    );
    // the same for batches recorded once (0188): the batch closes (kept for a late answer's choices), its recipients
    // still unanswered (state 0 without a due time, behind the cursor) wait again with a due time, in one transaction.
    // The recipients by key: joined to the closed batches in one statement, the planner may scan the campaign's rows.
    await this.uow.run(async (m) => {
      const stale = returned<{ ordinals: number[] }>(
        await m.query(`UPDATE campaigns.send_batch SET open = false WHERE campaign_id = $1 AND open AND requested_at < $2 RETURNING ordinals`, [c.id, new Date(nowMs - this.o.resendAfterMs)]),
      );
      const again = stale.flatMap((b) => b.ordinals);
      if (!again.length) return;
      await lockRecipients(m, 'r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND r.state = 0 AND r.due_at IS NULL', [c.id, again]);
      await m.query(`UPDATE campaigns.recipient SET due_at = $3 WHERE campaign_id = $1 AND ordinal = ANY($2::int[]) AND state = 0 AND due_at IS NULL`, [c.id, again, now]);
    });
    // in flight and accepted from one snapshot: an answer moves recipients out of flight and adds them to accepted in
    // one transaction, so reading the two apart could count those recipients in neither (and auto-pause late). The
    // accepted recipients are the campaign's `created`, the tail count its `left_dispatch` (docs/decisions/0074).
    // In flight is counted on its own partial index (0108). Anything left to send is a recipient in flight, a fresh one
    // (at or after the cursor: one entry of the primary key) or one waiting again (the first entry of the due index,
    // whose time also says whether any is due now), never a scan of the campaign's open recipients (0116).
    const [{ in_flight: inFlight, fresh, next_due: nextDue, accepted, left_dispatch: leftDispatch }] = (await this.ds.query(
      `SELECT (SELECT count(*)::int FROM campaigns.recipient WHERE campaign_id = $1 AND flight_at IS NOT NULL AND state IN (1, 2))
              + (SELECT coalesce(sum(size), 0)::int FROM campaigns.send_batch WHERE campaign_id = $1 AND open) AS in_flight,
              (SELECT ordinal FROM campaigns.recipient WHERE campaign_id = $1 AND ordinal >= $2 ORDER BY campaign_id, ordinal LIMIT 1) IS NOT NULL AS fresh,
              (SELECT due_at FROM campaigns.recipient WHERE campaign_id = $1 AND state = 0 AND due_at IS NOT NULL ORDER BY due_at, ordinal LIMIT 1) AS next_due,
              c.created::text AS accepted, c.left_dispatch::text AS left_dispatch
         FROM campaigns.campaign c WHERE c.id = $1`,
      [c.id, run.next_ordinal],
    )) as Array<{ in_flight: number; fresh: boolean; next_due: Date | null; accepted: string; left_dispatch: string }>;
    run = { ...run, accepted };
    if (!inFlight && !fresh && nextDue === null) {
      // Every recipient has its answer from streams, but what streams accepted may still wait in dispatch's queue (a
      // carrier slower than the campaign): the campaign keeps sending (so pause, play and abort still act on that tail,
      // docs/decisions/0066) until every accepted recipient's message has left dispatch (its first status came back).
      if (Number(leftDispatch) < Number(accepted)) return;
      await this.finish(c, run, now);
      return;
    }
    const { composer, senderIds, variants, links } = await this.composer(this.ds, c);
    if (links.length && (await this.ctrHalt(c, run, now))) return;
    const room = this.autoPauseRoom(c, run, inFlight);
    if (room <= 0) {
      if (inFlight === 0) await this.autoPause(c, run, now);
      return;
    }
    // at most one second of traffic in flight (pause takes effect within a second), paced by the TPS
    const elapsed = run.last_send_at ? Math.min(1, Math.max(0, (nowMs - new Date(run.last_send_at).getTime()) / 1000)) : 1;
    const allowance = Math.min(this.o.batchMax, Math.floor(c.tps * elapsed), c.tps - inFlight, room);
    if (allowance <= 0) return;

    const cache = this.windowCache(c);
    const columns = RECIPIENT_COLUMNS.map((col) => (col === 'variables' && !links.length ? 'NULL::jsonb AS variables' : col)).join(', ') + valueColumns(composer.valueIds);
    const width = RECIPIENT_FIELDS + composer.valueIds.length;
    const readPage = (where: string, order: string, values: unknown[]) =>
      this.db.copyOut(`SELECT ${columns} FROM campaigns.recipient WHERE campaign_id = $1 AND ${where} ORDER BY ${order} LIMIT $3`, [c.id, ...values], width);
    const later: Array<[number, Date]> = [];
    const unreachable: number[] = [];
    const skipped: Array<[number, string]> = [];
    const needLinks: RecipientRow[] = [];
    const items: SendRequestItem[] = [];
    const chosen: Array<{ ordinal: number; variant: string; sender: string | null; segments: number }> = [];
    // the chosen recipients that were waiting with a due time (the others are fresh: the cursor moves past them)
    const chosenDue: number[] = [];
    let fromDue = false;
    const full = () => items.length + needLinks.length >= allowance;
    // the recipient whose fields start at `f[i]`
    const consider = (f: Array<string | null>, i: number, ordinal: number) => {
      const at = cache.next(nowMs, zoneFor(c.window, f[i + F_ZONE], c.accountZone));
      if (at === null) {
        unreachable.push(ordinal);
        return;
      }
      if (at > nowMs) {
        later.push([ordinal, new Date(at)]);
        return;
      }
      const mintedText = f[i + F_LINKS];
      const minted = mintedText === null ? null : (JSON.parse(mintedText) as Record<string, string> | null);
      if (links.length && !minted) {
        const variables = f[i + F_VARIABLES];
        needLinks.push({ ordinal, contact_id: f[i + F_CONTACT]!, message_uuid: f[i + F_UUID]!, phone: f[i + F_PHONE]!, variables: variables === null ? null : (JSON.parse(variables) as Record<string, string>) });
        return;
      }
      const out = composer.compose(
        { ordinal, contactId: f[i + F_CONTACT]!, occurrence: Number(f[i + F_OCCURRENCE]), values: f, valuesFrom: i + RECIPIENT_FIELDS },
        minted ?? undefined,
      );
      if (!out.ok) {
        skipped.push([ordinal, out.variable ? `${out.reason}:${out.variable}` : out.reason]);
        return;
      }
      items.push({ messageUuid: f[i + F_UUID]!, destination: f[i + F_PHONE]!, text: out.text, sender: out.sender, payload: null, notBefore: null, ref: String(ordinal), variantId: variants[out.variantIndex] ?? null });
      chosen.push({ ordinal, variant: variants[out.variantIndex], sender: out.senderIndex >= 0 ? senderIds[out.senderIndex] : null, segments: out.segments });
      if (fromDue) chosenDue.push(ordinal);
    };
    let read = 0;
    // first the recipients waiting again whose time came, by due time, from the due index only
    if (nextDue !== null && new Date(nextDue).getTime() <= nowMs) {
      const due = await readPage('state = 0 AND due_at IS NOT NULL AND due_at <= $2', 'due_at, ordinal', [now, allowance * 2]);
      read += due.length / width;
      fromDue = true;
      for (let i = 0; i < due.length; i += width) {
        if (full()) break;
        consider(due, i, Number(due[i + F_ORDINAL]));
      }
      fromDue = false;
    }
    // then fresh ones from the cursor, a page at a time while the batch is not full (recipients whose hours are
    // closed take no room), at most a few pages a step; the cursor moves past every recipient considered
    let cursor = run.next_ordinal;
    for (let page = 0; fresh && page < 4 && !full(); page++) {
      const rows = await readPage('ordinal >= $2 AND state = 0 AND due_at IS NULL', 'campaign_id, ordinal', [cursor, allowance * 2]);
      read += rows.length / width;
      for (let i = 0; i < rows.length; i += width) {
        if (full()) break;
        const ordinal = Number(rows[i + F_ORDINAL]);
        consider(rows, i, ordinal);
        cursor = ordinal + 1;
      }
      if (rows.length < allowance * 2 * width) break;
    }
    if (!read) return;

    await this.uow.run(async (m, emit) => {
      // recorded once a batch (0188), a fresh chosen recipient's row is not written: nothing to lock
      const requested = this.o.batchRequests ? chosenDue : chosen.map((x) => x.ordinal);
      const touched = [...later.map((l) => l[0]), ...unreachable, ...skipped.map((x) => x[0]), ...needLinks.map((r) => r.ordinal), ...requested];
      if (touched.length) await lockRecipients(m, 'r.campaign_id = $1 AND r.ordinal = ANY($2::int[])', [c.id, touched]);
      if (later.length) {
        await m.query(`UPDATE campaigns.recipient r SET due_at = t.at FROM unnest($2::int[], $3::timestamptz[]) t(o, at) WHERE r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND r.ordinal = t.o AND r.state = 0`, [
          c.id,
          later.map((l) => l[0]),
          later.map((l) => l[1]),
        ]);
      }
      if (unreachable.length || skipped.length) {
        const all = [...unreachable.map((o) => [o, 'unreachable_timezone'] as [number, string]), ...skipped];
        await m.query(`UPDATE campaigns.recipient r SET state = 5, reason = t.reason, due_at = NULL FROM unnest($2::int[], $3::text[]) t(o, reason) WHERE r.campaign_id = $1 AND r.ordinal = ANY($2::int[]) AND r.ordinal = t.o AND r.state = 0`, [
          c.id,
          all.map((a) => a[0]),
          all.map((a) => a[1]),
        ]);
      }
      if (needLinks.length) await this.requestLinks(m, emit, c, composer, variants, links, needLinks, now);
      if (items.length) {
        if (!c.streamId) throw new Error('the campaign has no stream');
        const batchId = randomUUID();
        if (this.o.batchRequests) {
          // one row for the batch (docs/decisions/0188): the recipients stay at state 0, the fresh ones behind the moved
          // cursor without a due time (which no step reads again), the ones that were waiting lose their due time
          if (chosenDue.length) await m.query(`UPDATE campaigns.recipient SET due_at = NULL WHERE campaign_id = $1 AND ordinal = ANY($2::int[]) AND state = 0`, [c.id, chosenDue]);
          await m.query(
            `INSERT INTO campaigns.send_batch (campaign_id, batch_id, account_id, requested_at, size, ordinals, variants, senders, segments) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
            [c.id, batchId, c.accountId, now, chosen.length, chosen.map((x) => x.ordinal), chosen.map((x) => x.variant), chosen.map((x) => x.sender), chosen.map((x) => x.segments)],
          );
        } else {
          // by key (`ordinal = ANY`) as well as joined: joined alone, the planner read every open recipient (0108)
          await m.query(
            `UPDATE campaigns.recipient r SET state = 2, batch_id = $2, requested_at = $3, flight_at = $3, due_at = NULL, variant_id = t.variant, sender_id = t.sender, segments = t.segments
               FROM unnest($4::int[], $5::bigint[], $6::bigint[], $7::int[]) t(o, variant, sender, segments)
              WHERE r.campaign_id = $1 AND r.ordinal = ANY($4::int[]) AND r.ordinal = t.o AND r.state = 0`,
            [c.id, batchId, now, chosen.map((x) => x.ordinal), chosen.map((x) => x.variant), chosen.map((x) => x.sender), chosen.map((x) => x.segments)],
          );
        }
        emit(CampaignSendBatchRequestedV1, { batchId, accountId: c.accountId, streamId: c.streamId, campaignId: c.id, items }, c.accountId);
      }
      // the cursor moves with the recipients it passed, and only from where this step read it: a runner that lost its
      // lease meanwhile (and whose successor moved it) rolls its whole step back
      const moved = returned(
        await m.query(`UPDATE campaigns.run SET last_send_at = $2, updated_at = $2, next_ordinal = $3 WHERE campaign_id = $1 AND next_ordinal = $4 RETURNING campaign_id`, [c.id, now, cursor, run.next_ordinal]),
      );
      if (!moved.length) throw new Error('the run moved on meanwhile (another runner holds the campaign)');
    });
  }

  private async requestLinks(
    m: EntityManager,
    emit: UnitOfWorkEmit,
    c: RunCampaign,
    composer: Composer,
    variantIds: string[],
    links: LinkVariableRequest[],
    rows: RecipientRow[],
    now: Date,
  ): Promise<void> {
    const batchId = randomUUID();
    const names = (await m.query(`SELECT variable_id::text AS id, variable_name AS name FROM campaigns.campaign_variable WHERE campaign_id = $1`, [c.id])) as Array<{ id: string; name: string }>;
    // the recipient's standard fields (firstName, ...) too, by their names: an offer's URL may use them
    const nameOf = new Map([...STANDARD_VARIABLE_NAMES, ...names.map((n) => [n.id, n.name] as [string, string])]);
    await m.query(`UPDATE campaigns.recipient SET state = 1, batch_id = $2, requested_at = $3, flight_at = $3, due_at = NULL WHERE campaign_id = $1 AND ordinal = ANY($4::int[]) AND state = 0`, [c.id, batchId, now, rows.map((r) => r.ordinal)]);
    emit(
      LinkBatchRequestedV1,
      {
        batchId,
        accountId: c.accountId,
        campaignId: c.id,
        streamId: c.streamId,
        variables: links,
        items: rows.map((r) => {
          const vars: Record<string, string> = {};
          for (const [id, v] of Object.entries(r.variables ?? {})) vars[nameOf.get(id) ?? id] = v;
          const vi = composer.variantOf(r.ordinal);
          return { ref: String(r.ordinal), messageUuid: r.message_uuid, contactId: r.contact_id, destination: r.phone, vars, variantId: vi >= 0 ? variantIds[vi] : null };
        }),
      },
      c.accountId,
    );
  }

  /**
   * The CTR rules (spec 4 halt reasons 3 and 4, `ctr_indicators` [bad, good]) for a campaign with links: over the
   * recipients accepted at least `ctrDelayMs` ago (a sample of at least `ctrMinSample`, fresh after each CTR halt), no
   * click at all halts with "no clicks", a click rate under the bad indicator with "very low click rate".
   */
  private async ctrHalt(c: RunCampaign, run: RunRow, now: Date): Promise<boolean> {
    const ind = c.settings.ctr_indicators as unknown;
    const bad = Array.isArray(ind) ? num(ind[0]) : ind && typeof ind === 'object' ? num((ind as { bad?: unknown }).bad) : null;
    if (bad === null) return false;
    const last = this.ctrJudged.get(c.id);
    if (last !== undefined && now.getTime() - last < this.o.ctrEveryMs) return false;
    this.ctrJudged.set(c.id, now.getTime());
    const [{ sample, clicks }] = (await this.ds.query(
      `SELECT count(*)::int AS sample, count(*) FILTER (WHERE clicked)::int AS clicks FROM campaigns.recipient WHERE campaign_id = $1 AND state = 3 AND requested_at <= $2`,
      [c.id, new Date(now.getTime() - this.o.ctrDelayMs)],
    )) as Array<{ sample: number; clicks: number }>;
    if (sample < Number(run.ctr_mark) + this.o.ctrMinSample) return false;
    const reason = clicks === 0 ? CampaignHaltReason.NoClicks : (clicks * 100) / sample < bad ? CampaignHaltReason.VeryLowClickRate : null;
    if (reason === null) return false;
    await this.uow.run(async (m, emit, notify) => {
      const rate = ((clicks * 100) / sample).toFixed(2);
      if (await transition(m, emit, notify, c, CampaignAction.Halt, now, { haltReasonId: reason, reason: `click rate ${rate}% over ${sample} messages` })) {
        await m.query(`UPDATE campaigns.run SET ctr_mark = $2 WHERE campaign_id = $1`, [c.id, sample]);
      }
    });
    return true;
  }

  private readonly ctrJudged = new Map<string, number>();

  private async autoPause(c: RunCampaign, run: RunRow, now: Date): Promise<void> {
    await this.uow.run(async (m, emit, notify) => {
      if (!(await transition(m, emit, notify, c, CampaignAction.Halt, now, { haltReasonId: CampaignHaltReason.AutoPause, reason: 'auto pause' }))) return;
      const after = num(c.settings.auto_pause_after_messages);
      const every = num(c.settings.auto_pause_after_every_messages);
      const done = Number(run.accepted);
      await m.query(`UPDATE campaigns.run SET auto_paused = auto_paused OR $2, pause_mark = CASE WHEN $3 THEN $4 ELSE pause_mark END WHERE campaign_id = $1`, [
        c.id,
        !!after && done >= after,
        !!every && done >= Number(run.pause_mark) + every,
        done,
      ]);
    });
  }

  /** Every recipient has its outcome: finished, or halted when the window never opens for anyone it could send to. */
  private async finish(c: RunCampaign, run: RunRow, now: Date): Promise<void> {
    // The cursor's rule, checked once at the end (a scan of the campaign, once): a recipient behind the cursor that
    // waits with no due time would be found by no step. None should; one found is given a due time and sent, rather
    // than the campaign finishing without it.
    const stray = await this.uow.run(async (m) => {
      await lockRecipients(m, 'r.campaign_id = $1 AND r.state = 0 AND r.due_at IS NULL AND r.ordinal < $2', [c.id, run.next_ordinal]);
      return returned(await m.query(`UPDATE campaigns.recipient SET due_at = $3 WHERE campaign_id = $1 AND state = 0 AND due_at IS NULL AND ordinal < $2 RETURNING ordinal`, [c.id, run.next_ordinal, now]));
    });
    if (stray.length) {
      this.log.error(`campaign ${c.id}: ${stray.length} waiting recipients behind the runner's cursor had no due time; sent now`);
      return;
    }
    // the batches asked again and never answered (0188): nothing reads them once the campaign ends
    await this.ds.query(`DELETE FROM campaigns.send_batch WHERE campaign_id = $1 AND NOT open`, [c.id]);
    const [{ unreachable }] = (await this.ds.query(`SELECT count(*) FILTER (WHERE reason = 'unreachable_timezone')::int AS unreachable FROM campaigns.recipient WHERE campaign_id = $1`, [c.id])) as Array<{
      unreachable: number;
    }>;
    if (Number(run.accepted) === 0 && unreachable > 0) {
      await this.uow.run(async (m, emit, notify: UnitOfWorkNotify) => {
        if (await transition(m, emit, notify, c, CampaignAction.Halt, now, { haltReasonId: CampaignHaltReason.NoContactsInTimezone, reason: 'no contacts in time zone' })) {
          // a play after the window is fixed tries them again
          await lockRecipients(m, `r.campaign_id = $1 AND r.reason = 'unreachable_timezone'`, [c.id]);
          await m.query(`UPDATE campaigns.recipient SET state = 0, reason = NULL, due_at = $2 WHERE campaign_id = $1 AND reason = 'unreachable_timezone'`, [c.id, now]);
        }
      });
      return;
    }
    await this.act(c, CampaignAction.Finish, now);
  }
}
