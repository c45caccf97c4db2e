/**
 * Accounts' charge statement alone (docs/decisions/0222): `LedgerRepository.applyMany`'s statement, 1,000 charges of
 * one account a call (as the messaging consumer books a campaign's charges), on an embedded PostgreSQL with the
 * accounts migrations, against variants of the ledger table. Prints per charge: the backend's CPU (/proc), the call's
 * wall time, the WAL (WALREL=1: by relation and record kind, pg_walinspect) and the table's and indexes' size on disk.
 *
 *   node dist/bench/accounts-charge-rows.js [charges=40000] [variants=today,merged,today,merged]
 *
 * Variants:
 * - today: the table before 1798900000222 (primary key `(id)`, unique `(account_id, kind, source_id)`, `(account_id, id DESC)`);
 * - merged: as migrated since 0222, the primary key `(account_id, id)` instead of `(id)` and the account index;
 * - batch: the bound of one ledger row a batch (one insert of the batch's sum, no per-charge row): what a batch row
 *   would cost if the per-message detail lived elsewhere.
 * Each variant starts from a fresh table (the same number of earlier rows is not kept: the table grows from empty).
 */
import * as fs from 'node:fs';
import * as crypto from 'node:crypto';
import { Client } from 'pg';
import { openServiceDataSource, pgArray } from '@switchboard/platform';
import { ACCOUNTS_MIGRATIONS } from '../services/accounts/src/migrations';
import { APPLY_MANY_SQL } from '../services/accounts/src/repositories/ledger.repository';
import { benchDatabase } from './bench-database';
import { printWalByRelation, walMark } from './pg-wal';

const N = Number(process.argv[2] ?? 40000);
const VARIANTS = (process.argv[3] ?? 'today,merged,today,merged').split(',');
const B = 1000;

const backendMs = (pid: number): number => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

// the statement of services/accounts/src/repositories/ledger.repository.ts (applyMany), as it is
const STATEMENT = APPLY_MANY_SQL;

async function main(): Promise<void> {
  const db = await benchDatabase('sb-chargerows-');
  try {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const pid = (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0].p;
    for (const variant of VARIANTS) {
      await c.query('DROP SCHEMA IF EXISTS accounts CASCADE');
      const ds = await openServiceDataSource({ name: 'accounts', url: db.url, schema: 'accounts', entities: [], migrations: ACCOUNTS_MIGRATIONS, migrationsRun: true });
      await ds.destroy();
      await c.query(`INSERT INTO accounts.customer (id, name, currency, tps, balance_micros) VALUES (7, 'bench', 'EUR', 100, 1000000000000)`);
      if (variant === 'today') {
        // the table before 1798900000222 (its down): primary key (id) and the account index
        await c.query(`CREATE INDEX balance_entry_account_idx ON accounts.balance_entry (account_id, id DESC)`);
        await c.query(`ALTER TABLE accounts.balance_entry DROP CONSTRAINT balance_entry_pkey, ADD PRIMARY KEY (id)`);
      }
      const ids = Array.from({ length: N }, () => crypto.randomUUID());
      await c.query('CHECKPOINT');
      const from = await walMark(c);
      const b0 = backendMs(pid);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < N; i += B) {
        const u = ids.slice(i, i + B);
        const k = u.length;
        await c.query('BEGIN');
        if (variant === 'batch') {
          await c.query(
            `WITH l AS MATERIALIZED (SELECT id, balance_micros FROM accounts.customer WHERE id = 7 FOR NO KEY UPDATE),
                  ins AS (INSERT INTO accounts.balance_entry (account_id, kind, source_id, amount_micros, currency, balance_after_micros, reason, created_by)
                          SELECT 7, 'charge', $1, $2::bigint, 'EUR', l.balance_micros + $2::bigint, 'messages charged', NULL FROM l
                          ON CONFLICT (account_id, kind, source_id) DO NOTHING RETURNING account_id, amount_micros)
             UPDATE accounts.customer c SET balance_micros = c.balance_micros + ins.amount_micros, updated_at = now() FROM ins WHERE c.id = ins.account_id`,
            [u[0], String(-50000 * k)],
          );
        } else {
          await c.query(STATEMENT, [
            pgArray(Array<string>(k).fill('7')),
            pgArray(Array<string>(k).fill('charge')),
            pgArray(u),
            pgArray(Array<string>(k).fill('-50000')),
            pgArray(Array<string>(k).fill('EUR')),
            pgArray(Array<string>(k).fill('message charged')),
            pgArray(Array<string | null>(k).fill(null)),
            pgArray(['7']),
          ]);
        }
        await c.query('COMMIT');
      }
      const wall = Number(process.hrtime.bigint() - t0) / 1e3 / N;
      const cpu = ((backendMs(pid) - b0) * 1000) / N;
      const [bal] = (await c.query<{ b: string; n: string }>(`SELECT balance_micros::text AS b, (SELECT count(*) FROM accounts.balance_entry)::text AS n FROM accounts.customer WHERE id = 7`)).rows;
      console.log(`${variant.padEnd(8)} backend CPU ${cpu.toFixed(1).padStart(5)} µs a charge, wall ${wall.toFixed(1).padStart(5)} µs; balance ${bal.b}, ${bal.n} entries; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
      const sizes = (await c.query<{ name: string; b: string }>(
        `SELECT c.relname AS name, pg_relation_size(c.oid)::text AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE n.nspname = 'accounts' AND (c.relname = 'balance_entry' OR c.relname LIKE 'balance_entry\\_%') AND c.relkind IN ('r', 'i') ORDER BY c.relname`,
      )).rows;
      console.log(`         on disk a charge: ${sizes.map((r) => `${r.name} ${(Number(r.b) / N).toFixed(0)} B`).join(', ')}`);
      if (process.env.WALREL === '1') await printWalByRelation(c, from, N, { indent: '    ', top: 8 });
      else {
        const to = await walMark(c);
        const [w] = (await c.query<{ d: string }>(`SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS d`, [to.lsn, from.lsn])).rows;
        console.log(`         WAL ${(Number(w.d) / N).toFixed(0)} B a charge`);
      }
    }
    await c.end();
  } finally {
    await db.stop();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
