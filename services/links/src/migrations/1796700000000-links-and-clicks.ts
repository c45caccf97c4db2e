import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The redirect role's tables (docs/decisions/0034-links-redirect-and-clicks.md): personal links minted in bulk (COPY)
 * for campaign batches, the batches' answers (asking twice answers the same links), the clicks, each recipient's first
 * click, the click rollups per campaign, variant and domain, and the opt-outs made through links.
 */
export class LinksAndClicks1796700000000 implements MigrationInterface {
  name = 'LinksAndClicks1796700000000';

  async up(q: QueryRunner): Promise<void> {
    // the codes' sequence: numbers taken in blocks (UPDATE ... RETURNING), put through the keyed permutation
    await q.query(`CREATE TABLE links.code_counter (id smallint PRIMARY KEY CHECK (id = 1), next_seq bigint NOT NULL CHECK (next_seq BETWEEN 0 AND 3521614606208))`);
    await q.query(`INSERT INTO links.code_counter (id, next_seq) VALUES (1, 0)`);

    // what a batch's variable points at: an offer (its URL read at redirect time) or a URL; kind 0 short URL, 1 opt-out
    await q.query(`
      CREATE TABLE links.link_target (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id bigint NOT NULL,
        campaign_id bigint,
        batch_id text NOT NULL,
        variable text NOT NULL,
        kind smallint NOT NULL CHECK (kind IN (0, 1)),
        offer_id bigint,
        url text,
        created_at timestamptz NOT NULL,
        CHECK (kind = 1 OR (offer_id IS NULL) <> (url IS NULL))
      )`);

    // one row per recipient and link variable; the code is the permuted sequence number (7 base62 characters)
    await q.query(`
      CREATE TABLE links.link (
        domain_id bigint NOT NULL,
        code bigint NOT NULL,
        account_id bigint NOT NULL,
        target_id bigint NOT NULL,
        campaign_id bigint,
        variant_id bigint,
        stream_id bigint,
        contact_id bigint,
        message_uuid uuid,
        destination text,
        vars jsonb,
        expires_at timestamptz,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (domain_id, code)
      )`);

    // a batch's answer, so a repeated request answers the same links without minting again
    await q.query(`
      CREATE TABLE links.link_batch (
        account_id bigint NOT NULL,
        batch_id text NOT NULL,
        campaign_id bigint NOT NULL,
        outcome text NOT NULL,
        links jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, batch_id)
      )`);

    // every request on a link, previews and prefetches too (preview = true, not counted); append only, no index
    // beyond the BRIN on time: the redirect writes it at tens of thousands of rows a second
    await q.query(`
      CREATE TABLE links.click (
        click_id uuid NOT NULL,
        clicked_at timestamptz NOT NULL,
        account_id bigint NOT NULL,
        domain_id bigint NOT NULL,
        code bigint NOT NULL,
        campaign_id bigint,
        variant_id bigint,
        message_uuid uuid,
        ua_class smallint NOT NULL,
        preview boolean NOT NULL,
        first boolean NOT NULL,
        ip text,
        user_agent text
      )`);
    await q.query(`CREATE INDEX click_time_brin ON links.click USING brin (clicked_at)`);

    // each recipient's first counted click (per campaign message), and how many they made
    await q.query(`
      CREATE TABLE links.recipient_click (
        account_id bigint NOT NULL,
        message_uuid uuid NOT NULL,
        campaign_id bigint,
        variant_id bigint,
        domain_id bigint NOT NULL,
        first_click_id uuid NOT NULL,
        first_clicked_at timestamptz NOT NULL,
        clicks bigint NOT NULL,
        PRIMARY KEY (account_id, message_uuid)
      )`);

    // rollups: per account, campaign (0: none), variant (0: none) and domain; clickAvgTime = first_click_delay_ms / first_clicks
    await q.query(`
      CREATE TABLE links.click_stats (
        account_id bigint NOT NULL,
        campaign_id bigint NOT NULL,
        variant_id bigint NOT NULL,
        domain_id bigint NOT NULL,
        clicks bigint NOT NULL DEFAULT 0,
        first_clicks bigint NOT NULL DEFAULT 0,
        first_click_delay_ms bigint NOT NULL DEFAULT 0,
        preview_clicks bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, campaign_id, variant_id, domain_id)
      )`);

    await q.query(`
      CREATE TABLE links.opt_out (
        domain_id bigint NOT NULL,
        code bigint NOT NULL,
        account_id bigint NOT NULL,
        contact_id bigint,
        destination text,
        campaign_id bigint,
        message_uuid uuid,
        opted_out_at timestamptz NOT NULL,
        PRIMARY KEY (domain_id, code)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['opt_out', 'click_stats', 'recipient_click', 'click', 'link_batch', 'link', 'link_target', 'code_counter']) await q.query(`DROP TABLE links.${t}`);
  }
}
