import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AdapterSink, ProviderAdapter } from '../adapters/provider-adapter';
import { SimulatorAdapter, type SimulatorConfig } from '../adapters/simulator.adapter';
import { SmppAdapter, type SmppAdapterConfig } from '../adapters/smpp.adapter';
import { TelegramBotAdapter } from '../adapters/telegram-bot.adapter';
import { TelegramPrivateAdapter } from '../adapters/telegram-private.adapter';
import { WhatsAppAdapter } from '../adapters/whatsapp.adapter';
import { DISPATCH_OPTIONS, type ResolvedDispatchOptions, type VendorRow } from '../dispatch.options';

/**
 * One running adapter per active vendor, rebuilt when a vendor's adapter or config changes. The adapter is chosen
 * by the vendor row (configuration), never by the environment.
 */
@Injectable()
export class AdapterRegistry {
  private readonly log = new Logger(AdapterRegistry.name);
  private readonly running = new Map<string, { adapter: ProviderAdapter; signature: string }>();
  private sink: AdapterSink | null = null;
  private syncing: Promise<void> = Promise.resolve();

  constructor(@Inject(DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions) {}

  get(vendorId: string): ProviderAdapter | undefined {
    return this.running.get(vendorId)?.adapter;
  }

  all(): ProviderAdapter[] {
    return [...this.running.values()].map((r) => r.adapter);
  }

  /** Free room across ready adapters. */
  room(): number {
    let n = 0;
    for (const { adapter } of this.running.values()) if (adapter.ready()) n += adapter.capacity();
    return n;
  }

  start(sink: AdapterSink): void {
    this.sink = sink;
  }

  /** Starts, restarts and stops adapters to match the vendor rows. Serialised. */
  sync(vendors: VendorRow[]): Promise<void> {
    this.syncing = this.syncing.then(() => this.doSync(vendors)).catch((e: unknown) => this.log.error(`adapter sync failed: ${String(e)}`));
    return this.syncing;
  }

  private async doSync(vendors: VendorRow[]): Promise<void> {
    const sink = this.sink;
    if (!sink) return;
    const wanted = new Map(vendors.filter((v) => v.active).map((v) => [String(v.id), v]));
    for (const [id, r] of this.running) {
      const v = wanted.get(id);
      if (!v || signature(v) !== r.signature) {
        this.running.delete(id);
        await r.adapter.stop().catch((e: unknown) => this.log.warn(`stopping adapter of vendor ${id}: ${String(e)}`));
      }
    }
    for (const [id, v] of wanted) {
      if (this.running.has(id)) continue;
      const adapter = this.build(v);
      if (!adapter) continue;
      this.running.set(id, { adapter, signature: signature(v) });
      await adapter.start(sink);
    }
  }

  private build(v: VendorRow): ProviderAdapter | null {
    const custom = this.options.adapterFactory?.(v);
    if (custom) return custom;
    const id = String(v.id);
    const cfg = v.config ?? {};
    switch (v.adapter) {
      case 'smpp':
        return new SmppAdapter(id, cfg as unknown as SmppAdapterConfig);
      case 'simulator':
        return new SimulatorAdapter(id, cfg as SimulatorConfig);
      case 'whatsapp':
        return new WhatsAppAdapter(id, {
          baseUrl: (cfg.baseUrl as string | undefined) ?? this.options.whatsapp?.baseUrl ?? 'https://graph.facebook.com',
          apiVersion: (cfg.apiVersion as string | undefined) ?? this.options.whatsapp?.apiVersion ?? 'v21.0',
          accessToken: (cfg.accessToken as string | undefined) ?? this.options.whatsapp?.accessToken ?? null,
          retryAfterMs: cfg.retryAfterMs as number | undefined,
        });
      case 'telegram_bot':
        return new TelegramBotAdapter(id, { baseUrl: (cfg.baseUrl as string | undefined) ?? this.options.telegram?.baseUrl ?? 'https://api.telegram.org' });
      case 'telegram_private':
        return new TelegramPrivateAdapter(id, this.options.telegramPrivate ?? null);
      default:
        this.log.warn(`vendor ${id}: unknown adapter ${String(v.adapter)}`);
        return null;
    }
  }

  async stopAll(): Promise<void> {
    await this.syncing;
    const all = [...this.running.values()];
    this.running.clear();
    await Promise.all(all.map((r) => r.adapter.stop().catch(() => undefined)));
  }
}

function signature(v: VendorRow): string {
  return JSON.stringify([v.adapter, v.config]);
}
