import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Personal links as ranges (docs/decisions/0092): a batch variable's links are the first numbers of one code block (a
 * batch has at most 1000 items, a block 1024 numbers), stored as rows of `links.link_range` of up to 16 links each,
 * keyed by `page` = sequence number >> 4, with the recipients in batch order as one small bytea (a directory of 16-bit
 * offsets, then one small JSON array a recipient; `services/links/src/mint/link-range.ts`). A row stays inline and
 * uncompressed up to 8 kB (`toast_tuple_target`, storage EXTERNAL), so a recipient is read from the row the key found,
 * with no TOAST look-up and no decompression. No row per link:
 * minting writes 64 rows (and index entries, in key order) a thousand links instead of a thousand.
 *
 * `links.link_of(domain, code, seq)` is the one resolution of a code to its link, with the row type of `links.link`:
 * the redirect's look-up and the click group statement both read it. `seq` is the code's sequence number (the inverse
 * permutation, in Node: PostgreSQL has no key). A code minted before this migration is still a `links.link` row (its
 * number is below the sequence's next block at migration time, written into the function; -1 without a key); a
 * range's code resolves only under the very domain it was minted for (its position in `domain_ids`), so another
 * account's code never resolves under a tenant's domain. A SQL function of one statement: the planner inlines it; the
 * `OFFSET 0` fences keep the recipient's slice and its JSON parsed once a row (pulled up, each output column would
 * repeat them).
 *
 * Stored answers (`link_batch`) keep the text sent (`links_text`) rather than parsing it into jsonb.
 */
export class LinkRanges1796700000008 implements MigrationInterface {
  name = 'LinkRanges1796700000008';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE links.link_range (
        page bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        batch_id text NOT NULL,
        variable smallint NOT NULL,
        target_id bigint NOT NULL,
        campaign_id bigint,
        stream_id bigint,
        count smallint NOT NULL CHECK (count BETWEEN 1 AND 16),
        domain_ids bigint[] NOT NULL,
        expires_at timestamptz,
        created_at timestamptz NOT NULL,
        recipients bytea NOT NULL
      ) WITH (toast_tuple_target = 8160)`);
    // a row is compressed or moved out of line only beyond 8 kB (not 2 kB): a row of 16 recipients is read as it lies
    // on its page, never decompressed or fetched from TOAST for one recipient
    await q.query(`ALTER TABLE links.link_range ALTER COLUMN recipients SET STORAGE EXTERNAL`);
    await q.query(`ALTER TABLE links.link_batch ALTER COLUMN links DROP NOT NULL`);
    await q.query(`ALTER TABLE links.link_batch ADD COLUMN links_text text`);
    await q.query(`ALTER TABLE links.link_batch ALTER COLUMN links_text SET STORAGE EXTERNAL`);
    await q.query(`ALTER TABLE links.link_batch ADD CHECK ((links IS NULL) <> (links_text IS NULL))`);
    // every number minted from now on is at or past the sequence's next block: a code below it is a row of its own
    // (minted before ranges), one at or past it a range's, so each look-up probes one table, never both
    const [{ first }] = (await q.query(`SELECT ((last_value + CASE WHEN is_called THEN 1 ELSE 0 END) * 1024)::text AS first FROM links.code_block_seq`)) as Array<{ first: string }>;
    const boundary = String(BigInt(first));
    await q.query(`
      CREATE FUNCTION links.link_of(p_domain bigint, p_code bigint, p_seq bigint) RETURNS SETOF links.link
      LANGUAGE sql STABLE PARALLEL SAFE AS $$
        SELECT l.* FROM links.link l WHERE p_seq < ${boundary} AND l.domain_id = p_domain AND l.code = p_code
        UNION ALL
        SELECT p_domain, p_code, r.account_id, r.target_id, r.campaign_id, (x.j ->> 3)::bigint, r.stream_id, (x.j ->> 2)::bigint,
               (x.j ->> 1)::uuid, x.j ->> 4, nullif(x.j -> 5, 'null'::jsonb), r.expires_at, r.created_at
          FROM links.link_range r
          CROSS JOIN LATERAL (
            SELECT convert_from(substring(r.recipients FROM o.s + 1 FOR o.e - o.s), 'UTF8')::jsonb AS j
              FROM (SELECT (get_byte(r.recipients, (p_seq & 15)::int * 2) << 8) | get_byte(r.recipients, (p_seq & 15)::int * 2 + 1) AS s,
                           (get_byte(r.recipients, (p_seq & 15)::int * 2 + 2) << 8) | get_byte(r.recipients, (p_seq & 15)::int * 2 + 3) AS e OFFSET 0) o
             OFFSET 0) x
         WHERE p_seq >= ${boundary} AND r.page = p_seq >> 4 AND (p_seq & 15) < r.count AND r.domain_ids[(x.j ->> 0)::int + 1] = p_domain
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION links.link_of(bigint, bigint, bigint)`);
    await q.query(`DROP TABLE links.link_range`);
    await q.query(`DELETE FROM links.link_batch WHERE links IS NULL`);
    await q.query(`ALTER TABLE links.link_batch DROP COLUMN links_text`);
    await q.query(`ALTER TABLE links.link_batch ALTER COLUMN links SET NOT NULL`);
  }
}
