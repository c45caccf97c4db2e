import {
  AUDIENCE_COPY_COLUMNS,
  AudienceBatchPreparedV1,
  AudienceChunkPreparedV1,
  audienceCopyText,
  AudienceCountedV1,
  AudienceRequestedV1,
  CampaignSendBatchRequestedV1,
  encodeMintedLinks,
  LinkBatchMintedV1,
  LinkBatchMintedV2,
  LinkBatchRequestedV1,
  MessageStatusChangedV1,
  SendBatchProcessedV1,
  Topics,
  type EventData,
  type SendBatch,
} from '@switchboard/contracts';
import { createEnvelope, ManualClock, type OutgoingEvent } from '@switchboard/platform';
import { CampaignRunner, CampaignsOutboxRelay } from '../src';
import type { RunnerOptions } from '../src/run/runner.options';
import { customer, sender, startCampaigns, stream, type CampaignsTestApp } from './support';

type Item = SendBatch['items'][number];
type Answer = EventData<typeof SendBatchProcessedV1>['items'][number];
type LinkRequest = EventData<typeof LinkBatchRequestedV1>;

/** A contact of the fake contacts service. */
export interface FakeContact {
  contactId: string;
  phone: string;
  timezone: string | null;
  variables: Record<string, string>;
  iso2?: string;
}

/**
 * The campaigns service with its runner driven by hand (`step`), a frozen clock, and fakes of its peers speaking
 * their contracts: contacts answering audience requests in batches, streams answering send batches (exactly once
 * by messageUuid, with refusals the test decides), and links minting links.
 */
export class RunnerHarness {
  a!: CampaignsTestApp;
  clock = new ManualClock(Date.parse('2026-03-04T10:00:00Z'));
  runner!: CampaignRunner;
  /** The audience each campaign's lists hold, by list id. */
  lists = new Map<string, FakeContact[]>();
  /** Every item streams was asked to send, and the uuids it accepted (a set: a repeat is a duplicate). */
  requested: Item[] = [];
  acceptedUuids = new Set<string>();
  acceptedTwice = 0;
  /** Decides an item streams has not accepted before; default: accepted at 10,000 micros. */
  decide: (item: Item, batch: SendBatch) => Partial<Answer> | 'drop' = () => ({});
  /** Links' answer to a link batch; default: minted, `https://s.test/<ref>` per variable. */
  mint: (req: LinkRequest) => EventData<typeof LinkBatchMintedV1> = (req) => ({
    batchId: req.batchId,
    accountId: req.accountId,
    campaignId: req.campaignId,
    outcome: 'minted',
    links: Object.fromEntries(req.items.map((i) => [i.ref, Object.fromEntries(req.variables.map((v) => [v.variable, `https://s.test/${v.variable}/${i.ref}`]))])),
  });
  linkRequests: LinkRequest[] = [];
  /** The version of `links.link_batch.minted` the fake links answers with: v1's object a link, or v2's compact form. */
  mintVersion: 1 | 2 = 1;
  /** Chunks of a copy snapshot that never arrive (a broker deleted them unread), by the campaign's answer number (0 the first) and seq. */
  dropChunk: (answer: number, seq: number) => boolean = () => false;
  /** When set, takes the `copy` audience requests instead of answering them (the test publishes chunks itself, `copyChunks`). */
  takeCopyRequest: ((d: EventData<typeof AudienceRequestedV1>) => void) | null = null;
  /** Audience snapshots asked, per campaign. */
  audienceAnswers = new Map<string, number>();
  /** Answers held back (a streams outage), published by `release`. */
  held: OutgoingEvent[] = [];
  /**
   * The fake dispatch: each message streams accepts (once) reports `sent` right after the answer, unless
   * `dispatchHolding` (a carrier slower than the campaign): then it waits in `dispatchQueue` until `dispatchSend`.
   */
  dispatchHolding = false;
  dispatchQueue: Array<{ item: Item; batch: SendBatch }> = [];

  /** Dispatch's status of an accepted message of `batch`'s campaign. */
  statusOf(item: Pick<Item, 'messageUuid' | 'destination'>, batch: Pick<SendBatch, 'accountId' | 'streamId' | 'campaignId'>, status: 'sent' | 'delivered' | 'sent_failed' = 'sent'): OutgoingEvent {
    return createEnvelope(
      MessageStatusChangedV1,
      { messageUuid: item.messageUuid, accountId: batch.accountId, streamId: batch.streamId, streamUid: 'x', campaignId: batch.campaignId, sender: 'Acme', destination: item.destination, status, outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString() },
      { accountId: batch.accountId, source: 'dispatch' },
    );
  }

  /** Dispatch sends (`sent`) or fails (`sent_failed`) the first `n` of its queue, then everything that followed settles. */
  async dispatchSend(n = Infinity, status: 'sent' | 'sent_failed' = 'sent'): Promise<void> {
    const out = this.dispatchQueue.splice(0, n);
    await this.a.bus.publish(out.map((q) => this.statusOf(q.item, q.batch, status)));
    await this.settle();
  }

  async start(runner: RunnerOptions = {}): Promise<void> {
    this.a = await startCampaigns({ clock: this.clock, runner: { intervalMs: 0, instanceId: 'runner-a', leaseMs: 10_000, resendAfterMs: 60_000, ctrMinSample: 50, ctrDelayMs: 1500, ctrEveryMs: 0, audienceStallMs: 300, batchRequests: true, ...runner } });
    this.runner = this.a.t.app.get(CampaignRunner);
    const bus = this.a.bus;
    await bus.subscribe({ group: 'fake-contacts', topics: [Topics.Campaigns], types: [AudienceRequestedV1.type], handler: async (e) => this.onAudience(AudienceRequestedV1.schema.parse(e.data)) });
    await bus.subscribe({ group: 'fake-streams', topics: [Topics.Campaigns], types: [CampaignSendBatchRequestedV1.type], handler: async (e) => this.onSend(CampaignSendBatchRequestedV1.schema.parse(e.data)) });
    await bus.subscribe({
      group: 'fake-links',
      topics: [Topics.Campaigns],
      types: [LinkBatchRequestedV1.type],
      handler: async (e) => {
        const req = LinkBatchRequestedV1.schema.parse(e.data);
        this.linkRequests.push(req);
        const answer = this.mint(req);
        const meta = { accountId: req.accountId, source: 'links' };
        const { links, ...rest } = answer;
        await bus.publish([this.mintVersion === 2 ? createEnvelope(LinkBatchMintedV2, { ...rest, ...encodeMintedLinks(links) }, meta) : createEnvelope(LinkBatchMintedV1, answer, meta)]);
      },
    });
  }

  private async onAudience(d: EventData<typeof AudienceRequestedV1>): Promise<void> {
    const size = d.batchSize ?? 2000;
    const all = d.contactListIds.flatMap((l) => this.lists.get(l) ?? []);
    if (d.mode === 'count') {
      const byCountry: Record<string, number> = {};
      const byTimezone: Record<string, number> = {};
      for (const c of all) {
        byCountry[c.iso2 ?? 'GB'] = (byCountry[c.iso2 ?? 'GB'] ?? 0) + 1;
        byTimezone[c.timezone ?? ''] = (byTimezone[c.timezone ?? ''] ?? 0) + 1;
      }
      const counted = { requestId: d.requestId, accountId: d.accountId, campaignId: d.campaignId, total: all.length, byCountry, byTimezone, error: null };
      await this.a.bus.publish([createEnvelope(AudienceCountedV1, counted, { accountId: d.accountId, source: 'contacts' })]);
      return;
    }
    const events: OutgoingEvent[] = [];
    let seq = 0;
    if (d.format === 'copy') {
      const answer = this.audienceAnswers.get(d.campaignId) ?? 0;
      this.audienceAnswers.set(d.campaignId, answer + 1);
      if (this.takeCopyRequest) {
        this.takeCopyRequest(d);
        return;
      }
      for (const chunk of this.copyChunks(d, all)) if (!this.dropChunk(answer, (chunk.data as { seq: number }).seq)) events.push(chunk);
      await this.a.bus.publish(events);
      return;
    }
    for (let i = 0; i === 0 || i < all.length; i += size) {
      const part = all.slice(i, i + size);
      const last = i + size >= all.length;
      events.push(
        createEnvelope(
          AudienceBatchPreparedV1,
          {
            requestId: d.requestId,
            accountId: d.accountId,
            campaignId: d.campaignId,
            seq: seq++,
            last,
            recipients: recipientColumns(part),
            totals: last ? { batches: seq, recipients: all.length, contacts: all.length, excluded: 0, duplicatesRemoved: 0 } : null,
            error: null,
          },
          { accountId: d.accountId, source: 'contacts' },
        ),
      );
    }
    await this.a.bus.publish(events);
  }

  /**
   * The chunks contacts answers a `copy` request with for an audience of `all`, the request's batch size a chunk; with
   * `attempt`, of that snapshot attempt (docs/decisions/0140), without it as a producer that publishes every chunk at
   * its commit.
   */
  copyChunks(d: EventData<typeof AudienceRequestedV1>, all: FakeContact[], attempt?: number): OutgoingEvent[] {
    const size = d.batchSize ?? 2000;
    const events: OutgoingEvent[] = [];
    let seq = 0;
    for (let i = 0; i === 0 || i < all.length; i += size) {
      const part = all.slice(i, i + size);
      const last = i + size >= all.length;
      const data = audienceCopyText(recipientColumns(part));
      const chunk = { requestId: d.requestId, accountId: d.accountId, campaignId: d.campaignId, seq: seq++, ...(attempt === undefined ? {} : { attempt }), firstOrdinal: i, rows: part.length, last, columns: [...AUDIENCE_COPY_COLUMNS], data, totals: last ? { batches: seq, recipients: all.length, contacts: all.length, excluded: 0, duplicatesRemoved: 0 } : null, error: null };
      events.push(createEnvelope(AudienceChunkPreparedV1, chunk, { accountId: d.accountId, source: 'contacts' }));
    }
    return events;
  }

  private async onSend(b: SendBatch): Promise<void> {
    const items: Answer[] = [];
    for (const it of b.items) {
      this.requested.push(it);
      if (this.acceptedUuids.has(it.messageUuid)) {
        items.push({ ref: it.ref, messageUuid: it.messageUuid, outcome: 'accepted', duplicate: true, refusal: null, code: null, priceMicros: 10_000, currency: 'EUR', segments: 1 });
        continue;
      }
      const d = this.decide(it, b);
      if (d === 'drop') continue;
      const answer: Answer = { ref: it.ref, messageUuid: it.messageUuid, outcome: 'accepted', refusal: null, code: null, priceMicros: 10_000, currency: 'EUR', segments: 1, ...d };
      if (answer.outcome === 'accepted') this.acceptedUuids.add(it.messageUuid);
      items.push(answer);
    }
    if (!items.length) return;
    const event = createEnvelope(SendBatchProcessedV1, { batchId: b.batchId, requester: 'campaigns' as const, accountId: b.accountId, streamId: b.streamId, campaignId: b.campaignId, items }, { accountId: b.accountId, source: 'streams' });
    if (this.holding) this.held.push(event);
    else await this.a.bus.publish([event]);
    const fresh = items.filter((i) => i.outcome === 'accepted' && !i.duplicate).map((i) => ({ item: b.items.find((x) => x.messageUuid === i.messageUuid) as Item, batch: b }));
    if (this.dispatchHolding) this.dispatchQueue.push(...fresh);
    else if (fresh.length) await this.a.bus.publish(fresh.map((q) => this.statusOf(q.item, q.batch)));
  }

  holding = false;
  private listSeq = 0;

  async release(): Promise<void> {
    const events = this.held.splice(0);
    this.holding = false;
    await this.a.bus.publish(events);
    await this.settle();
  }

  /** Publishes the outbox and waits until every consumer (the fakes included) handled what followed. */
  async settle(): Promise<void> {
    const relay = this.a.t.app.get(CampaignsOutboxRelay).relay;
    for (let i = 0; i < 20; i++) {
      await relay.flush();
      await this.a.bus.drain();
      const [{ n }] = await this.a.sql<{ n: number }>(`SELECT count(*)::int AS n FROM campaigns.outbox WHERE published_at IS NULL`);
      if (n === 0) break;
    }
  }

  /** One runner pass (as the loop does), then everything it caused; the clock moves on by `ms`. */
  async step(ms = 1000, runner: CampaignRunner = this.runner): Promise<void> {
    await runner.runOnce();
    await this.settle();
    this.clock.advance(ms);
  }

  /** Steps until the campaign leaves the running statuses (or `max` steps). */
  async runUntilStopped(campaignId: string, max = 200): Promise<number> {
    for (let i = 0; i < max; i++) {
      const s = await this.status(campaignId);
      if (![0, 1, 2, 5, 6].includes(s)) return s;
      await this.step();
    }
    return this.status(campaignId);
  }

  async status(campaignId: string): Promise<number> {
    const [r] = await this.a.sql<{ status: number }>(`SELECT status FROM campaigns.campaign WHERE id = $1`, [campaignId]);
    return r.status;
  }

  async campaign(campaignId: string): Promise<Record<string, unknown>> {
    const [r] = await this.a.sql(`SELECT status, halt_reason_id, total::int, created::int, sent::int, delivered::int, sent_failed::int, undelivered::int, clicked::int, cost_micros::int FROM campaigns.campaign WHERE id = $1`, [campaignId]);
    return r;
  }

  /** An account with a stream and a sender, as their services announce them. */
  async account(acc: string, o: { tps?: number; timeZone?: string } = {}): Promise<{ streamId: string; senderId: string }> {
    const c = customer(acc, o.timeZone ? { timezone: o.timeZone } : {});
    (c.data as { tps: number }).tps = o.tps ?? 100;
    const streamId = `${acc}1`;
    const senderId = `${acc}2`;
    await this.a.publish([c, stream(acc, streamId), sender(acc, senderId)]);
    return { streamId, senderId };
  }

  /**
   * A started campaign (as the campaigns API leaves it when the user presses start) with its variants, one sender and
   * its variable links, on a list of `n` contacts.
   */
  async campaign0(
    acc: string,
    n: number,
    o: {
      variants?: Array<{ text: string; ratio: number }>;
      settings?: Record<string, unknown>;
      variables?: Array<{ id: string; name: string; defaultValue?: string | null; missingRule?: number; params?: Record<string, unknown> }>;
      window?: { mode?: string; timezone?: string | null; start?: string | null; end?: string | null; days?: number[]; endDate?: string | null };
      contacts?: (i: number) => Partial<FakeContact>;
    } = {},
  ): Promise<string> {
    const { streamId, senderId } = await this.account(acc);
    const listId = String(++this.listSeq);
    this.lists.set(
      listId,
      Array.from({ length: n }, (_, i) => ({ contactId: String(i + 1), phone: `+4474${String(i).padStart(8, '0')}`, timezone: 'Europe/London', variables: { '2': `N${i}` }, ...o.contacts?.(i) })),
    );
    const w = o.window ?? {};
    const [{ id }] = await this.a.sql<{ id: string }>(
      `INSERT INTO campaigns.campaign (account_id, name, type, status, stream_id, contact_list_ids, campaign_settings, timezone_mode, timezone, working_days,
                                       working_hours_start, working_hours_end, end_date)
       VALUES ($1, 'Spring sale', 0, 1, $2, ARRAY[$3::bigint], $4, $5, $6, $7, $8, $9, $10) RETURNING id::text`,
      [acc, streamId, listId, JSON.stringify(o.settings ?? {}), w.mode ?? 'recipient', w.timezone ?? null, w.days ?? [1, 2, 3, 4, 5, 6, 7], w.start ?? null, w.end ?? null, w.endDate ?? null],
    );
    for (const [k, v] of (o.variants ?? [{ text: 'Hi {{firstName}}', ratio: 100 }]).entries()) {
      await this.a.sql(`INSERT INTO campaigns.campaign_variant (account_id, campaign_id, name, text, ratio, position) VALUES ($1, $2, $3, $4, $5, $6)`, [acc, id, `V${k}`, v.text, v.ratio, k]);
    }
    await this.a.sql(`INSERT INTO campaigns.campaign_sender (account_id, campaign_id, sender_id, ratio) VALUES ($1, $2, $3, 100)`, [acc, id, senderId]);
    for (const v of o.variables ?? []) {
      await this.a.sql(`INSERT INTO campaigns.campaign_variable (account_id, campaign_id, variable_id, variable_name, default_value, missing_rule, params) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        acc,
        id,
        v.id,
        v.name,
        v.defaultValue ?? null,
        v.missingRule ?? 0,
        JSON.stringify(v.params ?? {}),
      ]);
    }
    return id;
  }

  /** The user's play after a halt (pause, then play), as the campaigns API does through the status service. */
  async play(campaignId: string): Promise<void> {
    await this.a.sql(`UPDATE campaigns.campaign SET status = 1, halt_reason_id = NULL WHERE id = $1 AND status IN (3, 10)`, [campaignId]);
  }

  async pause(campaignId: string): Promise<void> {
    await this.a.sql(`UPDATE campaigns.campaign SET status = 3 WHERE id = $1`, [campaignId]);
  }

  async close(): Promise<void> {
    await this.a?.close();
  }
}

/** A chunk's recipients as columns, as contacts cuts them. */
function recipientColumns(part: FakeContact[]) {
  return {
    contactId: part.map((c) => c.contactId),
    phone: part.map((c) => c.phone),
    iso2: part.map((c) => c.iso2 ?? 'GB'),
    timezone: part.map((c) => c.timezone),
    occurrence: part.map(() => 0),
    variables: part.map((c) => c.variables),
  };
}
