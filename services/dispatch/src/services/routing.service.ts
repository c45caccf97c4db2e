import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { iso2OfNumber } from '../domain/country';
import type { ServiceType, VendorRow } from '../dispatch.options';
import { RoutingRepository, type ChannelRow, type CountryRouteRow } from '../repositories/routing.repository';

export const SERVICE_TYPE_OF_CHANNEL: Record<string, ServiceType> = {
  sms: 'sms',
  whatsapp: 'whatsapp',
  telegram: 'telegram',
  telegram_private: 'telegram_private',
};

export interface RouteChoice {
  /** Vendors to try in order (failover): the first ready one sends. */
  vendorIds: string[];
  source: 'account' | 'global' | 'channels' | 'none';
  iso2: string | null;
}

/**
 * Routing by country: an account's own route for the destination country, else the global one, else the active
 * channels of the service type in routing-provider order (1 first). Held in memory and reloaded on every change
 * in this process and every few seconds for changes made by other processes (`POST .../refresh` forces it).
 */
@Injectable()
export class RoutingService implements OnModuleDestroy {
  private readonly log = new Logger(RoutingService.name);
  private byKey = new Map<string, string[]>();
  private channelsByType = new Map<ServiceType, string[]>();
  private vendors = new Map<string, VendorRow>();
  private loadedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly repo: RoutingRepository) {}

  /** Loads the tables and refreshes them every `intervalMs`. */
  async start(intervalMs = 5000): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch((e: unknown) => this.log.warn(`routing refresh failed: ${String(e)}`)), intervalMs);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = null));
    return this.loading;
  }

  private async load(): Promise<void> {
    const [routes, channels, vendors] = await Promise.all([this.repo.routes('all'), this.repo.channels(), this.repo.vendors()]);
    this.apply(routes, channels, vendors);
  }

  apply(routes: CountryRouteRow[], channels: ChannelRow[], vendors: VendorRow[]): void {
    const byKey = new Map<string, string[]>();
    for (const r of routes) byKey.set(key(r.accountId, r.iso2, r.serviceType), r.vendorIds.map(String));
    const vendorMap = new Map(vendors.map((v) => [String(v.id), v]));
    const byType = new Map<ServiceType, string[]>();
    for (const c of [...channels].sort((a, b) => a.routingProvider - b.routingProvider || Number(a.id) - Number(b.id))) {
      const v = vendorMap.get(String(c.vendorId));
      if (!c.active || !v?.active) continue;
      const list = byType.get(c.serviceType) ?? [];
      list.push(String(c.vendorId));
      byType.set(c.serviceType, list);
    }
    const changed = JSON.stringify([...vendorMap.values()].map((v) => [v.id, v.active, v.adapter, v.config])) !== JSON.stringify([...this.vendors.values()].map((v) => [v.id, v.active, v.adapter, v.config]));
    this.byKey = byKey;
    this.channelsByType = byType;
    this.vendors = vendorMap;
    this.loadedAt = Date.now();
    if (changed) for (const l of this.listeners) l();
  }

  vendorList(): VendorRow[] {
    return [...this.vendors.values()];
  }

  vendor(id: string): VendorRow | undefined {
    return this.vendors.get(id);
  }

  /** The vendors for a message, active ones only, in order. */
  resolve(accountId: string, channel: string, destination: string, iso2: string | null): RouteChoice {
    const serviceType = SERVICE_TYPE_OF_CHANNEL[channel] ?? 'sms';
    const country = (iso2 ?? (serviceType === 'sms' || serviceType === 'whatsapp' ? iso2OfNumber(destination) : null))?.toUpperCase() ?? null;
    const active = (ids: string[]) => ids.filter((id) => this.vendors.get(id)?.active);
    if (country) {
      const own = this.byKey.get(key(accountId, country, serviceType));
      if (own && active(own).length) return { vendorIds: active(own), source: 'account', iso2: country };
      const global = this.byKey.get(key(null, country, serviceType));
      if (global && active(global).length) return { vendorIds: active(global), source: 'global', iso2: country };
    }
    const fallback = this.channelsByType.get(serviceType) ?? [];
    if (fallback.length) return { vendorIds: fallback, source: 'channels', iso2: country };
    return { vendorIds: [], source: 'none', iso2: country };
  }
}

function key(accountId: string | null, iso2: string, serviceType: string): string {
  return `${accountId ?? '*'}|${iso2.toUpperCase()}|${serviceType}`;
}
