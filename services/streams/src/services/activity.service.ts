import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { realtimeSubject } from '@switchboard/contracts';
import { PROCESS_ROLES, RealtimeFanout, type ProcessRoles } from '@switchboard/platform';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';
import { SendDatabase } from './send-database';

/**
 * What happened on streams since the last tick, flushed every `statsTickMs`: one realtime message per account
 * (`rt.<account>.streams`, type `streams.statistics`, the stream ids that moved) and the streams' last send time in
 * one UPDATE. Nothing here is on the send's critical path.
 */
@Injectable()
export class ActivityService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('StreamsActivity');
  private readonly touched = new Map<string, Set<string>>();
  private readonly lastSent = new Map<string, Date>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;

  constructor(
    private readonly db: SendDatabase,
    private readonly realtime: RealtimeFanout,
    @Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.roles.http && !this.roles.consumers) return;
    this.timer = setInterval(() => void this.flush(), this.o.statsTickMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  sent(accountId: string, streamId: string, at: Date): void {
    this.touch(accountId, streamId);
    this.lastSent.set(streamId, at);
  }

  touch(accountId: string, streamId: string): void {
    let s = this.touched.get(accountId);
    if (!s) this.touched.set(accountId, (s = new Set()));
    s.add(streamId);
  }

  /** Publishes a stream change at once (created, updated, token reset, deleted). */
  async streamChanged(accountId: string, type: string, data: Record<string, unknown>): Promise<void> {
    await this.realtime.publish(realtimeSubject(accountId, 'streams'), { accountId, topic: 'streams', type, data }).catch(() => undefined);
  }

  flush(): Promise<void> {
    this.flushing ??= this.doFlush().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async doFlush(): Promise<void> {
    const touched = [...this.touched];
    const sent = [...this.lastSent];
    this.touched.clear();
    this.lastSent.clear();
    for (const [accountId, ids] of touched) {
      await this.realtime
        .publish(realtimeSubject(accountId, 'streams'), { accountId, topic: 'streams', type: 'streams.statistics', data: { streamIds: [...ids] } })
        .catch(() => undefined);
    }
    if (sent.length === 0) return;
    try {
      await this.db.query(
        `UPDATE streams.stream s SET last_sent_time = greatest(coalesce(s.last_sent_time, v.at), v.at)
           FROM unnest($1::bigint[], $2::timestamptz[]) AS v(id, at) WHERE s.id = v.id`,
        [sent.map(([id]) => id), sent.map(([, at]) => at)],
      );
    } catch (e) {
      this.log.warn(`could not record last send times: ${(e as Error).message}`);
    }
  }
}
