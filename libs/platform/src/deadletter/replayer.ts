import { Logger, type LoggerService } from '@nestjs/common';
import type { EventBus } from '../bus/event-bus';
import { describeError } from '../bus/delivery';
import { isInfrastructureError } from '../bus/failures';
import { envelopeOf, type DeadLetterStore } from './store';

export interface DeadLetterReplayerOptions {
  store: DeadLetterStore;
  bus: EventBus;
  /** How often to look for requested replays. Default 1000 ms. */
  intervalMs?: number;
  /** Whether this process replays `publish` letters (republishes them): processes running the relay. Default true. */
  publish?: boolean;
  logger?: Pick<LoggerService, 'log' | 'warn' | 'error'>;
}

/**
 * Carries out the replays operators ask for (API or CLI set a letter `replay_requested`): a `consume` letter is handed
 * again to its group's handler in a process that runs that group (EventBus.redeliver, with the group's retries), a
 * `publish` letter is published again. Each letter is taken by one process (DeadLetterStore.takeReplays).
 */
export class DeadLetterReplayer {
  private readonly logger: Pick<LoggerService, 'log' | 'warn' | 'error'>;
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  private running = false;
  private stopped = false;
  private lastError = 0;

  constructor(private readonly options: DeadLetterReplayerOptions) {
    this.logger = options.logger ?? new Logger(DeadLetterReplayer.name);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.timer = setInterval(() => {
      if (this.pass) return;
      this.pass = this.replayOnce()
        .then(() => undefined)
        .catch((error: unknown) => {
          // An outage shows here every second: say it once a minute.
          if (Date.now() - this.lastError > 60_000) this.logger.warn(`dead-letter replays paused: ${describeError(error)}`);
          this.lastError = Date.now();
        })
        .finally(() => (this.pass = undefined));
    }, this.options.intervalMs ?? 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    clearInterval(this.timer);
    await this.pass;
  }

  /** One pass over every service's requested replays. Returns how many letters it replayed successfully. */
  async replayOnce(): Promise<number> {
    const { store, bus } = this.options;
    const groups = bus.subscribedGroups();
    const publish = this.options.publish ?? true;
    if (groups.length === 0 && !publish) return 0;
    let replayed = 0;
    for (const service of await store.services()) {
      const letters = await store.takeReplays(service, groups, publish);
      for (const letter of letters) {
        if (this.stopped) {
          await store.releaseReplay(service, letter.n);
          continue;
        }
        const envelope = envelopeOf(letter.payload);
        try {
          if (!envelope) {
            await store.finishReplay(service, letter.n, { ok: false, error: 'the record is not an event envelope: it cannot be replayed', attempts: letter.attempts });
            continue;
          }
          if (letter.kind === 'publish') {
            await bus.publish([{ ...envelope, topic: letter.topic }]);
            await store.finishReplay(service, letter.n, { ok: true });
            replayed++;
            continue;
          }
          const outcome = await bus.redeliver(letter.group, letter.topic, envelope);
          if (outcome.status === 'handled') {
            await store.finishReplay(service, letter.n, { ok: true });
            replayed++;
            this.logger.log(`dead letter ${letter.id} (${letter.eventType ?? '?'}) replayed to ${letter.group}`);
          } else if (outcome.status === 'failed') {
            await store.finishReplay(service, letter.n, { ok: false, error: outcome.error, attempts: outcome.attempts });
            this.logger.error(`dead letter ${letter.id} failed again in ${letter.group}: ${outcome.error}`);
          } else {
            await store.releaseReplay(service, letter.n);
          }
        } catch (error) {
          if (isInfrastructureError(error) || this.stopped) {
            await store.releaseReplay(service, letter.n).catch(() => undefined);
            throw error;
          }
          await store.finishReplay(service, letter.n, { ok: false, error: describeError(error), attempts: letter.attempts });
          this.logger.error(`dead letter ${letter.id} could not be replayed: ${describeError(error)}`);
        }
      }
    }
    return replayed;
  }
}
