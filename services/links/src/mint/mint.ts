import { createHash, randomUUID } from 'node:crypto';
import { LinkBatchMintedV1, LinkBatchRequestedV1, Topics, type EventData } from '@switchboard/contracts';
import type { PoolClient, QueryResult } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { fillTarget, placeholders } from '../redirect/target';
import { CodeCipher, encodeCode } from './codes';
import { CopyText } from './copy-text';
import { Distribution, DomainState, pickDomains, type DistributionValue, type DomainCandidate } from './domain-picker';

export type LinkBatchRequest = EventData<typeof LinkBatchRequestedV1>;
export type LinkBatchAnswer = EventData<typeof LinkBatchMintedV1>;

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
 * Mints a campaign batch's personal links (docs/decisions/0034): for each item and link variable one code (a block of
 * the sequence through the keyed permutation, no collision, no retry), a domain from the variable's domains or pool
 * by the pool's distribution, the rows stored by COPY, the domains' usages (and reached-limit state) updated, the
 * answer kept for a repeated request and announced through the outbox, all in one transaction on `client`.
 * A variable whose domains can take no more links answers `no_valid_domain`; a disabled, expired or missing offer
 * `offer_unavailable`; then nothing is written (a later request is decided afresh).
 */
export async function mintBatch(client: PoolClient, req: LinkBatchRequest, o: MintOptions): Promise<LinkBatchAnswer> {
  const total = req.items.length * req.variables.length;
  // one batch at a time per (account, batch id): a redelivery waits for the first and then answers its links. The
  // lock's key is two numbers computed here and the stored answer's key is quoted here, so BEGIN, the lock and the
  // look for a stored answer travel in one round trip.
  const [k1, k2] = lockKey(req.accountId, req.batchId);
  const opened = (await client.query(
    `BEGIN; SELECT pg_advisory_xact_lock(${k1}, ${k2}); SELECT outcome, links FROM links.link_batch WHERE account_id = ${client.escapeLiteral(req.accountId)} AND batch_id = ${client.escapeLiteral(req.batchId)}`,
  )) as unknown as Array<QueryResult<{ outcome: LinkBatchAnswer['outcome']; links: LinkBatchAnswer['links'] }>>;
  try {
    const done = opened[2];
    if (done.rows[0]) {
      await client.query('COMMIT');
      return { batchId: req.batchId, accountId: req.accountId, campaignId: req.campaignId, outcome: done.rows[0].outcome, links: done.rows[0].links };
    }
    const refused = async (outcome: LinkBatchAnswer['outcome']): Promise<LinkBatchAnswer> => {
      await client.query('ROLLBACK');
      return { batchId: req.batchId, accountId: req.accountId, campaignId: req.campaignId, outcome, links: {} };
    };

    const targets: Target[] = [];
    for (const v of req.variables) {
      const t = await loadTarget(client, req.accountId, v, o.now);
      if (!t) return refused('offer_unavailable');
      targets.push(t);
    }

    // domains: picked per variable over the candidates locked above; a domain shared by two variables carries on
    // from the usages the first one gave it
    const assignments: Array<{ pick: NonNullable<ReturnType<typeof pickDomains>>; t: Target }> = [];
    const usageById = new Map<string, number>();
    for (const t of targets) {
      for (const c of t.candidates) {
        const extra = usageById.get(c.id);
        if (extra !== undefined) c.totalUsages += extra;
      }
      const pick = pickDomains(t.candidates, t.mode, req.items.length);
      if (!pick) return refused('no_valid_domain');
      t.candidates.forEach((c, i) => {
        if (pick.added[i]) usageById.set(c.id, (usageById.get(c.id) ?? 0) + pick.added[i]);
      });
      assignments.push({ pick, t });
    }

    // the variables' targets and the code blocks (nextval: no lock, not rolled back; a failed batch's blocks are
    // simply never used) in one round trip
    const head = await client.query<{ ids: string[]; blocks: string[] }>(
      `WITH t AS (
         INSERT INTO links.link_target (account_id, campaign_id, batch_id, variable, kind, offer_id, url, created_at)
         SELECT $1, $2, $3, v, k, o, u, $4 FROM unnest($5::text[], $6::smallint[], $7::bigint[], $8::text[]) WITH ORDINALITY AS t(v, k, o, u, i) ORDER BY i
         RETURNING id, variable
       )
       SELECT (SELECT array_agg(t.id::text ORDER BY array_position($5::text[], t.variable)) FROM t) AS ids,
              (SELECT array_agg(nextval('links.code_block_seq')::text) FROM generate_series(1, $9::int)) AS blocks`,
      [req.accountId, req.campaignId, req.batchId, o.now, targets.map((t) => t.variable), targets.map((t) => t.kind), targets.map((t) => t.offerId), targets.map((t) => t.url), Math.ceil(total / CODE_BLOCK)],
    );
    const targetIds = head.rows[0].ids;
    const codes = new Float64Array(total);
    const blocks = head.rows[0].blocks.map(Number);
    for (let i = 0; i < total; i++) codes[i] = blocks[Math.floor(i / CODE_BLOCK)] * CODE_BLOCK + (i % CODE_BLOCK);
    o.cipher.encryptInPlace(codes);

    const links: LinkBatchAnswer['links'] = {};
    const created = o.now.toISOString();
    const account = req.accountId;
    const campaign = req.campaignId;
    // the rows go straight into one buffer (docs/decisions/0071): each row's constant parts are prepared once per
    // variable, the rest written as bytes, so a link costs no row string and no join
    const rows = new CopyText(total * 200);
    const tab = 9;
    const afterVariant = Buffer.from(`\t${req.streamId ?? '\\N'}\t`);
    // links per domain and variant, for the reports built from events (domain_stats): counted per candidate index
    // and variant without a string key per link
    const usage = new Map<string, { domainId: string; domain: string; variantId: string | null; links: number }>();
    let k = 0;
    for (let vi = 0; vi < assignments.length; vi++) {
      const { pick, t } = assignments[vi];
      const domainIds = t.candidates.map((d) => Buffer.from(`${d.id}\t`));
      const prefixes = t.candidates.map((d) => `${o.scheme}://${d.name}/`);
      const afterCode = Buffer.from(`\t${account}\t${targetIds[vi]}\t${campaign}\t`);
      const tail = Buffer.from(`\t${t.expiresAt ? t.expiresAt.toISOString() : '\\N'}\t${created}\n`);
      const names = t.used.map((name) => Buffer.from(`,${JSON.stringify(name)}:`));
      const opens = t.used.map((name) => Buffer.from(`{${JSON.stringify(name)}:`));
      const perVariant = new Map<string | null, number[]>();
      let lastVariant: string | null | undefined;
      let counts: number[] = [];
      for (let i = 0; i < req.items.length; i++) {
        const item = req.items[i];
        const at = pick.assignment[i];
        const value = codes[k++];
        rows.raw(domainIds[at]);
        rows.int(value);
        rows.raw(afterCode);
        rows.text(item.variantId);
        rows.raw(afterVariant);
        rows.text(item.contactId);
        rows.byte(tab);
        rows.text(item.messageUuid);
        rows.byte(tab);
        rows.text(item.destination);
        rows.byte(tab);
        writeVars(rows, t.used, opens, names, item.vars);
        rows.raw(tail);
        (links[item.ref] ??= {})[t.variable] = prefixes[at] + encodeCode(value);
        const variant = item.variantId ?? null;
        if (variant !== lastVariant) {
          lastVariant = variant;
          counts = perVariant.get(variant) ?? [];
          perVariant.set(variant, counts);
        }
        counts[at] = (counts[at] ?? 0) + 1;
      }
      for (const [variantId, byCandidate] of perVariant) {
        byCandidate.forEach((n, ci) => {
          const d = t.candidates[ci];
          const uk = `${d.id}:${variantId ?? ''}`;
          const u = usage.get(uk);
          if (u) u.links += n;
          else usage.set(uk, { domainId: d.id, domain: d.name, variantId, links: n });
        });
      }
    }
    await copyInto(client, rows.bytes());

    // usages (the domains: a configured domain reaching its limit becomes 6 by the table's trigger; the pools'
    // members; the pools), the stored answer and its event, in one statement
    const ids = [...usageById.keys()];
    const members: Array<{ pool: string; domain: string; n: number }> = [];
    const pools = new Map<string, number>();
    for (const { pick, t } of assignments) {
      if (!t.poolId) continue;
      t.candidates.forEach((c, i) => {
        if (pick.added[i]) members.push({ pool: t.poolId!, domain: c.id, n: pick.added[i] });
      });
      pools.set(t.poolId, (pools.get(t.poolId) ?? 0) + req.items.length);
    }
    const usages = [...usage.values()];
    const answer: LinkBatchAnswer = { batchId: req.batchId, accountId: account, campaignId: campaign, outcome: 'minted', links, usages };
    const linksJson = JSON.stringify(links);
    const event = { id: randomUUID(), type: LinkBatchMintedV1.type, version: LinkBatchMintedV1.version, occurredAt: created, source: 'links', accountId: account, traceId: null, key: campaign };
    // the answer is serialised once and sent once: PostgreSQL stores it (for a repeated request) and splices the same
    // text into the event between these two parts
    const before = `[${JSON.stringify(event).slice(0, -1)},"data":{"batchId":${JSON.stringify(req.batchId)},"accountId":"${account}","campaignId":"${campaign}","outcome":"minted","links":`;
    const after = `,"usages":${JSON.stringify(usages)}},"topic":"${Topics.Links}"}]`;
    const changed = await client.query<{ id: string; state: number; declined_reason: string | null }>(
      `WITH d AS (
         UPDATE links.domain d SET total_usages = d.total_usages + u.n, last_used_at = $3, updated_at = $3
           FROM unnest($1::bigint[], $2::bigint[]) AS u(id, n) WHERE d.id = u.id AND d.account_id = $4
         RETURNING d.id::text, d.state, d.declined_reason
       ), m AS (
         UPDATE links.domain_pool_member m SET usages = m.usages + u.n
           FROM unnest($5::bigint[], $6::bigint[], $7::bigint[]) AS u(pool_id, domain_id, n) WHERE m.pool_id = u.pool_id AND m.domain_id = u.domain_id AND m.account_id = $4
       ), p AS (
         UPDATE links.domain_pool p SET usages = p.usages + u.n, updated_at = $3
           FROM unnest($8::bigint[], $9::bigint[]) AS u(id, n) WHERE p.id = u.id AND p.account_id = $4
       ), b AS (
         INSERT INTO links.link_batch (account_id, batch_id, campaign_id, outcome, links, created_at) VALUES ($4, $10, $11, 'minted', $12::text::jsonb, $3)
       ), o AS (
         INSERT INTO links.outbox (event_id, topic, key, type, payload, packed) VALUES ($13, '', '1', '$packed', '{}', $14::text || $12::text || $15::text)
       )
       SELECT id, state, declined_reason FROM d`,
      [
        ids,
        ids.map((id) => usageById.get(id)),
        o.now,
        account,
        members.map((x) => x.pool),
        members.map((x) => x.domain),
        members.map((x) => x.n),
        [...pools.keys()],
        [...pools.values()],
        req.batchId,
        campaign,
        linksJson,
        randomUUID(),
        before,
        after,
      ],
    );
    await client.query('COMMIT');
    if (o.onDomainsChanged) {
      // the candidates were locked with their state before the update: those whose state the usages moved
      const before = new Map<string, number>();
      for (const { t } of assignments) for (const c of t.candidates) before.set(c.id, c.state);
      const moved = changed.rows.filter((r) => before.get(r.id) !== r.state).map((r) => ({ accountId: account, id: r.id, state: r.state, declinedReason: r.declined_reason }));
      if (moved.length) o.onDomainsChanged(moved);
    }
    return answer;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

const CODE_BLOCK = 1024;

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
      const offer = await client.query<{ original_url: string; disabled: boolean; expire_method: string; expire_in_days: number | null; created_at: Date }>(
        `SELECT original_url, disabled, expire_method, expire_in_days, created_at FROM links.offer WHERE id = $1 AND account_id = $2`,
        [v.offerId, accountId],
      );
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
    const pool = await client.query<{ distribution: number }>(`SELECT distribution FROM links.domain_pool WHERE id = $1 AND account_id = $2`, [v.domainPoolId, accountId]);
    // a pool of another account (or none) has no candidates: no_valid_domain
    mode = pool.rows[0]?.distribution === Distribution.OneByOne ? Distribution.OneByOne : Distribution.SpreadEvenly;
    rows = (
      await client.query<CandidateRow>(
        `SELECT ${CANDIDATE_COLUMNS} FROM links.domain_pool_member m JOIN links.domain d ON d.id = m.domain_id
          WHERE m.pool_id = $1 AND m.account_id = $2 AND d.account_id = $2 ORDER BY m.position, d.id FOR UPDATE OF d`,
        [v.domainPoolId, accountId],
      )
    ).rows;
  } else {
    rows = (
      await client.query<CandidateRow>(
        `SELECT ${CANDIDATE_COLUMNS} FROM links.domain d
          WHERE d.account_id = $1 AND d.id = ANY ($2::bigint[]) ORDER BY array_position($2::bigint[], d.id) FOR UPDATE OF d`,
        [accountId, v.domainIds],
      )
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

/**
 * The variables a target uses, as the jsonb text of the link's `vars` (`\N` when it uses none): each one the item has,
 * in the target's order, as JSON.stringify would write the object of them.
 */
function writeVars(rows: CopyText, used: readonly string[], opens: readonly Buffer[], names: readonly Buffer[], vars: Record<string, string>): void {
  if (used.length === 0) return rows.text(null);
  let any = false;
  for (let i = 0; i < used.length; i++) {
    const v = vars[used[i]];
    if (v === undefined || !Object.hasOwn(vars, used[i])) continue;
    // the first variable written opens the object, the others follow a comma
    rows.raw(any ? names[i] : opens[i]);
    any = true;
    if (typeof v === 'string') rows.jsonString(v);
    else rows.text(JSON.stringify(v));
  }
  if (any) rows.byte(125);
  else {
    rows.byte(123);
    rows.byte(125);
  }
}

function copyInto(client: PoolClient, rows: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = client.query(
      copyFrom(`COPY links.link (domain_id, code, account_id, target_id, campaign_id, variant_id, stream_id, contact_id, message_uuid, destination, vars, expires_at, created_at) FROM STDIN`),
    );
    stream.on('finish', () => resolve());
    stream.on('error', reject);
    stream.end(rows);
  });
}
