import { Pool } from 'pg';

/**
 * A redirect process's connection pool. Its sessions plan the prepared look-up and click group statements once,
 * generically (`plan_cache_mode=force_generic_plan`): under PostgreSQL's default a redirect whose first look-ups are
 * small batches (a quiet start) keeps re-planning every later look-up, 354–412 against 92–133 µs a 1-code call and
 * 15–18 against 9–11 µs a link at 42 codes (docs/decisions/0171); the generic plans cost no more under load
 * (`docs/benchmarks.md`, stop 29).
 */
export function redirectPool(connectionString: string, max: number, applicationName: string, log: (line: string) => void): Pool {
  const pool = new Pool({ connectionString, max, application_name: applicationName, options: '-c plan_cache_mode=force_generic_plan' });
  pool.on('error', (e) => log(`idle connection: ${e.message}`));
  return pool;
}
