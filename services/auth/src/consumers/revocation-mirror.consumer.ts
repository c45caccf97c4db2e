import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { Topics } from '@switchboard/contracts';
import { EventBus, PROCESS_ROLES, publishRevocation, RealtimeFanout, REVOCATION_EVENT_TYPES, type ProcessRoles } from '@switchboard/platform';

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
