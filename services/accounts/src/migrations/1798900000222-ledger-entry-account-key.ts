import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ledger's primary key `(account_id, id)` instead of `(id)` plus `balance_entry_account_idx (account_id, id DESC)`
 * (docs/decisions/0222): one index insert less for every entry, i.e. for every message charged (~88 B of WAL and ~4-7 µs
 * of the charge statement's backend CPU an entry, micro-bench). Every reader names the account: the ledger page
 * (`WHERE account_id = $1 ORDER BY id DESC`, the key read backwards), `apply`'s update of the entry it inserted and
 * `applyMany`'s re-numbering of a batch's running balances. `id` stays an identity column, so still unique by itself.
 *
 * The new key's index is built first (the table's writes wait for the build; reads do not), then swapped in under the
 * primary key's name. A previous release's accounts process reads an entry by `id` alone in two places (the single
 * entry path of adjustments and of events handed one by one, and a batch's re-numbering after a redelivery): with
 * this migration run, those scan the ledger until it stops (README upgrade note).
 */
export class LedgerEntryAccountKey1798900000222 implements MigrationInterface {
  name = 'LedgerEntryAccountKey1798900000222';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX balance_entry_account_id_id_key ON accounts.balance_entry (account_id, id)`);
    await q.query(`ALTER TABLE accounts.balance_entry DROP CONSTRAINT balance_entry_pkey`);
    await q.query(`ALTER INDEX accounts.balance_entry_account_id_id_key RENAME TO balance_entry_pkey`);
    await q.query(`ALTER TABLE accounts.balance_entry ADD CONSTRAINT balance_entry_pkey PRIMARY KEY USING INDEX balance_entry_pkey`);
    await q.query(`DROP INDEX accounts.balance_entry_account_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX balance_entry_account_idx ON accounts.balance_entry (account_id, id DESC)`);
    await q.query(`CREATE UNIQUE INDEX balance_entry_id_key ON accounts.balance_entry (id)`);
    await q.query(`ALTER TABLE accounts.balance_entry DROP CONSTRAINT balance_entry_pkey`);
    await q.query(`ALTER INDEX accounts.balance_entry_id_key RENAME TO balance_entry_pkey`);
    await q.query(`ALTER TABLE accounts.balance_entry ADD CONSTRAINT balance_entry_pkey PRIMARY KEY USING INDEX balance_entry_pkey`);
  }
}
