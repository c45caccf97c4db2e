import { createHash, randomUUID } from 'node:crypto';
import {
  encodeMintedLinks,
  LinkBatchMintedV2,
  LinkBatchRequestedV1,
  MINTED_MAX_PREFIXES,
  mintedLinksByRef,
  mintedPickText,
  mintedPickWidth,
  Topics,
  type EventData,
  type MintedVariableLinks,
} from '@switchboard/contracts';
import type { PoolClient, QueryResult } from 'pg';
import { fillTarget, placeholders } from '../redirect/target';
import { CODE_LENGTH, CodeCipher, encodeCodes } from './codes';
import { CODE_BLOCK, PAGE, RangePages, varsKeys } from './link-range';
import { textArray } from './pg-binary-array';
import { Distribution, DomainState, pickDomains, type DistributionValue, type DomainCandidate, type DomainPick } from './domain-picker';

export type LinkBatchRequest = EventData<typeof LinkBatchRequestedV1>;
/**
 * A batch's answer: the `links.link_batch.minted` v2 data (docs/decisions/0129), and, for callers in the process that
 * want them (tests, tools), its links in v1's shape read on first use (not enumerable: never sent).
 */
export type LinkBatchAnswer = EventData<typeof LinkBatchMintedV2> & { readonly links: Record<string, Record<string, string>> };

export interface MintOptions {
  cipher: CodeCipher;
  /** The scheme of the short URLs answered (`https`). */
  scheme: string;
  now: Date;
  /**
   * Called after the commit with the domains whose state the batch's usages changed (a configured domain reaching its
   * messages limit becomes 6 by the table's trigger), so the consumer can tell the account's open consoles.
   */
  onDomainsChanged?: (domains: MintedDomainChange[]) => void;
  /**
   * Store a link's variables as the JSON array of their values in the order of its target's URL placeholders, not as
   * the object of them (docs/decisions/0150: 24 of a link's 33 bytes of variables were the keys the URL gives). Only for
   * a target with its own URL (an offer's URL may change after minting). Default false: turn it on once every redirect
   * server reads both forms (this release's do).
   */
  varsValues?: boolean;
}

/** A domain whose state a minted batch changed, as it is after the commit. */
export interface MintedDomainChange {
  accountId: string;
  id: string;
  state: number;
  declinedReason: string | null;
}

interface Target {
  variable: string;
  kind: number;
  offerId: string | null;
  url: string | null;
  used: string[];
  expiresAt: Date | null;
  candidates: DomainCandidate[];
  mode: DistributionValue;
  poolId: string | null;
}

const DAY_MS = 86_400_000;

/**
 * Mints a campaign batch's personal links (docs/decisions/0034, 0092): for each item and link variable one code (the
 * numbers of one block of the sequence through the keyed permutation, no collision, no retry) and a domain from the
 * variable's domains or pool by the pool's distribution; per variable one range row (`links.link_range`: the block,
 * the domains, the recipients in batch order; no row per link, `links.link_of` resolves a code), the domains' usages
 * (and reached-limit state) updated, the answer kept for a repeated request and announced through the outbox.
 * A variable whose domains can take no more links answers `no_valid_domain`; a disabled, expired or missing offer
 * `offer_unavailable`; then nothing is written (a later request is decided afresh).
 *
 * Two transactions on `client`, under a session lock of the batch (docs/decisions/0134): the reservation (the targets
 * read, the candidate domains locked, the picks, the usages and a `links.link_reservation` row of the picks' inputs;
 * a few milliseconds) and then the links (code blocks, range rows, stored answer, outbox event, the reservation
 * consumed). The domains are locked only during the first, so batches sharing domains (one campaign's, or campaigns
 * sharing a pool) write their links in parallel. A batch whose links fail is released (its usages given back); one
 * whose process died is finished by the redelivery from its reservation, with the same picks.
 */
export async function mintBatch(client: PoolClient, req: LinkBatchRequest, o: MintOptions): Promise<LinkBatchAnswer> {
  // one batch at a time per (account, batch id): a redelivery waits for the first and then answers its links. The
  // lock's key is two numbers computed here and the keys are quoted here, so the lock, the look for a stored answer and
  // for a reservation travel in one round trip, which opens the reservation's transaction. A session lock: it spans the
  // batch's two transactions.
  if (req.items.length > CODE_BLOCK) throw new Error(`links: a batch has at most ${CODE_BLOCK} items`);
  const [k1, k2] = lockKey(req.accountId, req.batchId);
  const where = `account_id = ${client.escapeLiteral(req.accountId)} AND batch_id = ${client.escapeLiteral(req.batchId)}`;
  let locked = true;
  let open = true;
  try {
    const opened = (await client.query(
      `BEGIN; SELECT pg_advisory_lock(${k1}, ${k2}); SELECT outcome, links, links_text, refs, variables, blocks::text[] AS blocks FROM links.link_batch WHERE ${where}; SELECT targets::text FROM links.link_reservation WHERE ${where}`,
    )) as unknown as [QueryResult, QueryResult, QueryResult<StoredBatch>, QueryResult<{ targets: string }>];
    const stored = opened[2].rows[0];
    if (stored) {
      // batches minted before 0092 kept their answer as jsonb, then as the text sent (no jsonb parse a batch), and since
      // 0123 as the recipe to write it again (refs, variables, code blocks; the domains are the range rows')
      const links =
        stored.refs !== null
          ? await storedLinks(client, req.accountId, stored, o)
          : encodeMintedLinks(stored.links ?? (JSON.parse(stored.links_text ?? '{}') as Record<string, Record<string, string>>));
      return answerOf({ batchId: req.batchId, accountId: req.accountId, campaignId: req.campaignId, outcome: stored.outcome, ...links });
    }
    const kept = opened[3].rows[0];
    // a reservation left by a process that died before the links' commit: the same picks again, from its inputs (the
    // transaction open is the links'); else the reservation, which commits and opens the links' transaction
    const reserved = kept ? reservationOf(targetsOf(kept.targets), req.items.length) : await reserve(client, req, o);
    if (typeof reserved === 'string') return answerOf({ batchId: req.batchId, accountId: req.accountId, campaignId: req.campaignId, outcome: reserved, refs: [], variables: [] });
    if (!reserved) throw new Error('links: a reservation no longer picks its domains');
    let answer: LinkBatchAnswer;
    try {
      answer = await writeLinks(client, req, o, reserved, `SELECT pg_advisory_unlock(${k1}, ${k2})`);
      open = locked = false;
    } catch (e) {
      // the usages go back (nothing of the batch stays counted); if that fails too (the database is away), the
      // redelivery finds the reservation and finishes it
      await client.query('ROLLBACK').catch(() => undefined);
      open = false;
      await release(client, req, o, reserved).catch(() => undefined);
      throw e;
    }
    if (o.onDomainsChanged && reserved.moved.length) o.onDomainsChanged(reserved.moved);
    return answer;
  } finally {
    // a stored answer read, a refusal, or a failure before the links' write: its transaction ends, then the batch's lock
    if (locked) await client.query(`${open ? 'ROLLBACK; ' : ''}SELECT pg_advisory_unlock(${k1}, ${k2})`);
  }
}

/** A batch's domains picked and counted (its reservation): what its links are written with. */
interface Reservation {
  targets: Target[];
  assignments: Array<{ pick: DomainPick; t: Target }>;
  /** Links a domain takes, by id. */
  usageById: Map<string, number>;
  members: Array<{ pool: string; domain: string; n: number }>;
  pools: Map<string, number>;
  /** Domains whose state the usages moved (filled by `reserve`). */
  moved: MintedDomainChange[];
}

/**
 * The picks of a batch's variables (pure: the same targets give the same picks). Domains are picked per variable over
 * its candidates; a domain shared by two variables carries on from the usages the first one gave it. Null when a
 * variable's domains cannot take the batch (no_valid_domain). Mutates the candidates' usages.
 */
function reservationOf(targets: Target[], n: number): Reservation | null {
  const assignments: Reservation['assignments'] = [];
  const usageById = new Map<string, number>();
  for (const t of targets) {
    for (const c of t.candidates) {
      const extra = usageById.get(c.id);
      if (extra !== undefined) c.totalUsages += extra;
    }
    const pick = pickDomains(t.candidates, t.mode, n);
    if (!pick) return null;
    t.candidates.forEach((c, i) => {
      if (pick.added[i]) usageById.set(c.id, (usageById.get(c.id) ?? 0) + pick.added[i]);
    });
    assignments.push({ pick, t });
  }
  const members: Reservation['members'] = [];
  const pools = new Map<string, number>();
  for (const { pick, t } of assignments) {
    if (!t.poolId) continue;
    t.candidates.forEach((c, i) => {
      if (pick.added[i]) members.push({ pool: t.poolId!, domain: c.id, n: pick.added[i] });
    });
    pools.set(t.poolId, (pools.get(t.poolId) ?? 0) + n);
  }
  return { targets, assignments, usageById, members, pools, moved: [] };
}

/** The targets as a reservation keeps them (JSON), read back. */
function targetsOf(text: string): Target[] {
  return (JSON.parse(text) as Array<Omit<Target, 'expiresAt'> & { expiresAt: string | null }>).map((t) => ({ ...t, expiresAt: t.expiresAt === null ? null : new Date(t.expiresAt) }));
}

/**
 * The batch's reservation, in its own short transaction: the targets (offers, pools) read, the candidate domains locked
 * (usages and limits stay exact under concurrent batches), the picks, the usages of the domains (a configured domain
 * reaching its limit becomes 6 by the table's trigger), pool members and pools, and the picks' inputs kept in
 * `links.link_reservation`. Runs in the transaction `mintBatch` opened; commits it and opens the links' in one round
 * trip. The outcome instead when the batch is refused (nothing written; the caller rolls back).
 */
async function reserve(client: PoolClient, req: LinkBatchRequest, o: MintOptions): Promise<Reservation | 'offer_unavailable' | 'no_valid_domain'> {
  const targets: Target[] = [];
  for (const v of req.variables) {
    const t = await loadTarget(client, req.accountId, v, o.now);
    if (!t) return 'offer_unavailable';
    targets.push(t);
  }
  // the picks' inputs, before the picks move the candidates' usages
  const inputs = JSON.stringify(targets);
  const r = reservationOf(targets, req.items.length);
  if (!r) return 'no_valid_domain';
  const ids = [...r.usageById.keys()];
  const changed = await client.query<{ id: string; state: number; declined_reason: string | null }>({
    name: 'links_mint_reserve',
    text: `WITH d AS (
       UPDATE links.domain d SET total_usages = d.total_usages + u.n, last_used_at = $3, updated_at = $3
         FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n) WHERE d.id = u.id AND d.account_id = $4
       RETURNING d.id::text, d.state, d.declined_reason
     ), m AS (
       UPDATE links.domain_pool_member m SET usages = m.usages + u.n
         FROM unnest($5::bigint[], $6::bigint[], $7::bigint[]) AS u(pool_id, domain_id, n) WHERE m.pool_id = u.pool_id AND m.domain_id = u.domain_id AND m.account_id = $4
     ), p AS (
       UPDATE links.domain_pool p SET usages = p.usages + u.n, updated_at = $3
         FROM unnest($8::bigint[], $9::bigint[]) AS u(id, n) WHERE p.id = u.id AND p.account_id = $4
     ), x AS (
       INSERT INTO links.link_reservation (account_id, batch_id, targets, created_at) VALUES ($4, $10, $11::jsonb, $3)
     )
     SELECT id, state, declined_reason FROM d`,
    values: [ids, ids.map((id) => r.usageById.get(id)), o.now, req.accountId, r.members.map((x) => x.pool), r.members.map((x) => x.domain), r.members.map((x) => x.n), [...r.pools.keys()], [...r.pools.values()], req.batchId, inputs],
  });
  // the reservation's commit does not wait for its WAL to reach the disk (docs/decisions/0147): the domains' row locks
  // are released at once, not after an fsync, so the next batch of the pool picks meanwhile. Nothing is lost by it: a
  // reservation counts only with the links written after it, and the links' commit (synchronous) flushes the WAL up to
  // its own record, this reservation's included; a batch that read these usages commits after it the same way. A crash
  // before that flush loses the reservation and no links with it (the redelivery mints the batch afresh)
  await client.query('SET LOCAL synchronous_commit TO off; COMMIT; BEGIN');
  // the candidates were locked with their state before the update: those whose state the usages moved
  const before = new Map<string, number>();
  for (const { t } of r.assignments) for (const c of t.candidates) before.set(c.id, c.state);
  r.moved = changed.rows.filter((x) => before.get(x.id) !== x.state).map((x) => ({ accountId: req.accountId, id: x.id, state: x.state, declinedReason: x.declined_reason }));
  return r;
}

/**
 * A reservation whose links could not be written, given back (one statement): its row removed and, only if it was
 * there, its usages subtracted (a domain back under its limit becomes configured again by the table's trigger).
 */
async function release(client: PoolClient, req: LinkBatchRequest, o: MintOptions, r: Reservation): Promise<void> {
  const ids = [...r.usageById.keys()];
  await client.query({
    name: 'links_mint_release',
    text: `WITH x AS (
         DELETE FROM links.link_reservation WHERE account_id = $4 AND batch_id = $10 RETURNING 1
       ), d AS (
         UPDATE links.domain d SET total_usages = d.total_usages - u.n, updated_at = $3
           FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n) WHERE d.id = u.id AND d.account_id = $4 AND EXISTS (SELECT FROM x)
       ), m AS (
         UPDATE links.domain_pool_member m SET usages = m.usages - u.n
           FROM unnest($5::bigint[], $6::bigint[], $7::bigint[]) AS u(pool_id, domain_id, n) WHERE m.pool_id = u.pool_id AND m.domain_id = u.domain_id AND m.account_id = $4 AND EXISTS (SELECT FROM x)
       ), p AS (
         UPDATE links.domain_pool p SET usages = p.usages - u.n, updated_at = $3
           FROM unnest($8::bigint[], $9::bigint[]) AS u(id, n) WHERE p.id = u.id AND p.account_id = $4 AND EXISTS (SELECT FROM x)
       )
       SELECT count(*)::int AS n FROM x`,
    values: [ids, ids.map((id) => r.usageById.get(id)), o.now, req.accountId, r.members.map((x) => x.pool), r.members.map((x) => x.domain), r.members.map((x) => x.n), [...r.pools.keys()], [...r.pools.values()], req.batchId],
  });
}

/**
 * The batch's links in their own transaction (open), with its domains already reserved (no domain locked here): the code
 * blocks, the range rows, the stored answer, its outbox event, and the reservation consumed; `after` runs in the
 * commit's round trip (the batch's unlock).
 */
async function writeLinks(client: PoolClient, req: LinkBatchRequest, o: MintOptions, reserved: Reservation, after: string): Promise<LinkBatchAnswer> {
  const { targets, assignments } = reserved;
  // the variables' targets and one code block per variable (nextval: no lock, not rolled back; a failed batch's
  // blocks are simply never used) in one round trip. A batch has at most 1000 items, so a variable's links are the
  // first numbers of one block: its range rows are keyed by the block's pages of 16 numbers (docs/decisions/0092, 0105)
  const head = await client.query<{ ids: string[]; blocks: string[]; row_type: number }>({
    name: 'links_mint_head',
    text: `WITH t AS (
       INSERT INTO links.link_target (account_id, campaign_id, batch_id, variable, kind, offer_id, url, created_at)
       SELECT $1, $2, $3, v, k, o, u, $4 FROM unnest($5::text[], $6::smallint[], $7::bigint[], $8::text[]) WITH ORDINALITY AS t(v, k, o, u, i) ORDER BY i
       RETURNING id, variable
     )
     SELECT (SELECT array_agg(t.id::text ORDER BY array_position($5::text[], t.variable)) FROM t) AS ids,
            (SELECT array_agg(nextval('links.code_block_seq')::text) FROM generate_series(1, $9::int)) AS blocks,
            -- the OID as int4 (above 2^31 it reads negative, the same four bytes in the binary array's header)
            'links.link_range_row'::regtype::oid::int AS row_type`,
    values: [req.accountId, req.campaignId, req.batchId, o.now, targets.map((t) => t.variable), targets.map((t) => t.kind), targets.map((t) => t.offerId), targets.map((t) => t.url), targets.length],
  });
  const targetIds = head.rows[0].ids;
  const blocks = head.rows[0].blocks.map(Number);

  // the answer (docs/decisions/0129): per variable its domains' prefixes once, a pick and a code a link, each one run
  // of text; no string and no object a link
  const minted: MintedVariableLinks[] = [];
  const created = o.now.toISOString();
  const account = req.accountId;
  const campaign = req.campaignId;
  const n = req.items.length;
  // per variable one range row a page of 16 links, its recipients as fixed-width records (docs/decisions/0105)
  const pages = new RangePages(account, campaign, req.streamId, o.now, n * assignments.length);
  // links per domain and variant, for the reports built from events (domain_stats): counted per candidate index
  // and variant without a string key per link
  const usage = new Map<string, { domainId: string; domain: string; variantId: string | null; links: number }>();
  for (let vi = 0; vi < assignments.length; vi++) {
    const { pick, t } = assignments[vi];
    minted.push(variableLinks(t.variable, o.cipher.encryptRange(blocks[vi] * CODE_BLOCK, n), pick.assignment, (k) => `${o.scheme}://${t.candidates[k].name}/`));
    const domainIds = t.candidates.map((d) => d.id);
    pages.add(
      blocks[vi],
      targetIds[vi],
      t.expiresAt,
      req.items,
      domainIds,
      pick.assignment,
      // a target with its own URL (not an offer's, whose URL may change) keeps its values alone when asked (0150)
      t.used.length ? { used: t.used, keys: varsKeys(t.used), values: o.varsValues === true && t.url !== null } : null,
    );
    const perVariant = new Map<string | null, number[]>();
    let lastVariant: string | null | undefined;
    let counts: number[] = [];
    for (let i = 0; i < n; i++) {
      const at = pick.assignment[i];
      const variant = req.items[i].variantId ?? null;
      if (variant !== lastVariant) {
        lastVariant = variant;
        counts = perVariant.get(variant) ?? [];
        perVariant.set(variant, counts);
      }
      counts[at] = (counts[at] ?? 0) + 1;
    }
    for (const [variantId, byCandidate] of perVariant) {
      byCandidate.forEach((c, ci) => {
        const d = t.candidates[ci];
        const uk = `${d.id}:${variantId ?? ''}`;
        const u = usage.get(uk);
        if (u) u.links += c;
        else usage.set(uk, { domainId: d.id, domain: d.name, variantId, links: c });
      });
    }
  }

  // the range rows, the stored answer and its event, and the reservation consumed, in one statement. The range rows are
  // one binary array of `links.link_range_row` (link-range.ts, docs/decisions/0141), inserted as they come
  const usages = [...usage.values()];
  const refs = req.items.map((item) => item.ref);
  const answer = answerOf({ batchId: req.batchId, accountId: account, campaignId: campaign, outcome: 'minted', refs, variables: minted, usages });
  // the answer is written once, as its event (a repeated request rebuilds it from the stored recipe: refs, variables,
  // blocks; 0123); the outbox row is a packed row of one event
  const event = { id: randomUUID(), type: LinkBatchMintedV2.type, version: LinkBatchMintedV2.version, occurredAt: created, source: 'links', accountId: account, traceId: null, key: campaign };
  const packed = JSON.stringify([{ ...event, data: answer, topic: Topics.Links }]);
  await client.query({
    name: 'links_mint_write',
    text: `WITH r AS (
         INSERT INTO links.link_range (page, account_id, target_id, campaign_id, stream_id, expires_at, created_at, domains, variants, contacts, messages, destinations, vars)
         SELECT page, account_id, target_id, campaign_id, stream_id, expires_at, created_at, domains, variants, contacts, messages, destinations, vars
           FROM unnest($7::links.link_range_row[])
       ), b AS (
         INSERT INTO links.link_batch (account_id, batch_id, campaign_id, outcome, refs, variables, blocks, created_at) VALUES ($2, $3, $4, 'minted', $8::text[], $9::text[], $10::bigint[], $1)
       ), o AS (
         INSERT INTO links.outbox (event_id, topic, key, type, payload, packed) VALUES ($6, '', '1', '$packed', '{}', $5::text)
       )
       DELETE FROM links.link_reservation WHERE account_id = $2 AND batch_id = $3`,
    values: [
      o.now,
      account,
      req.batchId,
      campaign,
      packed,
      randomUUID(),
      pages.value(head.rows[0].row_type),
      // one binary array, not an array node-pg escapes element by element (the batch's 1000 refs)
      textArray(refs),
      targets.map((t) => t.variable),
      blocks,
    ],
  });
  await client.query(`COMMIT; ${after}`);
  return answer;
}

/**
 * The answer as v2 data, with its links in v1's shape read on first use as a property that is not enumerable (so it
 * is neither serialised nor validated): the consumer that minted a batch only sends the compact form.
 */
function answerOf(data: EventData<typeof LinkBatchMintedV2>): LinkBatchAnswer {
  return Object.defineProperty(data, 'links', {
    enumerable: false,
    configurable: true,
    get(this: LinkBatchAnswer) {
      const links = mintedLinksByRef(this);
      Object.defineProperty(this, 'links', { value: links, enumerable: false, writable: true, configurable: true });
      return links;
    },
  }) as LinkBatchAnswer;
}

interface StoredBatch {
  outcome: LinkBatchAnswer['outcome'];
  links: LinkBatchAnswer['links'] | null;
  links_text: string | null;
  refs: string[] | null;
  variables: string[] | null;
  blocks: string[] | null;
}

/**
 * One variable's links in the v2 answer: `codes[i]` is item i's code value, `domainOf[i]` the index of its domain,
 * `prefixOf(k)` domain k's `<scheme>://<name>/`. The prefixes are listed in the order of their first link, so the
 * answer rebuilt from the stored recipe (domains in batch order) is the same text.
 */
function variableLinks(variable: string, codes: Float64Array, domainOf: ArrayLike<number>, prefixOf: (k: number) => string): MintedVariableLinks {
  const n = codes.length;
  const index = new Map<number, number>();
  const prefixes: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = domainOf[i];
    if (!index.has(k)) {
      index.set(k, prefixes.length);
      prefixes.push(prefixOf(k));
    }
  }
  if (prefixes.length > MINTED_MAX_PREFIXES) throw new Error(`links: a variable's links are on more than ${MINTED_MAX_PREFIXES} domains`);
  const width = mintedPickWidth(prefixes.length);
  // the picks' digits into one buffer read as one string (ASCII), as the codes (encodeCodes): no string a link
  let picks = '';
  if (width) {
    const b = Buffer.allocUnsafe(n * width);
    let last = -1;
    let c0 = 0;
    let c1 = 0;
    for (let i = 0, o = 0; i < n; i++, o += width) {
      const k = domainOf[i];
      if (k !== last) {
        last = k;
        const pick = mintedPickText(index.get(k)!, width);
        c0 = pick.charCodeAt(0);
        c1 = pick.charCodeAt(1);
      }
      b[o] = c0;
      if (width === 2) b[o + 1] = c1;
    }
    picks = b.toString('latin1');
  }
  const text = encodeCodes(codes);
  return { variable, prefixes, codeWidth: CODE_LENGTH, picks, codes: text };
}

/**
 * A batch's links written again from its stored recipe (docs/decisions/0123): each variable's codes are its block's
 * first numbers through the code key, its domains the range rows' (in page order), the refs and variables as stored.
 * The same links as the first answer (the scheme is the configured one).
 */
async function storedLinks(client: PoolClient, accountId: string, stored: StoredBatch, o: MintOptions): Promise<Pick<LinkBatchAnswer, 'refs' | 'variables'>> {
  const refs = stored.refs!;
  const blocks = stored.blocks!.map(Number);
  const { rows } = await client.query<{ ord: number; names: string[] }>({
    name: 'links_mint_stored_domains',
    text: `SELECT v.ord::int AS ord, array_agg(d.name ORDER BY r.page, e.k) AS names
             FROM unnest($1::bigint[]) WITH ORDINALITY AS v(block, ord)
             JOIN links.link_range r ON r.page >= v.block * $3::bigint AND r.page < (v.block + 1) * $3::bigint AND r.account_id = $2
             CROSS JOIN LATERAL unnest(r.domains) WITH ORDINALITY AS e(id, k)
             JOIN links.domain d ON d.id = e.id
            GROUP BY v.ord ORDER BY v.ord`,
    values: [blocks, accountId, CODE_BLOCK / PAGE],
  });
  const names = blocks.map((_, vi) => rows.find((r) => r.ord === vi + 1)?.names ?? []);
  if (names.some((n) => n.length !== refs.length)) throw new Error('links: a stored batch has not the range rows of its links');
  const variables = blocks.map((b, vi) => {
    // each link's domain by its name's first place, as minting numbered the candidates it used
    const first = new Map<string, number>();
    const at = names[vi].map((name) => {
      let k = first.get(name);
      if (k === undefined) first.set(name, (k = first.size));
      return k;
    });
    const byIndex = [...first.keys()];
    return variableLinks(stored.variables![vi], o.cipher.encryptRange(b * CODE_BLOCK, refs.length), at, (k) => `${o.scheme}://${byIndex[k]}/`);
  });
  return { refs, variables };
}

/** The advisory lock of a batch: two int4 from a hash of (account, batch id), safe to write into the SQL text. */
function lockKey(accountId: string, batchId: string): [number, number] {
  const h = createHash('sha256').update(`links.mint:${accountId}:${batchId}`).digest();
  return [h.readInt32BE(0), h.readInt32BE(4)];
}

/**
 * A variable's target and candidate domains, the domains locked (usages and limits stay exact under concurrent
 * batches). Null when its offer cannot take links (missing, disabled, expired) or its URL is not a plain http(s)
 * link whose scheme and host are fixed.
 */
async function loadTarget(client: PoolClient, accountId: string, v: LinkBatchRequest['variables'][number], now: Date): Promise<Target | null> {
  let url: string | null = null;
  let expiresAt = v.expireInDays ? new Date(now.getTime() + v.expireInDays * DAY_MS) : null;
  if (v.kind === 'shorturl') {
    if (v.offerId) {
      const offer = await client.query<{ original_url: string; disabled: boolean; expire_method: string; expire_in_days: number | null; created_at: Date }>({
        name: 'links_mint_offer',
        text: `SELECT original_url, disabled, expire_method, expire_in_days, created_at FROM links.offer WHERE id = $1 AND account_id = $2`,
        values: [v.offerId, accountId],
      });
      const of = offer.rows[0];
      if (!of || of.disabled) return null;
      if (of.expire_in_days && of.expire_method === 'offer_creation' && of.created_at.getTime() + of.expire_in_days * DAY_MS <= now.getTime()) return null;
      if (of.expire_in_days && of.expire_method === 'link_creation') {
        const at = new Date(now.getTime() + of.expire_in_days * DAY_MS);
        if (!expiresAt || at < expiresAt) expiresAt = at;
      }
      url = of.original_url;
    } else {
      url = v.url;
    }
    if (!url || fillTarget(url, null) === null) return null;
  }

  let mode: DistributionValue = Distribution.SpreadEvenly;
  let rows: Array<CandidateRow>;
  if (v.domainPoolId) {
    // the pool's distribution with its candidates, in one round trip (docs/decisions/0147): a pool of another account
    // (or none) has no candidates, so no row and no_valid_domain, whatever the distribution
    const pooled = (
      await client.query<CandidateRow & { distribution: number | null }>({
        name: 'links_mint_pool_candidates_v2',
        text: `SELECT ${CANDIDATE_COLUMNS}, (SELECT p.distribution FROM links.domain_pool p WHERE p.id = $1 AND p.account_id = $2) AS distribution
          FROM links.domain_pool_member m JOIN links.domain d ON d.id = m.domain_id
          WHERE m.pool_id = $1 AND m.account_id = $2 AND d.account_id = $2 ORDER BY m.position, d.id FOR UPDATE OF d`,
        values: [v.domainPoolId, accountId],
      })
    ).rows;
    mode = pooled[0]?.distribution === Distribution.OneByOne ? Distribution.OneByOne : Distribution.SpreadEvenly;
    rows = pooled;
  } else {
    rows = (
      await client.query<CandidateRow>({
        name: 'links_mint_candidates',
        text: `SELECT ${CANDIDATE_COLUMNS} FROM links.domain d
          WHERE d.account_id = $1 AND d.id = ANY ($2::bigint[]) ORDER BY array_position($2::bigint[], d.id) FOR UPDATE OF d`,
        values: [accountId, v.domainIds],
      })
    ).rows;
  }
  const candidates = rows.map((r) => ({
    id: r.id,
    name: r.name,
    // only a domain whose ownership was proven (claimed) and that is not blocked can carry links
    state: r.claimed && !r.blocked ? r.state : DomainState.Blocked,
    archived: r.state === DomainState.Archived,
    messagesLimit: r.messages_limit === null ? null : Number(r.messages_limit),
    totalUsages: Number(r.total_usages),
  }));
  return { variable: v.variable, kind: v.kind === 'optout' ? 1 : 0, offerId: v.kind === 'shorturl' ? v.offerId : null, url: v.kind === 'shorturl' && !v.offerId ? url : null, used: url ? placeholders(url) : [], expiresAt: v.kind === 'optout' ? null : expiresAt, candidates, mode, poolId: v.domainPoolId };
}

interface CandidateRow {
  id: string;
  name: string;
  state: number;
  claimed: boolean;
  blocked: boolean;
  messages_limit: string | null;
  total_usages: string;
}

const CANDIDATE_COLUMNS = `d.id::text, d.name, d.state, d.claimed, d.blocked, d.messages_limit::text, d.total_usages::text`;
