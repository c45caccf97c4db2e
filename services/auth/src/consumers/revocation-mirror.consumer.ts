import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Topics, type EventEnvelope } from '@switchboard/contracts';
import {
  EventBus,
  MAX_ACCESS_TOKEN_LIFETIME_MS,
  PROCESS_ROLES,
  publishRevocation,
  RealtimeFanout,
  REVOCATION_EVENT_TYPES,
  revocationFromEvent,
  RevocationList,
  type ProcessRoles,
} from '@switchboard/platform';
import { AUTH_CONNECTION } from '../auth.options';
import { AUTH_SCHEMA } from '../services/auth-events.service';

/** Frozen: one group across auth replicas, so each revocation is mirrored once (at least once). */
export const REVOCATION_MIRROR_GROUP = 'auth.revocation-mirror';

/**
 * Mirrors auth's revocation events (read back from the bus, so only committed ones) on the realtime fan-out's
 * `sys.revocations`, for processes without an event bus: the standalone gateway closes the live channels of a revoked
 * session from it (docs/decisions/0029). Services with a bus follow the events themselves.
 */
@Injectable()
export class RevocationMirrorConsumer implements OnModuleInit {
  private readonly logger = new Logger('auth');

  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(RealtimeFanout) private readonly realtime: RealtimeFanout,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({
      group: REVOCATION_MIRROR_GROUP,
      topics: [Topics.Auth],
      types: [...REVOCATION_EVENT_TYPES],
      handler: async (event) => {
        // realtime is best effort: a failed publish is logged, never retried into a stalled partition
        await publishRevocation(this.realtime, event).catch((e: unknown) => this.logger.warn(`revocation mirror: ${String(e)}`));
      },
    });
  }
}

/**
 * On boot, before the process serves a request: every revocation auth committed within an access token's lifetime,
 * read back from its own outbox (rows are kept for days after publishing), goes into this process's deny list. So a
 * restart of the embedded server, whose in-memory bus keeps no history, or of an auth replica, forgets nothing that
 * could still concern a live token (docs/decisions/0029). Other services reload from the auth topic instead.
 */
@Injectable()
export class RevocationSnapshotLoader implements OnModuleInit {
  private readonly logger = new Logger('auth');

  constructor(
    @InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource,
    @Inject(RevocationList) private readonly list: RevocationList,
  ) {}

  async onModuleInit(): Promise<void> {
    const n = await this.load(this.list);
    if (n > 0) this.logger.log(`deny list: ${n} recent revocations loaded`);
  }

  /** Applies the recent revocations to `list`; answers how many were taken in. */
  async load(list: RevocationList): Promise<number> {
    const rows = await this.ds.query<Array<{ payload: EventEnvelope }>>(
      `SELECT payload FROM ${AUTH_SCHEMA}.outbox
        WHERE type = ANY($1::text[]) AND created_at > now() - make_interval(secs => $2::int)
        ORDER BY id`,
      [[...REVOCATION_EVENT_TYPES], Math.ceil(MAX_ACCESS_TOKEN_LIFETIME_MS / 1000)],
    );
    let applied = 0;
    for (const { payload } of rows) {
      const r = revocationFromEvent(payload);
      if (r && list.apply(r)) applied++;
    }
    return applied;
  }
}
