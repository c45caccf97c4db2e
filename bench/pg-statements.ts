import type { Client } from 'pg';

/** A statement as pg_stat_statements counts it (`track = all`: nested statements too, `toplevel` false). */
export interface StatementStats {
  query: string;
  calls: string;
  ms: number;
  /** Planning time (ms), when the server tracks it (`pg_stat_statements.track_planning`). */
  plan: number;
  /** WAL bytes the statement wrote. */
  wal: number;
  /** Times it was planned (a prepared statement on its generic plan is executed without planning). */
  plans: string;
  toplevel: boolean;
}

const SCHEMAS = /\b(campaigns|streams|dispatch|accounts|stats|webhooks|inbox|links|contacts|crm|integrations|auth)\./;

/**
 * pg_stat_statements since its last reset, printed per unit of work (a message, a recipient): the top-level statements
 * per unit and their execution time, by the schema they name, then the costliest statements (nested ones marked *).
 * `between` prints after the schema lines (a bench's own table figures). Returns the rows for anything else the bench
 * prints.
 */
export async function printStatementsPerUnit(
  pgc: Client,
  units: number,
  opts: { indent: string; label?: string; between?: () => Promise<void>; top?: number; width?: number },
): Promise<StatementStats[]> {
  const rows = (
    await pgc.query<StatementStats>(
      `SELECT query, calls::text, total_exec_time AS ms, total_plan_time AS plan, plans::text, wal_bytes::float8 AS wal, toplevel FROM pg_stat_statements WHERE query NOT ILIKE '%pg_stat_statements%'`,
    )
  ).rows;
  const top = rows.filter((r) => r.toplevel);
  const schemaOf = (q: string) => SCHEMAS.exec(q)?.[1] ?? (/^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|START)/i.test(q) ? 'transaction control' : 'other');
  const bySchema = new Map<string, [number, number]>();
  for (const r of top) {
    const k = schemaOf(r.query);
    const v = bySchema.get(k) ?? [0, 0];
    bySchema.set(k, [v[0] + Number(r.calls), v[1] + r.ms]);
  }
  const calls = top.reduce((s, r) => s + Number(r.calls), 0);
  const ms = top.reduce((s, r) => s + r.ms, 0);
  const plan = top.reduce((s, r) => s + r.plan, 0);
  const wal = top.reduce((s, r) => s + r.wal, 0);
  const plans = top.reduce((s, r) => s + Number(r.plans), 0);
  const { indent } = opts;
  console.log(
    `${indent}${opts.label ? `${opts.label}, ` : ''}PostgreSQL statements (pg_stat_statements, top level): ${(calls / units).toFixed(3)} per unit, ${((ms * 1000) / units).toFixed(0)} µs of execution and ${((plan * 1000) / units).toFixed(0)} µs of planning (${(plans / units).toFixed(3)} plans) per unit, ${(wal / units).toFixed(0)} WAL bytes per unit`,
  );
  for (const [k, [c, t]] of [...bySchema].sort((a, b) => b[1][1] - a[1][1])) console.log(`${indent}  ${k.padEnd(20)} ${(c / units).toFixed(3).padStart(7)} per unit ${((t * 1000) / units).toFixed(1).padStart(7)} µs`);
  await opts.between?.();
  console.log(`${indent}  costliest (calls per unit, µs of execution per unit, µs of planning per unit, plans per unit, WAL bytes per unit, nested marked *):`);
  for (const r of [...rows].sort((a, b) => b.ms + b.plan - a.ms - a.plan).slice(0, opts.top ?? 25)) {
    const per = (v: number) => ((v * 1000) / units).toFixed(1).padStart(7);
    console.log(`${indent}  ${(Number(r.calls) / units).toFixed(3).padStart(7)} ${per(r.ms)} ${per(r.plan)} ${(Number(r.plans) / units).toFixed(3).padStart(6)} ${(r.wal / units).toFixed(0).padStart(6)} ${r.toplevel ? ' ' : '*'} ${r.query.replace(/\s+/g, ' ').slice(0, opts.width ?? 160)}`);
  }
  return rows;
}
