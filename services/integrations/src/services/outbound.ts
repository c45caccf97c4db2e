import { Inject, Injectable } from '@nestjs/common';
import { DestinationGuard, DestinationRefused, type CheckedDestination } from '@switchboard/platform';
import { INTEGRATIONS_OPTIONS, type ResolvedIntegrationsOptions } from '../integrations.options';

/**
 * Where this service may call out to (vendor APIs, AI providers): a customer-given host must resolve to public
 * addresses only (libs/platform's resolve-and-check guard, the webhooks' one), checked when the URL is given AND at
 * every request, which connects to the address it checked (pinned: no second lookup, so a name that answers a public
 * address at connect time and 127.0.0.1 later never reaches 127.0.0.1). The operator's own endpoints
 * (INTEGRATIONS_ENDPOINTS) are trusted as configured; `allowPrivateUrls` (tests, embedded sandboxes) turns it off.
 */
@Injectable()
export class OutboundAddresses {
  private readonly guard: DestinationGuard;
  private readonly trusted: ReadonlySet<string>;

  constructor(@Inject(INTEGRATIONS_OPTIONS) private readonly options: ResolvedIntegrationsOptions) {
    this.guard = new DestinationGuard({ allowLoopback: options.allowLoopback, allowedPorts: 'any', dnsServers: options.dnsServers });
    this.trusted = new Set(
      Object.values(options.endpoints)
        .flatMap((e) => Object.values(e ?? {}))
        .filter((u): u is string => typeof u === 'string' && URL.canParse(u.replace('{domain}', 'x')))
        .map((u) => new URL(u.replace('{domain}', 'x')).origin),
    );
  }

  /** Why the URL's host may not be called (it resolves to a loopback, private, link-local... address, or not at all), or null. */
  async refusal(url: string): Promise<string | null> {
    try {
      await this.guard.check(url);
      return null;
    } catch (e) {
      if (e instanceof DestinationRefused) return e.message;
      throw e;
    }
  }

  /** The checked address to connect to for this URL, whoever gave it (AI providers decide what is trusted themselves). Throws DestinationRefused. */
  check(url: URL): Promise<CheckedDestination> {
    return this.guard.check(url.toString());
  }

  /** For one vendor request: the checked address to connect to, or null when no check applies. Throws DestinationRefused. */
  async destination(url: URL): Promise<CheckedDestination | null> {
    if (this.options.allowPrivateUrls || this.trusted.has(url.origin)) return null;
    return this.guard.check(url.toString());
  }
}
