import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `accounts.balance_entry` without its foreign key to `accounts.customer` (docs/decisions/0115). The key cost a
 * `SELECT 1 ... FOR KEY SHARE` of the account's row for every entry inserted (12 µs of execution a charge on Kafka),
 * and proved nothing the ledger's writers do not prove already: every entry is inserted in the transaction that locks
 * its account's row (`applyMany` joins its entries to the accounts it locked, so an entry of a missing account is
 * never inserted and the batch fails; `apply` moves the account's balance after its insert and throws, rolling the
 * insert back, when there is no such account). No code deletes an account's row: deleting an account sets its status.
 */
export class LedgerEntryNoFk1798000000115 implements MigrationInterface {
  name = 'LedgerEntryNoFk1798000000115';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts.balance_entry DROP CONSTRAINT IF EXISTS balance_entry_account_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    // NOT VALID, then VALIDATE: the check of existing rows takes no lock that stops the ledger's writers
    await q.query(`ALTER TABLE accounts.balance_entry ADD CONSTRAINT balance_entry_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts.customer (id) NOT VALID`);
    await q.query(`ALTER TABLE accounts.balance_entry VALIDATE CONSTRAINT balance_entry_account_id_fkey`);
  }
}
