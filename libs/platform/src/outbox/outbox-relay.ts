import { createHash } from 'node:crypto';
import { Logger, type LoggerService } from '@nestjs/common';
import type { EventEnvelope } from '@switchboard/contracts';
import type { DataSource } from 'typeorm';
import { describeError } from '../bus/delivery';
import type { EventBus, OutgoingEvent } from '../bus/event-bus';
import { quoteSchema } from './sql';

export interface OutboxRelayOptions {
  schema: string;
  dataSource: DataSource;
  bus: EventBus;
  /** How often to look for rows when nobody kicks. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Rows per publish. Default 100. */
  batchSize?: number;
  logger?: Pick<LoggerService, 'error'>;
}

interface OutboxRow {
  id: string;
  topic: string;
  payload: EventEnvelope;
}

/**
 * Publishes a schema's outbox rows and marks them published, oldest first.
 *
 * There is no "last published id" cursor: ids are taken when a transaction inserts, not when it commits, so a
 * transaction can commit row 1 after row 2 was published. Each pass takes the unpublished rows as they are now.
 * A crash between publish and mark leaves the rows unpublished, so they are published again with the same
 * event ids: delivery is at-least-once and consumers dedupe (IdempotentConsumer).
 */
export class OutboxRelay {
  private readonly table: string;
  private readonly lockKey: string;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly logger: Pick<LoggerService, 'error'>;
  private running = false;
  private loop?: Promise<void>;
  private kicked = false;
  private wake?: () => void;

  constructor(private readonly options: OutboxRelayOptions) {
    this.table = `${quoteSchema(options.schema)}.outbox`;
    this.lockKey = createHash('sha256').update(`outbox-relay:${options.schema}`).digest().readBigInt64BE(0).toString();
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.batchSize = Math.max(1, options.batchSize ?? 100);
    this.logger = options.logger ?? new Logger(`OutboxRelay(${options.schema})`);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the pass in progress, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Runs a pass now instead of at the next poll: call it after committing outbox rows. */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /**
   * One pass: publishes up to `batchSize` unpublished rows and marks them. Returns how many were published; 0
   * also when another relay of the schema is in a pass. Rejects if the bus rejects; the rows then stay
   * unpublished with their `attempts` counted.
   */
  relayOnce(): Promise<number> {
    return this.pass(false);
  }

  /**
   * Publishes every row committed before the call, in full batches until none is left. Unlike relayOnce it
   * waits for a concurrent pass rather than skip. For tests and graceful shutdown. Returns how many it published.
   */
  async flush(): Promise<number> {
    let total = 0;
    for (;;) {
      const published = await this.pass(true);
      total += published;
      if (published < this.batchSize) return total;
    }
  }

  private async pass(waitForLock: boolean): Promise<number> {
    const outcome = await this.options.dataSource.transaction(async (manager): Promise<{ published: number } | { failed: unknown }> => {
      // One relay per schema at a time, whatever the number of replicas: two relays publishing interleaved
      // batches would reorder one key's events. A polling pass that finds the lock taken skips; flush waits.
      if (waitForLock) {
        await manager.query('SELECT pg_advisory_xact_lock($1::bigint)', [this.lockKey]);
      } else {
        const [{ locked }] = await manager.query<Array<{ locked: boolean }>>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', [this.lockKey]);
        if (!locked) return { published: 0 };
      }
      // SKIP LOCKED as well, so a pass never waits on rows another session holds.
      const rows = await manager.query<OutboxRow[]>(
        `SELECT id, topic, payload FROM ${this.table} WHERE published_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      if (rows.length === 0) return { published: 0 };
      const ids = rows.map((row) => row.id);
      try {
        await this.options.bus.publish(rows.map((row): OutgoingEvent => ({ ...row.payload, topic: row.topic })));
      } catch (failed) {
        // Commit the attempt count rather than roll back: it is how operators spot a stuck row.
        await manager.query(`UPDATE ${this.table} SET attempts = attempts + 1 WHERE id = ANY($1::bigint[])`, [ids]);
        return { failed };
      }
      await manager.query(`UPDATE ${this.table} SET published_at = now(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])`, [ids]);
      return { published: rows.length };
    });
    if ('failed' in outcome) throw outcome.failed;
    return outcome.published;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.kicked = false;
      let backlog = false;
      try {
        backlog = (await this.relayOnce()) === this.batchSize;
      } catch (error) {
        this.logger.error(`publishing ${this.table} failed, will retry: ${describeError(error)}`);
      }
      // A kick during the pass may concern rows the pass did not see.
      if (this.running && !backlog && !this.kicked) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake?.(), this.pollIntervalMs);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
