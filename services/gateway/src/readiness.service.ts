import { Injectable } from '@nestjs/common';

/**
 * Whether the process should receive traffic. Not ready until every part that registered a condition marks it
 * ready: the embedded server marks `app` ready after migrations and seeding; a standalone gateway once listening.
 * Realtime (NATS) is deliberately not a condition: the gateway is the only entry, and the API must stay reachable
 * when live updates are down.
 */
@Injectable()
export class ReadinessService {
  private readonly pending = new Map<string, string>([['app', 'starting']]);

  markReady(part = 'app'): void {
    this.pending.delete(part);
  }

  markNotReady(part = 'app', reason = 'not ready'): void {
    this.pending.set(part, reason);
  }

  isReady(): boolean {
    return this.pending.size === 0;
  }

  /** What is still missing, e.g. `['app: starting']`. */
  reasons(): string[] {
    return [...this.pending].map(([part, reason]) => `${part}: ${reason}`);
  }
}
