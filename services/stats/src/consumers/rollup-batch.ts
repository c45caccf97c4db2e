import type { EntityManager } from 'typeorm';
import type { CampaignSendBatchRequestedV1, EventData, MessageAcceptedV1, MessageRefundedV1, MessageStatusChangedV1 } from '@switchboard/contracts';
import { pgArray, preparedQuery, type BatchItem } from '@switchboard/platform';
import { STATUS_COLUMNS, STATUSES } from '../rollup-shape';
import { hourDayAt, isoInstant } from './time-buckets';

/**
 * The rollup consumer's batch (docs/decisions/0028-statistics.md, "Ingest", 0055), in small functions of one job each
 * (docs/decisions/0213): the batch's message slots, the read, its rows as states, the events folded into them (one
 * function a kind), the states' deltas, the deltas as columns, the write's parameters and the write. The one async
 * function of ~3.6 KB bytecode it was before was compiled by TurboFan about ten times in a process's first campaign,
 * each time thrown away at a branch first taken late (a refund, a new event shape) and compiled again whole (0211).
 * Now a late branch deoptimises the small function it is in, the rest keeps its code. Every object of one kind is made
 * by one constructor (one shape: the same fields in the same order, none added later), and the statements' texts are
 * built once, here, not a batch.
 */

type Accepted = EventData<typeof MessageAcceptedV1>;
type StatusChanged = EventData<typeof MessageStatusChangedV1>;
type Refunded = EventData<typeof MessageRefundedV1>;
type Requested = EventData<typeof CampaignSendBatchRequestedV1>;

export type RollupInput =
  | { kind: 'accepted'; d: Accepted }
  | { kind: 'status'; d: StatusChanged }
  | { kind: 'refund'; d: Refunded }
  /**
   * A campaign batch asked of streams: each item's campaign and variant. Taken only with `requestStates` (acceptances of
   * streams before docs/decisions/0205 do not carry the variant); otherwise the acceptance carries it.
   */
  | { kind: 'requested'; d: Requested };

/** Spec 4: `accepted` < `sent` < the final statuses, which never move back. */
export const STATUS_RANK: Record<string, number> = { accepted: 0, sent: 1, delivered: 2, sent_failed: 2, undelivered: 2, no_routes: 2, rejected: 2 };

/** A status's place among the message rollups' count columns (docs/decisions/0131, 0132). */
const STATUS_INDEX: Record<string, number> = Object.fromEntries(STATUSES.map((s, i) => [s, i]));

/** A timestamptz as JavaScript's toISOString writes it (milliseconds, Z), so states compare as strings. */
const iso = (col: string): string => `to_char((${col}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A message's state as `stats.message_state` keeps it; every one made by this constructor (one shape). */
class State {
  constructor(
    public message_uuid: string,
    public account_id: string,
    public stream_id: string | null,
    public sender: string,
    public iso2: string,
    public status: string,
    public rank: number,
    public accepted_at: string | null,
    public hour_bucket: string | null,
    public day_bucket: string | null,
    public segments: number,
    public price_micros: bigint,
    public refunded_micros: bigint,
    public currency: string,
    public campaign_id: string | null,
    public variant_id: string | null,
    public destination: string | null,
  ) {}
}

/** A state counted in the rollups: accepted, with its buckets. */
type Counted = State & { accepted_at: string; hour_bucket: string; day_bucket: string };

/**
 * A row of the read (docs/decisions/0218), one of three kinds told apart by `o`: a found state (`o` its slot, its
 * columns as text), an account's time zone (`o` -1: `account_id` and `tz`), or an acceptance instant PostgreSQL
 * parsed for node (`o` -2 - slot: `accepted_at` as to_char wrote it), for an instant node does not read itself.
 */
interface ReadRow {
  o: number;
  x: string | null;
  account_id: string;
  stream_id: string | null;
  sender: string;
  iso2: string;
  status: string;
  rank: number;
  accepted_at: string | null;
  hour_bucket: string | null;
  day_bucket: string | null;
  segments: number;
  price_micros: string;
  refunded_micros: string;
  currency: string;
  campaign_id: string | null;
  variant_id: string | null;
  destination: string | null;
  tz: string | null;
}

/** The hour and local day an acceptance of the batch falls in, in its account's zone (computed in node: ./time-buckets). */
class Buckets {
  constructor(
    readonly at: string,
    readonly hour: string,
    readonly day: string,
  ) {}
}

/**
 * Each message of the batch gets a slot, in the order it first came: the read's rows come back with their slot (the
 * ordinality of the unnest), so states, buckets and the events' messages meet by index, not by uuid in maps (hashing
 * the driver's fresh uuid texts and four maps of the batch's size: docs/decisions/0138).
 */
class Slots {
  readonly slotOf = new Map<string, number>();
  readonly uuids: string[] = [];
  readonly accounts: string[] = [];
  readonly acceptedAt: Array<string | null> = [];
  /** Each acceptance's instant as node read it (null: none, or left to PostgreSQL, which parses it in the read). */
  readonly acceptedMs: Array<number | null> = [];
  /** The slot of each item's message (-1: a campaign request, which names many). */
  readonly itemSlot: Int32Array;

  constructor(items: number) {
    this.itemSlot = new Int32Array(items);
  }

  slot(u: string, account: string): number {
    let k = this.slotOf.get(u);
    if (k === undefined) {
      k = this.uuids.length;
      this.slotOf.set(u, k);
      this.uuids.push(u);
      this.accounts.push(account);
      this.acceptedAt.push(null);
      this.acceptedMs.push(null);
    }
    return k;
  }
}

/** The states the batch read (`before`) and the ones its events make (`after`), by slot. */
class States {
  readonly before: Array<State | undefined>;
  readonly after: Array<State | undefined>;
  readonly created: Uint8Array;
  /** The row version (xmin) each found state was read at: the write sets it only if it is still that one. */
  readonly versions: Array<string | null>;
  readonly buckets: Array<Buckets | undefined>;
  /** Slots whose events apply: the database writes the uuid as the events did (see `stateAt`). */
  readonly spelled: Uint8Array;
  /** The time zone of each account the read found (the batch's acceptances' and its states' accounts). */
  readonly zones = new Map<string, string>();

  constructor(readonly n: number) {
    this.before = new Array<State | undefined>(n);
    this.after = new Array<State | undefined>(n);
    this.created = new Uint8Array(n);
    this.versions = new Array<string | null>(n);
    this.buckets = new Array<Buckets | undefined>(n);
    this.spelled = new Uint8Array(n);
  }
}

/** A message rollup row's delta (no status in its key): its sums and a count per status (STATUSES' order). */
class CountDelta {
  messages = 0;
  parts = 0;
  cost = 0n;
  readonly n = [0, 0, 0, 0, 0, 0, 0];

  constructor(
    readonly account: string,
    readonly stream: string,
    readonly sender: string,
    readonly iso2: string,
    readonly currency: string,
    readonly bucket: string,
  ) {}
}

/** A campaign hour row's delta (the status in its key; the variant '0' when unknown) with its hour's local date. */
class CampaignDelta {
  messages = 0;
  parts = 0;
  cost = 0n;

  constructor(
    readonly account: string,
    readonly campaign: string,
    readonly variant: string,
    readonly iso2: string,
    readonly status: string,
    readonly currency: string,
    readonly bucket: string,
    readonly day: string,
  ) {}
}

/** The batch's deltas by row key, and the states to write. */
class Deltas {
  readonly hours = new Map<string, CountDelta>();
  readonly days = new Map<string, CountDelta>();
  readonly campaignHours = new Map<string, CampaignDelta>();
  /** States inserted whole or rewritten whole, with their created flags and the versions read (NULL: created). */
  readonly changed: State[] = [];
  readonly isCreated: boolean[] = [];
  readonly changedVersions: string[] = [];
  /** Known states of which only the status moved (the common late case), written narrowly (docs/decisions/0103). */
  readonly moved: State[] = [];
  readonly movedVersions: string[] = [];
  creating = 0;
  /**
   * The rows the last state fell in: a batch's messages mostly share them (one account, sender, stream and hour), and
   * one whose key fields equal the last's is that row, found without building and hashing its key (0213). The campaign
   * rows by status (a moved status leaves one row for another).
   */
  lastHour: CountDelta | null = null;
  lastDay: CountDelta | null = null;
  readonly lastCampaign: Array<CampaignDelta | null> = [null, null, null, null, null, null, null];
}

/** The deltas of one kind of rollup row as the write's columns. */
class Columns {
  readonly a: string[] = [];
  readonly b: string[] = [];
  readonly st: string[] = [];
  readonly se: string[] = [];
  readonly i: string[] = [];
  readonly s: string[] = [];
  readonly c: string[] = [];
  readonly m: number[] = [];
  readonly p: number[] = [];
  readonly co: string[] = [];
  readonly dd: string[] = [];
  readonly n: number[][] = [[], [], [], [], [], [], []];
}

/**
 * An array literal of values none of which can hold a quote, backslash, comma, brace or space: message uuids (checked
 * by the events' parse, or PostgreSQL's text of a uuid), decimal ids (the contracts' `^\d+$`, or PostgreSQL's text of a
 * bigint), signed decimal sums (`BigInt#toString`), and instants as the read statement's `to_char` wrote them. Joined
 * without pgArray's scan for characters to escape (a join, a regular expression over the joined text and a second join
 * per column: three quarters of pgArray's time in a late batch, docs/decisions/0119).
 */
function plainArray(values: ReadonlyArray<string | number>): string {
  return `{${values.join(',')}}`;
}

// ---- the batch's slots ----

function slotRequested(slots: Slots, d: Requested): void {
  const items = d.items;
  for (let j = 0; j < items.length; j++) slots.slot(items[j].messageUuid, d.accountId);
}

function slotAccepted(slots: Slots, i: number, d: Accepted): void {
  const k = slots.slot(d.messageUuid, d.accountId);
  slots.itemSlot[i] = k;
  if (slots.acceptedAt[k] === null) {
    slots.acceptedAt[k] = d.acceptedAt;
    slots.acceptedMs[k] = isoInstant(d.acceptedAt);
  }
}

function slotStatus(slots: Slots, i: number, d: StatusChanged): void {
  slots.itemSlot[i] = slots.slot(d.messageUuid, d.accountId);
}

function slotRefund(slots: Slots, i: number, d: Refunded): void {
  slots.itemSlot[i] = slots.slot(d.messageUuid, d.accountId);
}

function slotsOf(items: ReadonlyArray<BatchItem<RollupInput>>): Slots {
  const slots = new Slots(items.length);
  for (let i = 0; i < items.length; i++) {
    const data = items[i].data;
    switch (data.kind) {
      case 'accepted':
        slotAccepted(slots, i, data.d);
        break;
      case 'status':
        slotStatus(slots, i, data.d);
        break;
      case 'refund':
        slotRefund(slots, i, data.d);
        break;
      default:
        slots.itemSlot[i] = -1;
        slotRequested(slots, data.d);
    }
  }
  return slots;
}

// ---- the read ----

/**
 * The batch's messages that have a state are read with their row version (xmin), not locked: the write below sets a
 * state only where its version is still the one read, and a batch that finds one changed meanwhile (another replica's
 * write) is rolled back and applied again, so replicas never double count (docs/decisions/0205; the row locks of
 * `FOR UPDATE` cost a WAL record a state). Those that have none get theirs inserted whole by the write. The states are
 * found by `= ANY` of the uuids, joined to the unnest for their slot (its ordinality): an index scan of those rows
 * (docs/decisions/0145). The read and the write are named statements: parsed once a connection (0153).
 *
 * Only found states come back (docs/decisions/0218): a campaign's acceptances, new messages, read nothing, where the
 * read returned a row of defaults for each and the zone, hour and day of its acceptance, formatted by to_char three
 * times (the statement's most costly part, and most of the bytes the driver parsed). The batch's accounts' time zones
 * come back as rows of their own (`o` -1) and node computes the buckets (./time-buckets); an acceptance instant node
 * does not read exactly as PostgreSQL does ($3, $4: its slot and text; none from streams) comes back parsed (`o` -2 -
 * slot). Rows of the three kinds share the columns.
 */
const READ_SQL = `WITH s AS (SELECT t.o, m.*, m.xmin AS x FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, o) JOIN stats.message_state m ON m.message_uuid = t.u WHERE m.message_uuid = ANY($1::uuid[]))
       SELECT s.o::int - 1 AS o, s.x::text AS x, s.account_id::text AS account_id, s.stream_id::text AS stream_id, s.sender, s.iso2, s.status, s.rank,
              ${iso('s.accepted_at')} AS accepted_at, ${iso('s.hour_bucket')} AS hour_bucket, s.day_bucket::text AS day_bucket, s.segments,
              s.price_micros::text AS price_micros, s.refunded_micros::text AS refunded_micros, s.currency, s.campaign_id::text AS campaign_id,
              s.variant_id::text AS variant_id, s.destination, NULL::text AS tz
         FROM s
       UNION ALL
       SELECT -1, NULL, a.account_id::text, NULL, '', '', '', 0, NULL, NULL, NULL, 0, '0', '0', '', NULL, NULL, NULL, a.time_zone
         FROM stats.account a WHERE a.account_id = ANY($2::bigint[] || ARRAY(SELECT account_id FROM s))
       UNION ALL
       SELECT -2 - p.k, NULL, '', NULL, '', '', '', 0, ${iso('p.at')}, NULL, NULL, 0, '0', '0', '', NULL, NULL, NULL, NULL
         FROM unnest($3::int[], $4::timestamptz[]) AS p(k, at)`;

/** PostgreSQL's text of a uuid (lower-case hex, 8-4-4-4-12): the spelling its rows have. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A uuid as PostgreSQL writes it (the read cast every one: an invalid one failed the batch there). */
function canonicalUuid(u: string): string {
  if (CANONICAL_UUID.test(u)) return u;
  const h = u.replace(/[{}-]/g, '').toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A read row as a state (field by field: one shape for all, no rest or spread copies, which were much of the batch's garbage). */
function stateOfRow(u: string, r: ReadRow): State {
  return new State(
    u,
    r.account_id,
    r.stream_id,
    r.sender,
    r.iso2,
    r.status,
    r.rank,
    r.accepted_at,
    r.hour_bucket,
    r.day_bucket,
    r.segments,
    BigInt(r.price_micros),
    BigInt(r.refunded_micros),
    r.currency,
    r.campaign_id,
    r.variant_id,
    r.destination,
  );
}

/** A message without a state: its defaults (the columns' defaults), the account of its slot's first event. */
function newState(u: string, account: string): State {
  return new State(u, account, null, '', '', '', -1, null, null, null, 0, 0n, 0n, '', null, null, null);
}

function copyState(s: State): State {
  return new State(
    s.message_uuid,
    s.account_id,
    s.stream_id,
    s.sender,
    s.iso2,
    s.status,
    s.rank,
    s.accepted_at,
    s.hour_bucket,
    s.day_bucket,
    s.segments,
    s.price_micros,
    s.refunded_micros,
    s.currency,
    s.campaign_id,
    s.variant_id,
    s.destination,
  );
}

/** The read's parameters: the slots' uuids, the accounts whose zones the acceptances need, and the instants left to PostgreSQL. */
function readParams(slots: Slots): string[] {
  const accounts: string[] = [];
  const oddSlots: number[] = [];
  const oddAts: string[] = [];
  let last = '';
  for (let k = 0; k < slots.uuids.length; k++) {
    const at = slots.acceptedAt[k];
    if (at === null) continue;
    const account = slots.accounts[k];
    if (account !== last && !accounts.includes(account)) accounts.push(account);
    last = account;
    if (slots.acceptedMs[k] === null) {
      oddSlots.push(k);
      oddAts.push(at);
    }
  }
  return [plainArray(slots.uuids), plainArray(accounts), plainArray(oddSlots), pgArray(oddAts)];
}

function statesOf(slots: Slots, rows: ReadonlyArray<ReadRow>): States {
  const uuids = slots.uuids;
  const n = uuids.length;
  const states = new States(n);
  const zones = states.zones;
  for (let j = 0; j < rows.length; j++) {
    const r = rows[j];
    const k = r.o;
    if (k >= 0) {
      const state = stateOfRow(canonicalUuid(uuids[k]), r);
      states.before[k] = state;
      states.versions[k] = r.x;
    } else if (k === -1) {
      zones.set(r.account_id, r.tz as string);
    } else {
      const at = r.accepted_at as string;
      slots.acceptedAt[-2 - k] = at;
      slots.acceptedMs[-2 - k] = Date.parse(at);
    }
  }
  for (let k = 0; k < n; k++) {
    const u = uuids[k];
    let state = states.before[k];
    // the database writes the uuid as the events did (its found state's uuid is PostgreSQL's text of the slot's)
    if (state !== undefined ? state.message_uuid === u : CANONICAL_UUID.test(u)) states.spelled[k] = 1;
    if (state === undefined) {
      state = newState(states.spelled[k] === 1 ? u : canonicalUuid(u), slots.accounts[k]);
      states.before[k] = state;
      states.created[k] = 1;
      states.versions[k] = null;
    }
    states.after[k] = copyState(state);
  }
  return states;
}

/**
 * The buckets of a slot's acceptance (the batch's first of its message) in the zone of its state's account (UTC for an
 * account stats does not know), computed once a slot.
 */
function bucketsOf(states: States, slots: Slots, k: number, account: string): Buckets | undefined {
  let b = states.buckets[k];
  if (b !== undefined) return b;
  const ms = slots.acceptedMs[k];
  const at = slots.acceptedAt[k];
  if (ms === null || at === null) return undefined;
  // the instant's text is the ISO form already (isoInstant checked it round-trips; or to_char wrote it)
  const x = hourDayAt(states.zones.get(account) ?? 'UTC', ms);
  states.buckets[k] = b = new Buckets(at, x.hour, x.day);
  return b;
}

// ---- the events folded into the states, one function a kind ----

/**
 * The state an event's message slot has, when the database writes that uuid as the event did (an event naming its
 * message in another spelling, upper-case hex, changes nothing, as when states were found by their text), and when it
 * is the event's account's (message ids are the sender's, not trusted across tenants).
 */
function stateAt(states: States, k: number | undefined, account: string): State | undefined {
  if (k === undefined || k < 0 || states.spelled[k] !== 1) return undefined;
  const s = states.after[k];
  return s !== undefined && s.account_id === account ? s : undefined;
}

/** The campaign's variant per message; another account's request for a known message changes nothing. */
function foldRequested(states: States, slotOf: Map<string, number>, d: Requested): void {
  const items = d.items;
  for (let j = 0; j < items.length; j++) {
    const it = items[j];
    const s = stateAt(states, slotOf.get(it.messageUuid), d.accountId);
    if (!s) continue;
    if (s.campaign_id === null) s.campaign_id = d.campaignId;
    if (s.variant_id === null && it.variantId) s.variant_id = it.variantId;
  }
}

function foldAccepted(states: States, slots: Slots, k: number, d: Accepted): void {
  const s = stateAt(states, k, d.accountId);
  if (!s || s.accepted_at !== null) return;
  // the buckets are those of the batch's first acceptance of the message; a second one (the same fact under another
  // event id) was skipped just above
  const b = bucketsOf(states, slots, k, s.account_id);
  s.stream_id = d.streamId;
  s.sender = d.sender;
  s.iso2 = d.iso2 ?? '';
  s.segments = d.segments;
  s.price_micros = BigInt(d.priceMicros);
  s.currency = d.currency;
  s.accepted_at = b?.at ?? new Date(d.acceptedAt).toISOString();
  if (d.campaignId !== null) s.campaign_id = d.campaignId;
  // the variant streams passed through from the campaign's request (0205); a state the request wrote keeps its own
  if (s.variant_id === null && d.variantId) s.variant_id = d.variantId;
  s.destination = d.destination;
  s.hour_bucket = b?.hour ?? null;
  s.day_bucket = b?.day ?? null;
  if (s.rank < 0) {
    s.status = 'accepted';
    s.rank = 0;
  }
}

function foldStatus(states: States, k: number, d: StatusChanged): void {
  const s = stateAt(states, k, d.accountId);
  if (!s) return;
  const rank = STATUS_RANK[d.status] ?? 0;
  if (s.stream_id === null) {
    s.stream_id = d.streamId;
    s.sender = d.sender;
  }
  if (d.parts !== undefined && s.accepted_at === null) s.segments = d.parts;
  if (rank > s.rank) {
    s.status = d.status;
    s.rank = rank;
  }
}

function foldRefund(states: States, k: number, d: Refunded): void {
  const s = stateAt(states, k, d.accountId);
  if (s) s.refunded_micros += BigInt(d.amountMicros);
}

function foldEvents(items: ReadonlyArray<BatchItem<RollupInput>>, slots: Slots, states: States): void {
  const itemSlot = slots.itemSlot;
  for (let i = 0; i < items.length; i++) {
    const data = items[i].data;
    switch (data.kind) {
      case 'accepted':
        foldAccepted(states, slots, itemSlot[i], data.d);
        break;
      case 'status':
        foldStatus(states, itemSlot[i], data.d);
        break;
      case 'refund':
        foldRefund(states, itemSlot[i], data.d);
        break;
      default:
        foldRequested(states, slots.slotOf, data.d);
    }
  }
}

// ---- the states' deltas ----

const isCounted = (s: State): s is Counted => s.accepted_at !== null && s.hour_bucket !== null && s.day_bucket !== null;

/**
 * The hour row a counted state falls in: the hour rollup keeps the sender. The status is a count column, not part of
 * the key: a status that moves changes two counts of one row (0131, 0132).
 */
function hourRow(deltas: Deltas, s: Counted): CountDelta {
  const stream = s.stream_id ?? '0';
  const last = deltas.lastHour;
  if (last !== null && last.bucket === s.hour_bucket && last.account === s.account_id && last.sender === s.sender && last.stream === stream && last.iso2 === s.iso2 && last.currency === s.currency) return last;
  const k = `${s.account_id}|${s.hour_bucket}|${s.sender}|${stream}|${s.iso2}|${s.currency}`;
  let h = deltas.hours.get(k);
  if (!h) deltas.hours.set(k, (h = new CountDelta(s.account_id, stream, s.sender, s.iso2, s.currency, s.hour_bucket)));
  deltas.lastHour = h;
  return h;
}

/** The day row a counted state falls in: the day rows the database sums into the day and month rollups need no sender (0088). */
function dayRow(deltas: Deltas, s: Counted): CountDelta {
  const stream = s.stream_id ?? '0';
  const last = deltas.lastDay;
  if (last !== null && last.bucket === s.day_bucket && last.account === s.account_id && last.stream === stream && last.iso2 === s.iso2 && last.currency === s.currency) return last;
  const k = `${s.account_id}|${s.day_bucket}|${stream}|${s.iso2}|${s.currency}`;
  let d = deltas.days.get(k);
  if (!d) deltas.days.set(k, (d = new CountDelta(s.account_id, stream, '', s.iso2, s.currency, s.day_bucket)));
  deltas.lastDay = d;
  return d;
}

function addTo(r: CountDelta, sign: number, parts: number, cost: bigint, si: number): void {
  r.messages += sign;
  r.parts += parts;
  r.cost += cost;
  r.n[si] += sign;
}

function moveIn(r: CountDelta, from: number, to: number): void {
  r.n[from] -= 1;
  r.n[to] += 1;
}

/** The campaign hour row's delta of a counted state (the campaign rollups keep the status in their key). */
function addCampaign(deltas: Deltas, s: Counted, campaign: string, sign: number, cost: bigint): void {
  const variant = s.variant_id ?? '0';
  const si = STATUS_INDEX[s.status];
  let d = si === undefined ? null : deltas.lastCampaign[si];
  if (d === null || d.bucket !== s.hour_bucket || d.account !== s.account_id || d.campaign !== campaign || d.variant !== variant || d.iso2 !== s.iso2 || d.status !== s.status || d.currency !== s.currency) {
    const k = `${s.account_id}|${campaign}|${variant}|${s.hour_bucket}|${s.iso2}|${s.status}|${s.currency}`;
    let found = deltas.campaignHours.get(k);
    if (!found) deltas.campaignHours.set(k, (found = new CampaignDelta(s.account_id, campaign, variant, s.iso2, s.status, s.currency, s.hour_bucket, s.day_bucket)));
    if (si !== undefined) deltas.lastCampaign[si] = found;
    d = found;
  }
  d.messages += sign;
  d.parts += sign * s.segments;
  d.cost += cost;
}

/** A state's contribution added to (1) or taken from (-1) its rows. */
function addState(deltas: Deltas, s: State, sign: 1 | -1): void {
  if (!isCounted(s)) return;
  const cost = (s.price_micros - s.refunded_micros) * BigInt(sign);
  const si = STATUS_INDEX[s.status];
  const parts = sign * s.segments;
  addTo(hourRow(deltas, s), sign, parts, cost, si);
  addTo(dayRow(deltas, s), sign, parts, cost, si);
  if (s.campaign_id !== null) addCampaign(deltas, s, s.campaign_id, sign, cost);
}

/**
 * A known state of which only the status moved (`onlyStatusMoved`): the same hour and day rows lose a count of the
 * old status and gain one of the new (their sums stay), found once instead of once for each side (0138).
 */
function moveState(deltas: Deltas, b: State, s: State): void {
  if (!isCounted(s)) return;
  const from = STATUS_INDEX[b.status];
  const to = STATUS_INDEX[s.status];
  moveIn(hourRow(deltas, s), from, to);
  moveIn(dayRow(deltas, s), from, to);
  if (s.campaign_id !== null) {
    const cost = s.price_micros - s.refunded_micros;
    addCampaign(deltas, b as Counted, s.campaign_id, -1, -cost);
    addCampaign(deltas, s, s.campaign_id, 1, cost);
  }
}

/** Whether `b` differs from `a` in its status (and rank) at most (each field read by name: one shape, no keyed loads). */
function onlyStatusMoved(a: State, b: State): boolean {
  return (
    a.stream_id === b.stream_id &&
    a.sender === b.sender &&
    a.iso2 === b.iso2 &&
    a.accepted_at === b.accepted_at &&
    a.hour_bucket === b.hour_bucket &&
    a.day_bucket === b.day_bucket &&
    a.segments === b.segments &&
    a.price_micros === b.price_micros &&
    a.refunded_micros === b.refunded_micros &&
    a.currency === b.currency &&
    a.campaign_id === b.campaign_id &&
    a.variant_id === b.variant_id &&
    a.destination === b.destination
  );
}

/**
 * Each state the events changed: `changed`, inserted whole or rewritten whole, its old contribution taken from its
 * rows and its new one added; `moved`, a known state of which only the status moved (a status after its acceptance's
 * batch), its counts moved within its rows.
 */
function deltasOf(states: States): Deltas {
  const deltas = new Deltas();
  for (let k = 0; k < states.n; k++) {
    const s = states.after[k];
    const b = states.before[k];
    if (!s || !b) continue;
    const isNew = states.created[k] === 1;
    if (!isNew && onlyStatusMoved(b, s)) {
      if (b.status === s.status && b.rank === s.rank) continue;
      deltas.moved.push(s);
      deltas.movedVersions.push(states.versions[k] as string);
      moveState(deltas, b, s);
    } else {
      deltas.changed.push(s);
      deltas.isCreated.push(isNew);
      deltas.changedVersions.push(isNew ? 'NULL' : (states.versions[k] as string));
      if (isNew) deltas.creating++;
      addState(deltas, b, -1);
      addState(deltas, s, 1);
    }
  }
  return deltas;
}

// ---- the deltas as columns ----

function pushCounts(col: Columns, d: CountDelta): void {
  const n = d.n;
  if (d.messages === 0 && d.parts === 0 && d.cost === 0n && n[0] === 0 && n[1] === 0 && n[2] === 0 && n[3] === 0 && n[4] === 0 && n[5] === 0 && n[6] === 0) return;
  col.a.push(d.account);
  col.b.push(d.bucket);
  col.st.push(d.stream);
  col.se.push(d.sender);
  col.i.push(d.iso2);
  col.c.push(d.currency);
  col.m.push(d.messages);
  col.p.push(d.parts);
  col.co.push(d.cost.toString());
  for (let j = 0; j < n.length; j++) col.n[j].push(n[j]);
}

function pushCampaign(col: Columns, d: CampaignDelta): void {
  if (d.messages === 0 && d.parts === 0 && d.cost === 0n) return;
  col.a.push(d.account);
  col.b.push(d.bucket);
  col.st.push(d.campaign);
  col.se.push(d.variant);
  col.i.push(d.iso2);
  col.s.push(d.status);
  col.c.push(d.currency);
  col.m.push(d.messages);
  col.p.push(d.parts);
  col.co.push(d.cost.toString());
  col.dd.push(d.day);
}

function countColumns(rows: Map<string, CountDelta>): Columns {
  const col = new Columns();
  for (const d of rows.values()) pushCounts(col, d);
  return col;
}

function campaignColumns(rows: Map<string, CampaignDelta>): Columns {
  const col = new Columns();
  for (const d of rows.values()) pushCampaign(col, d);
  return col;
}

// ---- the write ----

const sum = (col: string): string => `${col} = r.${col} + EXCLUDED.${col}`;
const SUMS = `${sum('messages')}, ${sum('parts')}, ${sum('cost_micros')}`;
// the message rollups: the sums and a count per status (docs/decisions/0131, 0132)
const N = STATUSES.map((_, j) => `n${j}`).join(', ');
const NC = STATUS_COLUMNS.join(', ');
const counts = (from: number): string => STATUSES.map((_, j) => `$${from + j}::bigint[]`).join(', ');
const COUNT_SUMS = `${SUMS}, ${STATUS_COLUMNS.map(sum).join(', ')}`;
const SUMMED = `sum(m)::bigint, sum(p)::bigint, sum(co)::bigint, ${STATUSES.map((_, j) => `sum(n${j})::bigint`).join(', ')}`;
const NON_ZERO = ['m', 'p', 'co', ...STATUSES.map((_, j) => `n${j}`)].map((c) => `sum(${c}) <> 0`).join(' OR ');

/**
 * One statement that updates the changed states, inserts the new ones whole, and adds the deltas to the rollups (the
 * day-per-country rows and their month sums made by the database from the day deltas), rows in key order. No rollup
 * per stream alone: the reports sum the country rows (docs/decisions/0175).
 */
const WRITE_SQL = `WITH t AS (
         SELECT * FROM unnest($1::uuid[], $2::boolean[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::smallint[], $9::timestamptz[], $10::timestamptz[],
                              $11::date[], $12::int[], $13::bigint[], $14::bigint[], $15::text[], $16::bigint[], $17::bigint[], $18::text[], $65::xid[])
                       AS t(u, n, a, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price, refunded, currency, campaign_id, variant_id, destination, x)
       ), st AS (
         UPDATE stats.message_state m SET stream_id = t.stream_id, sender = t.sender, iso2 = t.iso2, status = t.status, rank = t.rank, accepted_at = t.accepted_at,
                hour_bucket = t.hour_bucket, day_bucket = t.day_bucket, segments = t.segments, price_micros = t.price, refunded_micros = t.refunded, currency = t.currency,
                campaign_id = t.campaign_id, variant_id = t.variant_id, destination = t.destination
           FROM t WHERE m.message_uuid = t.u AND NOT t.n AND m.xmin = t.x
         RETURNING 1
       ), sm AS (
         -- a known state whose status alone moved: only status and rank are set (fewer columns to send and decode; no
         -- index covers either). The uuids bound again with = ANY keep the plan on the primary key: joined to the
         -- unnest alone, a small table was read whole for a hash join (twice the CPU: docs/decisions/0103)
         UPDATE stats.message_state m SET status = n.status, rank = n.rank
           FROM unnest($61::uuid[], $62::text[], $63::smallint[], $64::xid[]) AS n(u, status, rank, x) WHERE m.message_uuid = n.u AND m.message_uuid = ANY($61::uuid[]) AND m.xmin = n.x
         RETURNING 1
       ), ins AS (
         -- a message seen for the first time: its state written once, whole (no empty row first, then an update)
         INSERT INTO stats.message_state (message_uuid, account_id, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price_micros,
                                          refunded_micros, currency, campaign_id, variant_id, destination)
         SELECT u, a, stream_id, sender, iso2, status, rank, accepted_at, hour_bucket, day_bucket, segments, price, refunded, currency, campaign_id, variant_id, destination
           FROM t WHERE t.n ORDER BY u
         ON CONFLICT (message_uuid) DO NOTHING RETURNING 1
       ), vh AS (
         -- hour rows: their sums and a count per status (n0 ... n6 in STATUSES' order; docs/decisions/0131, 0132)
         SELECT * FROM unnest($19::bigint[], $20::timestamptz[], $21::bigint[], $22::text[], $23::text[], $24::text[], $25::bigint[], $26::bigint[], $27::bigint[], ${counts(28)})
                  AS t(a, b, st, se, i, c, m, p, co, ${N})
       ), vd AS (
         -- day rows without the sender: their sums per stream and country are kept (per stream alone: summed by the reports, 0175)
         SELECT * FROM unnest($35::bigint[], $36::date[], $37::bigint[], $38::text[], $39::text[], $40::bigint[], $41::bigint[], $42::bigint[], ${counts(43)}) AS t(a, b, st, i, c, m, p, co, ${N})
       ), vc AS (
         -- campaign hour rows: st is the campaign, se the variant (0 unknown), dd the hour's local date
         SELECT * FROM unnest($50::bigint[], $51::timestamptz[], $52::bigint[], $53::bigint[], $54::text[], $55::text[], $56::text[], $57::bigint[], $58::bigint[], $59::bigint[], $60::date[])
                  AS t(a, b, st, se, i, s, c, m, p, co, dd)
       ), ch AS (
         -- the campaign rollup: st is the campaign, se the variant (0 unknown)
         INSERT INTO stats.rollup_campaign_hour AS r (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
         SELECT a, st, b, se, i, s, c, m, p, co FROM vc ORDER BY a, st, b, se, i, s, c
         ON CONFLICT (account_id, campaign_id, bucket, variant_id, iso2, status, currency) DO UPDATE SET ${SUMS}
       ), cd AS (
         -- the campaign day rollup: the campaign hour deltas summed per local date (an hour bucket lies in one local date)
         INSERT INTO stats.rollup_campaign_day AS r (account_id, campaign_id, bucket, variant_id, iso2, status, currency, messages, parts, cost_micros)
         SELECT a, st, dd, se, i, s, c, sum(m)::bigint, sum(p)::bigint, sum(co)::bigint FROM vc
          GROUP BY a, st, dd, se, i, s, c HAVING sum(m) <> 0 OR sum(p) <> 0 OR sum(co) <> 0 ORDER BY a, st, dd, se, i, s, c
         ON CONFLICT (account_id, campaign_id, bucket, variant_id, iso2, status, currency) DO UPDATE SET ${SUMS}
       ), ct AS (
         -- per campaign without variant and country, per local date and per local month (docs/decisions/0077)
         INSERT INTO stats.rollup_campaign_day_total AS r (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
         SELECT a, st, dd, s, c, sum(m)::bigint, sum(p)::bigint, sum(co)::bigint FROM vc
          GROUP BY a, st, dd, s, c HAVING sum(m) <> 0 OR sum(p) <> 0 OR sum(co) <> 0 ORDER BY a, st, dd, s, c
         ON CONFLICT (account_id, campaign_id, bucket, status, currency) DO UPDATE SET ${SUMS}
       ), cm AS (
         INSERT INTO stats.rollup_campaign_month AS r (account_id, campaign_id, bucket, status, currency, messages, parts, cost_micros)
         SELECT a, st, date_trunc('month', dd)::date, s, c, sum(m)::bigint, sum(p)::bigint, sum(co)::bigint FROM vc
          GROUP BY a, st, 3, s, c HAVING sum(m) <> 0 OR sum(p) <> 0 OR sum(co) <> 0 ORDER BY a, st, 3, s, c
         ON CONFLICT (account_id, campaign_id, bucket, status, currency) DO UPDATE SET ${SUMS}
       ), h AS (
         INSERT INTO stats.rollup_counts_hour AS r (account_id, bucket, stream_id, sender, iso2, currency, messages, parts, cost_micros, ${NC})
         SELECT a, b, st, se, i, c, m, p, co, ${N} FROM vh ORDER BY a, b, st, se, i, c
         ON CONFLICT (account_id, bucket, stream_id, sender, iso2, currency) DO UPDATE SET ${COUNT_SUMS}
       ), dc AS (
         -- the day deltas are already one per day-per-country key (the batch's day map) and none is all zeros
         -- (pushCounts): written as they are, without summing them again (0145)
         INSERT INTO stats.rollup_counts_day_country AS r (account_id, bucket, iso2, stream_id, currency, messages, parts, cost_micros, ${NC})
         SELECT a, b, i, st, c, m, p, co, ${N} FROM vd ORDER BY a, b, i, st, c
         ON CONFLICT (account_id, bucket, iso2, stream_id, currency) DO UPDATE SET ${COUNT_SUMS}
       ), mc AS (
         -- the month rollup: the day deltas summed per local month (a day bucket is a local date; docs/decisions/0070)
         INSERT INTO stats.rollup_counts_month_country AS r (account_id, bucket, iso2, stream_id, currency, messages, parts, cost_micros, ${NC})
         SELECT a, date_trunc('month', b)::date, i, st, c, ${SUMMED} FROM vd GROUP BY a, 2, i, st, c HAVING ${NON_ZERO} ORDER BY a, 2, i, st, c
         ON CONFLICT (account_id, bucket, iso2, stream_id, currency) DO UPDATE SET ${COUNT_SUMS}
       )
       SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT count(*) FROM st)::int AS rewritten, (SELECT count(*) FROM sm)::int AS "statusMoved"`;

/** The changed states as the write's first 18 columns, in one pass. */
function stateParams(changed: ReadonlyArray<State>, isCreated: boolean[]): string[] {
  const len = changed.length;
  const u: string[] = [];
  const a: string[] = [];
  const stream: Array<string | null> = [];
  const sender: string[] = [];
  const iso2: string[] = [];
  const status: string[] = [];
  const rank: number[] = [];
  const acceptedAt: Array<string | null> = [];
  const hour: Array<string | null> = [];
  const day: Array<string | null> = [];
  const segments: number[] = [];
  const price: bigint[] = [];
  const refunded: bigint[] = [];
  const currency: string[] = [];
  const campaign: Array<string | null> = [];
  const variant: Array<string | null> = [];
  const destination: Array<string | null> = [];
  for (let j = 0; j < len; j++) {
    const s = changed[j];
    u.push(s.message_uuid);
    a.push(s.account_id);
    stream.push(s.stream_id);
    sender.push(s.sender);
    iso2.push(s.iso2);
    status.push(s.status);
    rank.push(s.rank);
    acceptedAt.push(s.accepted_at);
    hour.push(s.hour_bucket);
    day.push(s.day_bucket);
    segments.push(s.segments);
    price.push(s.price_micros);
    refunded.push(s.refunded_micros);
    currency.push(s.currency);
    campaign.push(s.campaign_id);
    variant.push(s.variant_id);
    destination.push(s.destination);
  }
  return [
    plainArray(u),
    pgArray(isCreated),
    plainArray(a),
    pgArray(stream),
    pgArray(sender),
    pgArray(iso2),
    pgArray(status),
    pgArray(rank),
    pgArray(acceptedAt),
    pgArray(hour),
    pgArray(day),
    pgArray(segments),
    pgArray(price),
    pgArray(refunded),
    pgArray(currency),
    pgArray(campaign),
    pgArray(variant),
    pgArray(destination),
  ];
}

/** The moved states as the narrow update's four columns. */
function movedParams(moved: ReadonlyArray<State>, versions: string[]): string[] {
  const u: string[] = [];
  const status: string[] = [];
  const rank: number[] = [];
  for (let j = 0; j < moved.length; j++) {
    const s = moved[j];
    u.push(s.message_uuid);
    status.push(s.status);
    rank.push(s.rank);
  }
  return [plainArray(u), pgArray(status), pgArray(rank), plainArray(versions)];
}

// ids, hour instants and sums joined plainly (plainArray); the sender (the variant of a campaign row is an id), country,
// status, currency and dates (their text follows DateStyle) through pgArray's quoting
function hourParams(col: Columns): string[] {
  const out = [plainArray(col.a), plainArray(col.b), plainArray(col.st), pgArray(col.se), pgArray(col.i), pgArray(col.c), plainArray(col.m), plainArray(col.p), plainArray(col.co)];
  for (let j = 0; j < col.n.length; j++) out.push(plainArray(col.n[j]));
  return out;
}

function dayParams(col: Columns): string[] {
  const out = [plainArray(col.a), pgArray(col.b), plainArray(col.st), pgArray(col.i), pgArray(col.c), plainArray(col.m), plainArray(col.p), plainArray(col.co)];
  for (let j = 0; j < col.n.length; j++) out.push(plainArray(col.n[j]));
  return out;
}

function campaignParams(col: Columns): string[] {
  return [plainArray(col.a), plainArray(col.b), plainArray(col.st), plainArray(col.se), pgArray(col.i), pgArray(col.s), pgArray(col.c), pgArray(col.m), pgArray(col.p), plainArray(col.co), pgArray(col.dd)];
}

/** The write's 65 parameters, in its numbering. */
function writeParams(deltas: Deltas): string[] {
  const params = stateParams(deltas.changed, deltas.isCreated);
  for (const p of hourParams(countColumns(deltas.hours))) params.push(p);
  for (const p of dayParams(countColumns(deltas.days))) params.push(p);
  for (const p of campaignParams(campaignColumns(deltas.campaignHours))) params.push(p);
  for (const p of movedParams(deltas.moved, deltas.movedVersions)) params.push(p);
  params.push(plainArray(deltas.changedVersions));
  return params;
}

/**
 * The write's counts against what the batch meant: another replica created one of these states since the read (its
 * events were rebalanced to it), or wrote one of those read since (a newer version: this batch's update skipped it, or
 * waited for the other's commit and then skipped it). The batch is then rolled back and applied again event by event,
 * each finding the state as it is now.
 */
function checkWrite(deltas: Deltas, inserted: number, rewritten: number, statusMoved: number): void {
  const { changed, moved, creating } = deltas;
  if (inserted !== creating) throw new Error(`message states were created meanwhile (${creating - inserted}); the batch is applied again`);
  if (rewritten !== changed.length - creating || statusMoved !== moved.length) {
    throw new Error(`message states were changed meanwhile (${changed.length - creating - rewritten + moved.length - statusMoved}); the batch is applied again`);
  }
}

/**
 * One batch: three round trips whatever its size, besides the refunds' event ids. (1) the states the batch's messages
 * have, each with its row version (not locked: 0205), and the zones of the batch's accounts (the acceptances' hour and
 * day buckets computed in node: 0218); the events applied in memory; (2) one statement that writes
 * the states and adds the deltas to the rollups. Parameters travel as array literals read by unnest (pgArray, or
 * plainArray for ids, instants and sums; docs/decisions/0083 and 0119), never as arrays the driver escapes element by
 * element.
 */
export async function applyRollupBatch(m: EntityManager, items: ReadonlyArray<BatchItem<RollupInput>>): Promise<void> {
  const slots = slotsOf(items);
  const rows = await preparedQuery<ReadRow & Record<string, unknown>>(m, 'stats_rollup_read_v3', READ_SQL, readParams(slots));
  const states = statesOf(slots, rows);
  foldEvents(items, slots, states);
  const deltas = deltasOf(states);
  if (deltas.changed.length === 0 && deltas.moved.length === 0) return;
  const [w] = await preparedQuery<{ inserted: number; rewritten: number; statusMoved: number }>(m, 'stats_rollup_write_v2', WRITE_SQL, writeParams(deltas));
  checkWrite(deltas, w.inserted, w.rewritten, w.statusMoved);
}
