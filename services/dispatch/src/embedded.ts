import type { DispatchModuleOptions } from './dispatch.options';

/**
 * What the embedded server registers: the simulators as the only vendors (an SMS reaches delivered after about
 * two seconds, 95% of the time; WhatsApp also reports read), each channel first in its service type.
 */
export function embeddedDispatchOptions(extra: Partial<DispatchModuleOptions> = {}): DispatchModuleOptions {
  return {
    seedVendors: [
      { name: 'SMS simulator', serviceType: 'sms', adapter: 'simulator', config: { deliveryRatio: 0.95, delayMs: 2000 } },
      { name: 'WhatsApp simulator', serviceType: 'whatsapp', adapter: 'simulator', config: { deliveryRatio: 1, delayMs: 1000, readAfterMs: 3000 } },
      { name: 'Telegram simulator', serviceType: 'telegram', adapter: 'simulator', config: { deliveryRatio: 1, delayMs: 300 } },
      { name: 'Telegram private simulator', serviceType: 'telegram_private', adapter: 'simulator', config: { deliveryRatio: 1, delayMs: 300 } },
    ],
    // one process: its limits are the whole rates, nothing to share
    dispatcher: { rateShareMs: 0 },
    ...extra,
  };
}
