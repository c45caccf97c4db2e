import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reconciliation of charges with streams (docs/decisions/0114).
 *
 * - `charge_reconcile`: per account, how far (`swept_to`) streams was asked for the sums of its windows of acceptance
 *   time, and the question outstanding (`request_id`, `asked_at`).
 * - `charge_reconcile_window`: per account and window with messages, streams' last sums (`count`, `price_micros`,
 *   `refunded_micros`), what the last listing of the window verified against the ledger (`verified_*`: null until
 *   the window was listed once), a listing in progress (`state` `listing`, its keyset position and what its pages
 *   saw so far), what reconciliation booked in it, and when it is summed again (`next_check_at`).
 */
export class ChargeReconcile1798100000000 implements MigrationInterface {
  name = 'ChargeReconcile1798100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts.charge_reconcile (
        account_id bigint PRIMARY KEY REFERENCES accounts.customer (id),
        swept_to timestamptz NOT NULL,
        request_id uuid,
        asked_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE accounts.charge_reconcile_window (
        account_id bigint NOT NULL REFERENCES accounts.customer (id),
        window_start timestamptz NOT NULL,
        window_ms integer NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'listing', 'reconciled')),
        count integer NOT NULL,
        price_micros bigint NOT NULL,
        refunded_micros bigint NOT NULL,
        verified_count integer,
        verified_price_micros bigint,
        verified_refunded_micros bigint,
        seen_count integer NOT NULL DEFAULT 0,
        seen_price_micros bigint NOT NULL DEFAULT 0,
        seen_refunded_micros bigint NOT NULL DEFAULT 0,
        after_at text,
        after_uuid uuid,
        request_id uuid,
        asked_at timestamptz,
        charges_booked integer NOT NULL DEFAULT 0,
        refunds_booked integer NOT NULL DEFAULT 0,
        booked_micros bigint NOT NULL DEFAULT 0,
        checked_at timestamptz NOT NULL,
        next_check_at timestamptz,
        reconciled_at timestamptz,
        PRIMARY KEY (account_id, window_start)
      )`);
    // what a pass takes: windows to list (or whose listing question was lost), and windows due to be summed again
    await q.query(`CREATE INDEX charge_reconcile_window_open_idx ON accounts.charge_reconcile_window (window_start) WHERE state <> 'reconciled'`);
    await q.query(`CREATE INDEX charge_reconcile_window_due_idx ON accounts.charge_reconcile_window (next_check_at) WHERE state = 'reconciled' AND next_check_at IS NOT NULL`);
    await q.query(`CREATE INDEX charge_reconcile_window_request_idx ON accounts.charge_reconcile_window (account_id, request_id) WHERE request_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE accounts.charge_reconcile_window`);
    await q.query(`DROP TABLE accounts.charge_reconcile`);
  }
}
