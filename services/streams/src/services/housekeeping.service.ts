import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import { SendDatabase } from './send-database';

const EVERY_MS = 60_000;

/**
 * Removes what has expired, in processes with the scheduler role: duplicate fingerprints past their window, idempotency
 * keys past their TTL, OTP codes a day past expiry, daily usage older than a week, outbox rows published a day ago.
 */
@Injectable()
export class HousekeepingService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('StreamsHousekeeping');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly db: SendDatabase,
    private readonly clock: Clock,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers) return;
    this.timer = setInterval(() => {
      this.running ??= this.purge()
        .catch((e: unknown) => this.log.warn(`purge failed: ${(e as Error).message}`))
        .finally(() => (this.running = undefined));
    }, EVERY_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  async purge(): Promise<void> {
    const now = this.clock.now();
    const day = 86_400_000;
    await this.db.query(`DELETE FROM streams.send_fingerprint WHERE expires_at <= $1`, [now]);
    await this.db.query(`DELETE FROM streams.idempotency_key WHERE created_at <= $1`, [new Date(now.getTime() - this.o.idempotencyTtlSeconds * 1000)]);
    await this.db.query(`DELETE FROM streams.otp WHERE expires_at <= $1 AND (last_failure_at IS NULL OR last_failure_at <= $1)`, [new Date(now.getTime() - day)]);
    await this.db.query(`DELETE FROM streams.daily_usage WHERE day < $1::date`, [new Date(now.getTime() - 7 * day).toISOString().slice(0, 10)]);
    await this.db.query(`DELETE FROM streams.outbox WHERE published_at IS NOT NULL AND published_at <= $1`, [new Date(now.getTime() - day)]);
  }
}
