import type { Client } from 'pg';

/**
 * Where a phase's WAL went, by relation (table, index, sequence) and for what (full-page images after a checkpoint,
 * or the records' own bytes), read with `pg_walinspect` (PostgreSQL 15+; the extension ships with the server) between
 * two LSNs of `pg_current_wal_insert_lsn()`. A record is counted for the relation of its first block; records of no
 * relation (commits, running-xacts) by their resource manager. Then the index scans of the phase for each index of
 * `schemas` the phase wrote (an index written on every message and never read is a candidate to drop).
 */
export interface WalMark {
  lsn: string;
  scans: Map<string, number>;
  commits: number;
  rollbacks: number;
}

/** The LSN and every index's scan count now (call before and after the phase). */
export async function walMark(pgc: Client): Promise<WalMark> {
  const lsn = (await pgc.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0].l;
  const rows = (await pgc.query<{ k: string; n: string }>(`SELECT schemaname || '.' || indexrelname AS k, idx_scan::text AS n FROM pg_stat_user_indexes`)).rows;
  const [x] = (await pgc.query<{ c: string; r: string }>(`SELECT xact_commit::text AS c, xact_rollback::text AS r FROM pg_stat_database WHERE datname = current_database()`)).rows;
  return { lsn, scans: new Map(rows.map((r) => [r.k, Number(r.n)])), commits: Number(x.c), rollbacks: Number(x.r) };
}

export async function printWalByRelation(pgc: Client, from: WalMark, units: number, opts: { indent?: string; top?: number } = {}): Promise<void> {
  const indent = opts.indent ?? '';
  await pgc.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  // the statistics collector is asynchronous: let it see the phase's last scans
  await pgc.query('SELECT pg_stat_clear_snapshot()');
  const to = await walMark(pgc);
  const rows = (
    await pgc.query<{ what: string; records: string; bytes: string; fpi: string; fpis: string; kinds: string }>(
      `WITH r AS (
         SELECT resource_manager AS rm, record_type, record_length, fpi_length, regexp_match(block_ref, 'rel (\\d+)/(\\d+)/(\\d+)') AS rel
           FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
       ), n AS (
         SELECT r.*, CASE WHEN r.rel IS NULL THEN NULL
                     ELSE pg_filenode_relation(CASE WHEN r.rel[1]::oid = (SELECT oid FROM pg_tablespace WHERE spcname = 'pg_default') THEN 0 ELSE r.rel[1]::oid END, r.rel[3]::oid) END AS relid
           FROM r
       )
       SELECT COALESCE(relid::regclass::text, CASE WHEN rel IS NULL THEN '(' || rm || ')' ELSE '(relation ' || rel[3] || ')' END) AS what,
              count(*)::text AS records, sum(record_length)::text AS bytes, sum(fpi_length)::text AS fpi, count(*) FILTER (WHERE fpi_length > 0)::text AS fpis,
              string_agg(DISTINCT rm || '/' || record_type, ' ') AS kinds
         FROM n GROUP BY 1 ORDER BY sum(record_length) DESC`,
      [from.lsn, to.lsn],
    )
  ).rows;
  const total = rows.reduce((s, r) => s + Number(r.bytes), 0);
  const fpi = rows.reduce((s, r) => s + Number(r.fpi), 0);
  console.log(`${indent}WAL by relation (pg_walinspect, ${from.lsn} to ${to.lsn}): ${(total / units).toFixed(0)} bytes per unit, of which full-page images ${(fpi / units).toFixed(0)}`);
  console.log(`${indent}  transactions in the phase: ${to.commits - from.commits} committed, ${to.rollbacks - from.rollbacks} rolled back`);
  console.log(`${indent}  bytes/unit  fpi/unit  records/unit  fpi records  relation (record kinds)`);
  for (const r of rows.filter((x, i) => i < (opts.top ?? 30) || x.what.startsWith('('))) {
    console.log(
      `${indent}  ${(Number(r.bytes) / units).toFixed(0).padStart(10)} ${(Number(r.fpi) / units).toFixed(0).padStart(9)} ${(Number(r.records) / units).toFixed(3).padStart(13)} ${r.fpis.padStart(12)}  ${r.what} (${r.kinds.slice(0, 120)})`,
    );
  }
  const scanned = [...to.scans].map(([k, n]) => [k, n - (from.scans.get(k) ?? 0)] as const).filter(([, d]) => d > 0);
  console.log(`${indent}  index scans in the phase (per unit): ${scanned.sort((a, b) => b[1] - a[1]).map(([k, d]) => `${k} ${(d / units).toFixed(3)}`).join(', ')}`);
}
