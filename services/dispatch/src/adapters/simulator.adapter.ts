import { randomUUID } from 'node:crypto';
import { ProviderAdapter, type AdapterSink, type OutboundMessage, type SendOutcome } from './provider-adapter';
import { analyzeSms } from '../sms';

export interface SimulatorConfig {
  /** Share of messages reported delivered; the rest undelivered. Default 1. */
  deliveryRatio?: number;
  /** Delay of the delivery report, ms. Default 1000. */
  delayMs?: number;
  /** Also report read (WhatsApp-like channels) this long after delivery; omit for none. */
  readAfterMs?: number;
  /** Destinations the simulator refuses outright (demo of a rejected send). */
  rejectPrefixes?: string[];
  /** Random source: tests pass a fixed one. */
  random?: () => number;
}

/**
 * The provider of embedded mode and demos: accepts every message at once (one id per SMS part), then reports it
 * delivered (or undelivered, by `deliveryRatio`) after `delayMs`, for every channel (SMS, WhatsApp, Telegram).
 */
export class SimulatorAdapter extends ProviderAdapter {
  readonly kind = 'simulator';
  private sink: AdapterSink | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly cfg: Required<Omit<SimulatorConfig, 'readAfterMs'>> & Pick<SimulatorConfig, 'readAfterMs'>;

  constructor(vendorId: string, config: SimulatorConfig = {}) {
    super(vendorId);
    this.cfg = { deliveryRatio: 1, delayMs: 1000, rejectPrefixes: [], random: Math.random, ...config };
  }

  async start(sink: AdapterSink): Promise<void> {
    this.sink = sink;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.sink = null;
  }

  ready(): boolean {
    return this.sink !== null;
  }

  capacity(): number {
    return 10_000;
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  async send(message: OutboundMessage): Promise<SendOutcome> {
    if (this.cfg.rejectPrefixes.some((p) => message.destination.startsWith(p))) return { kind: 'rejected', error: 'simulated: destination refused' };
    const parts = message.channel === 'sms' ? analyzeSms(message.text).segments : 1;
    const ids = Array.from({ length: parts }, () => `sim-${randomUUID()}`);
    const delivered = this.cfg.random() < this.cfg.deliveryRatio;
    this.later(this.cfg.delayMs, () => {
      for (const id of ids) {
        void this.sink?.receipt({
          vendorId: this.vendorId,
          providerMessageId: id,
          outcome: delivered ? 'delivered' : 'undelivered',
          error: delivered ? null : 'UNDELIV err:001',
          at: new Date(),
        });
      }
      if (delivered && this.cfg.readAfterMs !== undefined) {
        this.later(this.cfg.readAfterMs, () => {
          for (const id of ids) void this.sink?.receipt({ vendorId: this.vendorId, providerMessageId: id, outcome: 'read', error: null, at: new Date() });
        });
      }
    });
    return { kind: 'accepted', providerIds: ids };
  }
}
