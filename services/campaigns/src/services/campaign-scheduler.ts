import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { CAMPAIGNS_OPTIONS, type ResolvedCampaignsOptions } from '../campaigns.options';
import { CampaignStatusService } from './campaign-status.service';

/**
 * Scheduled campaigns (0) whose date came start (1): the runner takes them from there. Runs in processes with the
 * schedulers role; replicas may run it together (each move is a conditional UPDATE under the row lock, done once).
 */
@Injectable()
export class CampaignScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('CampaignScheduler');
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly status: CampaignStatusService,
    @Inject(CAMPAIGNS_OPTIONS) private readonly options: ResolvedCampaignsOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers || this.options.schedulerIntervalMs === 0) return;
    const tick = async () => {
      try {
        await this.status.fireDue();
      } catch (e) {
        this.log.warn(`firing scheduled campaigns failed: ${(e as Error).message}`);
      }
      if (!this.stopped) {
        this.timer = setTimeout(() => void tick(), this.options.schedulerIntervalMs);
        this.timer.unref();
      }
    };
    this.timer = setTimeout(() => void tick(), this.options.schedulerIntervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
