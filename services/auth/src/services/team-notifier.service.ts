import { Inject, Injectable, Logger } from '@nestjs/common';
import { realtimeSubject } from '@switchboard/contracts';
import { RealtimeFanout } from '@switchboard/platform';

/** Realtime topic the console listens on for account-level changes (the gateway's `accounts` topic). */
export const TEAM_TOPIC = 'accounts';

/**
 * Tells the account's open consoles that its team or roles changed, so the team screens refetch. Best effort, after
 * the commit: realtime is never a source of truth.
 */
@Injectable()
export class TeamNotifier {
  private readonly logger = new Logger('auth');

  constructor(@Inject(RealtimeFanout) private readonly realtime: RealtimeFanout) {}

  async changed(accountId: string, type: 'team.changed' | 'roles.changed' | 'invites.changed' | 'api_keys.changed', data: Record<string, unknown>): Promise<void> {
    try {
      await this.realtime.publish(realtimeSubject(accountId, TEAM_TOPIC, type.split('.')[0]), { accountId, topic: TEAM_TOPIC, type, data });
    } catch (e) {
      this.logger.warn(`realtime ${type} for account ${accountId} not sent: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
