import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Personal links as range rows with fixed-width recipient records (docs/decisions/0105, after 0092 and 0098). A batch
 * variable's links are the first numbers of one code block (a batch has at most 1000 items, a block 1024 numbers),
 * stored as rows of `links.link_range` of up to 16 links each, keyed by `page` = sequence number >> 4. The recipients
 * are PostgreSQL arrays, one a field, element k the k-th number of the page (`services/links/src/mint/link-range.ts`):
 * `domains`, `variants`, `contacts` (bigint) and `messages` (uuid) have fixed-width elements, so element k is read at
 * an offset computed from k; `destinations` and `vars` (JSON text of the variables the target uses; NULL when it uses
 * none) are walked over at most 15 elements. No JSON is parsed and no bytes decoded to find a recipient. A row stays
 * inline and uncompressed up to 8 kB (`toast_tuple_target`, storage EXTERNAL): a recipient is read from the heap page
 * its key found, with no TOAST look-up and no decompression. Minting writes 64 rows (and index entries, in key order) a
 * thousand links instead of a thousand rows with random keys.
 *
 * `links.link_of(domain, code, seq)` is the one resolution of a code to its link, with the columns of `links.link`
 * except `vars`, the JSON text minted (docs/decisions/0109: no jsonb decoded a look-up): the redirect's look-up and the
 * click group statement both read it. `seq` is the code's sequence number (the inverse permutation, in Node:
 * PostgreSQL has no key). A code minted before this migration is still a `links.link` row (its number is below the
 * sequence's next block at migration time, written into the function; -1 without a key); when no link was minted
 * before (a new deployment), the function is the range probe alone. A range's code resolves only under the very domain
 * it was minted for (`domains[k]`), so another account's code, or a code of the account under another of its domains,
 * never resolves. A SQL function of one statement, not strict: the planner inlines it, so a look-up is one index probe
 * (or one gated probe a branch) and an unused column (`vars` in the click statement) is never computed.
 *
 * Stored answers (`link_batch`) keep the text sent (`links_text`) rather than parsing it into jsonb.
 */
export class LinkRanges1797900000005 implements MigrationInterface {
  name = 'LinkRanges1797900000005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE links.link_range (
        page bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        target_id bigint NOT NULL,
        campaign_id bigint,
        stream_id bigint,
        expires_at timestamptz,
        created_at timestamptz NOT NULL,
        domains bigint[] NOT NULL CHECK (cardinality(domains) BETWEEN 1 AND 16),
        variants bigint[] NOT NULL,
        contacts bigint[] NOT NULL,
        messages uuid[] NOT NULL,
        destinations text[] NOT NULL,
        vars text[]
      ) WITH (toast_tuple_target = 8160)`);
    // a row is compressed or moved out of line only beyond 8 kB (not 2 kB): a row of 16 recipients is read as it lies
    // on its page, never decompressed or fetched from TOAST for one recipient
    for (const c of ['domains', 'variants', 'contacts', 'messages', 'destinations', 'vars']) await q.query(`ALTER TABLE links.link_range ALTER COLUMN ${c} SET STORAGE EXTERNAL`);
    await q.query(`ALTER TABLE links.link_batch ALTER COLUMN links DROP NOT NULL`);
    await q.query(`ALTER TABLE links.link_batch ADD COLUMN links_text text`);
    await q.query(`ALTER TABLE links.link_batch ALTER COLUMN links_text SET STORAGE EXTERNAL`);
    await q.query(`ALTER TABLE links.link_batch ADD CHECK ((links IS NULL) <> (links_text IS NULL))`);
    // every number minted from now on is at or past the sequence's next block: a code below it is a row of its own
    // (minted before ranges), one at or past it a range's, so each look-up probes one table, never both. When no link
    // was minted before ranges (a new deployment), the function has no old-links branch at all (docs/decisions/0109):
    // one index probe and no Append over two gated branches
    const [{ first, old }] = (await q.query(`SELECT ((last_value + CASE WHEN is_called THEN 1 ELSE 0 END) * 1024)::text AS first, EXISTS (SELECT 1 FROM links.link) AS old FROM links.code_block_seq`)) as Array<{ first: string; old: boolean }>;
    await q.query(linkOfSql(old ? String(BigInt(first)) : null));
  }

  /**
   * Back to a row a link: range links cannot become `links.link` rows here (a row is keyed by its code, and the codes'
   * key is not in the database), so they are dropped with their stored answers, as 0092 did; a redelivered batch mints
   * again. Links minted before ranges are untouched.
   */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION links.link_of(bigint, bigint, bigint)`);
    await q.query(`DROP TABLE links.link_range`);
    await q.query(`DELETE FROM links.link_batch WHERE links IS NULL`);
    await q.query(`ALTER TABLE links.link_batch DROP COLUMN links_text`);
    await q.query(`ALTER TABLE links.link_batch ALTER COLUMN links SET NOT NULL`);
  }
}

/**
 * `links.link_of(domain, code, seq)`: the link's fields with its variables as the JSON text it was minted with (`vars
 * text`: the redirect parses it once in Node, PostgreSQL decodes no jsonb per look-up; the click statement never reads
 * it). `boundary` is the first sequence number of ranges when links were minted before them, or null when there were
 * none: then the function is the range row's probe alone.
 */
export function linkOfSql(boundary: string | null): string {
  const k = '(p_seq & 15)::int + 1';
  const range = `SELECT p_domain, p_code, r.account_id, r.target_id, r.campaign_id, r.variants[${k}], r.stream_id, r.contacts[${k}], r.messages[${k}],
               r.destinations[${k}], r.vars[${k}], r.expires_at, r.created_at
          FROM links.link_range r
         WHERE ${boundary === null ? '' : `p_seq >= ${boundary} AND `}r.page = p_seq >> 4 AND r.domains[${k}] = p_domain`;
  const old = `SELECT l.domain_id, l.code, l.account_id, l.target_id, l.campaign_id, l.variant_id, l.stream_id, l.contact_id, l.message_uuid,
               l.destination, l.vars::text, l.expires_at, l.created_at
          FROM links.link l WHERE p_seq < ${boundary} AND l.domain_id = p_domain AND l.code = p_code
        UNION ALL
        `;
  return `
      CREATE FUNCTION links.link_of(p_domain bigint, p_code bigint, p_seq bigint)
      RETURNS TABLE (domain_id bigint, code bigint, account_id bigint, target_id bigint, campaign_id bigint, variant_id bigint, stream_id bigint, contact_id bigint,
                     message_uuid uuid, destination text, vars text, expires_at timestamptz, created_at timestamptz)
      LANGUAGE sql STABLE PARALLEL SAFE AS $$
        ${boundary === null ? '' : old}${range}
      $$`;
}
