import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDeadLetterTable, dropDeadLetterTable } from '@switchboard/platform';

/**
 * The stats schema (docs/decisions/0028-statistics.md): what it knows of accounts and streams, the latest state of
 * each message (so late, duplicated and reordered events count a message once, in its furthest status), and the
 * rollups per account, stream, sender, country, status, currency and time bucket: hours (instants, cut at the
 * account's local hour boundaries) and days (the account's local dates).
 */
export class StatsInit1796500000000 implements MigrationInterface {
  name = 'StatsInit1796500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE stats.processed_events (
        consumer text NOT NULL,
        event_id uuid NOT NULL,
        processed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (consumer, event_id)
      )`);
    await q.query(`
      CREATE TABLE stats.account (
        account_id bigint PRIMARY KEY,
        name text NOT NULL DEFAULT '',
        currency text NOT NULL DEFAULT 'EUR',
        time_zone text NOT NULL DEFAULT 'UTC',
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE stats.stream (
        stream_id bigint PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_uid uuid,
        name text NOT NULL DEFAULT '',
        stream_type integer NOT NULL DEFAULT 0,
        deleted boolean NOT NULL DEFAULT false
      )`);
    await q.query(`CREATE INDEX stream_account_idx ON stats.stream (account_id)`);
    // accepted_at NULL: a status or refund came before the message's acceptance; it is counted once that arrives
    await q.query(`
      CREATE TABLE stats.message_state (
        message_uuid uuid PRIMARY KEY,
        account_id bigint NOT NULL,
        stream_id bigint,
        sender text NOT NULL DEFAULT '',
        iso2 text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT '',
        rank smallint NOT NULL DEFAULT -1,
        accepted_at timestamptz,
        hour_bucket timestamptz,
        day_bucket date,
        segments integer NOT NULL DEFAULT 0,
        price_micros bigint NOT NULL DEFAULT 0,
        refunded_micros bigint NOT NULL DEFAULT 0,
        currency text NOT NULL DEFAULT ''
      )`);
    for (const [table, bucket] of [
      ['rollup_hour', 'timestamptz'],
      ['rollup_day', 'date'],
    ] as const) {
      await q.query(`
        CREATE TABLE stats.${table} (
          account_id bigint NOT NULL,
          bucket ${bucket} NOT NULL,
          stream_id bigint NOT NULL,
          sender text NOT NULL,
          iso2 text NOT NULL,
          status text NOT NULL,
          currency text NOT NULL,
          messages bigint NOT NULL DEFAULT 0,
          parts bigint NOT NULL DEFAULT 0,
          cost_micros bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (account_id, bucket, stream_id, sender, iso2, status, currency)
        )`);
    }
    await createDeadLetterTable(q, 'stats');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropDeadLetterTable(q, 'stats');
    await q.query(`DROP TABLE IF EXISTS stats.rollup_day, stats.rollup_hour, stats.message_state, stats.stream, stats.account, stats.processed_events`);
  }
}
