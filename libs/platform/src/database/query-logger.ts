import { Logger as NestLogger } from '@nestjs/common';
import type { Logger as TypeOrmLogger } from 'typeorm';

/** Longest piece of SQL a log line quotes. */
const MAX_SQL = 500;

const clip = (sql: string): string => {
  const flat = sql.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_SQL ? `${flat.slice(0, MAX_SQL)}... (${flat.length} characters)` : flat;
};

const describe = (parameters: unknown[] | undefined): string => {
  if (!parameters?.length) return 'no parameters';
  let bytes = 0;
  for (const p of parameters) bytes += typeof p === 'string' ? Buffer.byteLength(p) : Buffer.byteLength(JSON.stringify(p) ?? '');
  return `${parameters.length} parameters, ${bytes} bytes`;
};

/**
 * TypeORM's log lines, bounded: a failed statement is logged with its SQL clipped and its parameters counted, never
 * quoted. TypeORM's own loggers print every parameter of a failed query: during a database outage every failed write
 * of a packed outbox row (thousands of events, megabytes) went to the log, over and over; and parameters may hold
 * personal data or sealed secrets.
 */
export class BoundedQueryLogger implements TypeOrmLogger {
  private readonly out: Pick<NestLogger, 'log' | 'warn' | 'error'>;

  constructor(
    private readonly verbose = false,
    log?: Pick<NestLogger, 'log' | 'warn' | 'error'>,
  ) {
    this.out = log ?? new NestLogger('TypeORM');
  }

  logQuery(): void {
    // statements that succeed are not logged
  }

  logQueryError(error: string | Error, query: string, parameters?: unknown[]): void {
    const message = error instanceof Error ? error.message : error;
    this.out.error(`query failed: ${message} | ${clip(query)} | ${describe(parameters)}`);
  }

  logQuerySlow(time: number, query: string, parameters?: unknown[]): void {
    if (this.verbose) this.out.warn(`slow query (${time} ms): ${clip(query)} | ${describe(parameters)}`);
  }

  logSchemaBuild(message: string): void {
    if (this.verbose) this.out.log(message);
  }

  logMigration(message: string): void {
    if (this.verbose) this.out.log(message);
  }

  log(level: 'log' | 'info' | 'warn', message: unknown): void {
    if (level === 'warn') this.out.warn(String(message));
    else if (this.verbose) this.out.log(String(message));
  }
}
