import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DISPATCH_OPTIONS, type ResolvedDispatchOptions } from '../dispatch.options';
import { RoutingRepository } from '../repositories/routing.repository';

/** Creates the configured vendors (embedded mode: the simulators) with their channels, once. */
@Injectable()
export class VendorSeeder implements OnModuleInit {
  constructor(
    @Inject(DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
    private readonly repo: RoutingRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    const seeds = this.options.seedVendors ?? [];
    if (seeds.length === 0) return;
    await this.repo.ds.transaction(async (m) => {
      // replicas starting together (SEED_DEMO) take turns: the later ones find every vendor and its channel
      await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['switchboard.seed:dispatch.vendors']);
      for (const s of seeds) {
        const v = await this.repo.insertVendor(m, {
          name: s.name,
          serviceType: s.serviceType,
          adapter: s.adapter,
          config: s.config ?? {},
          carrier: s.carrier ?? '',
          productName: s.name,
          productId: '',
          currency: s.currency ?? 'EUR',
          active: true,
        });
        if (v) await this.repo.syncChannels(m, s.routingProvider ?? 1);
      }
    });
  }
}
