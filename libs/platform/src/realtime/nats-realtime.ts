import { Logger } from '@nestjs/common';
import type { RealtimeMessage } from '@switchboard/contracts';
import {
  connect,
  DebugEvents,
  Events,
  JSONCodec,
  type ConnectionOptions,
  type Msg,
  type NatsConnection,
  type NatsError,
  type Subscription,
} from 'nats';
import { EventIdGenerator } from './event-id';
import { RealtimeFanout, type RealtimeListener, type ReplayResult } from './realtime';
import { ReplayBuffer, type ReplayBufferOptions } from './replay-buffer';
import { SubjectRouter } from './subject-router';
import { assertMessageMatchesSubject, assertPattern, parseRealtimeSubject, REALTIME_PREFIX } from './subjects';

export interface NatsRealtimeOptions {
  servers: string | string[];
  /** Connection name shown by the server's monitoring, e.g. `gateway`. */
  name?: string;
  /**
   * Gateways only: keep a bounded per-account replay buffer for `lastEventId`, fed by one `rt.>` subscription.
   * Local subscriptions under `rt.` are then served from that subscription (each message crosses the wire once
   * per gateway, however many browsers listen). Off for services, which only publish.
   */
  replay?: boolean | ReplayBufferOptions;
  /** Wait between reconnect attempts. Default 1000 ms (plus up to 500 ms of jitter). */
  reconnectTimeWaitMs?: number;
  /** Default -1: keep trying for ever (realtime comes back by itself when NATS does). */
  maxReconnectAttempts?: number;
  /** Server liveness ping. Default 10 000 ms; after 3 unanswered pings the connection counts as stale and reconnects. */
  pingIntervalMs?: number;
  /** How long a publish waits for the first connection before it is dropped. Default 2000 ms. */
  publishWaitMs?: number;
  /** Extra connection options (TLS, credentials) passed to `nats` as they are. */
  connection?: Omit<ConnectionOptions, 'servers' | 'name'>;
}

const codec = JSONCodec<RealtimeMessage>();

/**
 * Distributed-mode realtime on core NATS (no JetStream: fan-out only, never a source of truth). Ids are
 * `<ms>-<seq>-<node>`, assigned by the publishing process. Reconnects for ever; subscriptions are restored by the
 * client library; messages published while a subscriber was disconnected are lost, which is reported through
 * `onGap` and makes older `lastEventId`s replay as incomplete.
 */
export class NatsRealtime extends RealtimeFanout {
  private readonly logger = new Logger('NatsRealtime');
  private readonly ids = EventIdGenerator.withRandomNode();
  private readonly buffer: ReplayBuffer | null;
  private readonly router = new SubjectRouter();
  private readonly gapListeners = new Set<() => void>();
  private readonly connecting: Promise<NatsConnection | null>;
  private nc: NatsConnection | null = null;
  private closed = false;
  private connected = false;

  constructor(private readonly options: NatsRealtimeOptions) {
    super();
    this.buffer = options.replay ? new ReplayBuffer(options.replay === true ? {} : options.replay) : null;
    this.connecting = connect({
      ...options.connection,
      servers: options.servers,
      name: options.name,
      reconnect: true,
      waitOnFirstConnect: true,
      maxReconnectAttempts: options.maxReconnectAttempts ?? -1,
      reconnectTimeWait: options.reconnectTimeWaitMs ?? 1000,
      reconnectJitter: 500,
      pingInterval: options.pingIntervalMs ?? 10_000,
      maxPingOut: 3,
    }).then(
      (nc) => this.onConnected(nc),
      (e: unknown) => {
        this.logger.error(`cannot connect to NATS at ${String(options.servers)}: ${e instanceof Error ? e.message : String(e)}`);
        return null;
      },
    );
  }

  /** Connects and waits for the first connection (the constructor alone connects in the background). */
  static async connect(options: NatsRealtimeOptions): Promise<NatsRealtime> {
    const rt = new NatsRealtime(options);
    if (!(await rt.ready())) throw new Error(`cannot connect to NATS at ${String(options.servers)}`);
    return rt;
  }

  /** Resolves once the first connection is up (true) or failed for good (false). */
  async ready(): Promise<boolean> {
    return (await this.connecting) !== null;
  }

  /** Whether the connection is currently up (false while reconnecting). */
  get isConnected(): boolean {
    return this.connected;
  }

  async publish(subject: string, message: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>): Promise<void> {
    assertMessageMatchesSubject(subject, message);
    if (this.closed) return;
    const nc = this.nc ?? (await this.waitForConnection(this.options.publishWaitMs ?? 2000));
    if (!nc || this.closed) {
      // Best effort by design: a UI update is not worth failing (and retrying) the caller's work.
      this.logger.warn(`NATS not connected: dropped realtime message to ${subject}`);
      return;
    }
    const { id, ms } = this.ids.next();
    // While reconnecting the client buffers publishes and sends them once it is back.
    nc.publish(subject, codec.encode({ ...message, id, subject, at: new Date(ms).toISOString() }));
  }

  async subscribe(pattern: string, listener: RealtimeListener): Promise<() => Promise<void>> {
    if (this.closed) throw new Error('realtime is closed');
    assertPattern(pattern);
    if (this.buffer && pattern.split('.')[0] === REALTIME_PREFIX) {
      const remove = this.router.add(pattern, listener);
      return async () => remove();
    }
    const nc = await this.connecting;
    if (!nc || this.closed) throw new Error('realtime is not connected');
    let active = true;
    const sub: Subscription = nc.subscribe(pattern, {
      callback: (err, m) => {
        if (!active) return;
        const message = this.decode(err, m);
        if (!message) return;
        try {
          listener(message);
        } catch (e) {
          this.logger.error(`realtime listener on ${pattern} failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
    });
    // A round trip, so that once subscribe() resolves the server routes new publications to us.
    await this.flush(nc);
    return async () => {
      if (!active) return;
      active = false;
      if (!sub.isClosed()) sub.unsubscribe();
    };
  }

  override async replay(accountId: string, lastEventId: string, patterns: readonly string[]): Promise<ReplayResult> {
    if (!this.buffer) return super.replay(accountId, lastEventId, patterns);
    return this.buffer.replay(accountId, lastEventId, patterns);
  }

  override onGap(listener: () => void): () => void {
    this.gapListeners.add(listener);
    return () => this.gapListeners.delete(listener);
  }

  /** Drains: pending publishes are flushed and subscriptions end before the connection closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.router.clear();
    this.gapListeners.clear();
    const nc = this.nc;
    if (!nc) {
      // Still trying to connect: close the connection as soon as it exists.
      void this.connecting.then((late) => late?.close());
      return;
    }
    if (nc.isClosed()) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      // Draining needs the server; while it is away, do not hold the shutdown for ever.
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), 5000);
      });
      if ((await Promise.race([nc.drain(), timeout])) === 'timeout') throw new Error('timed out');
    } catch (e) {
      this.logger.warn(`NATS drain failed (${e instanceof Error ? e.message : String(e)}): closing`);
      if (!nc.isClosed()) await nc.close();
    } finally {
      clearTimeout(timer);
    }
  }

  private async onConnected(nc: NatsConnection): Promise<NatsConnection> {
    if (this.closed) {
      void nc.close();
      return nc;
    }
    this.nc = nc;
    this.connected = true;
    void this.watchStatus(nc);
    void nc.closed().then((e) => {
      this.connected = false;
      if (e) this.logger.error(`NATS connection closed: ${e.message}`);
    });
    if (this.buffer) {
      nc.subscribe(`${REALTIME_PREFIX}.>`, {
        callback: (err, m) => {
          const message = this.decode(err, m);
          if (!message) return;
          this.buffer?.add(message);
          this.router.dispatch(message);
        },
      });
      await this.flush(nc);
    }
    return nc;
  }

  /** Waits for the server to have processed what was sent, but never longer than 2 s (it may be away). */
  private async flush(nc: NatsConnection): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([nc.flush(), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    } catch {
      /* closed meanwhile: nothing to wait for */
    } finally {
      clearTimeout(timer);
    }
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      switch (s.type) {
        case Events.Disconnect:
          this.connected = false;
          this.logger.warn(`NATS disconnected (${String(s.data)}); reconnecting`);
          break;
        case Events.Reconnect:
          this.connected = true;
          this.logger.log(`NATS reconnected (${String(s.data)})`);
          // Core NATS does not redeliver what was published during the outage.
          this.buffer?.markGap();
          for (const l of [...this.gapListeners]) {
            try {
              l();
            } catch (e) {
              this.logger.error(`realtime gap listener failed: ${e instanceof Error ? e.message : String(e)}`);
            }
          }
          break;
        case DebugEvents.StaleConnection:
          this.logger.warn('NATS connection is stale; reconnecting');
          break;
        default:
          break;
      }
    }
  }

  private async waitForConnection(ms: number): Promise<NatsConnection | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    });
    try {
      return await Promise.race([this.connecting, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Trusts the NATS subject over the payload, and drops payloads whose account is not the subject's. */
  private decode(err: NatsError | null, m: Msg): RealtimeMessage | null {
    if (err) {
      this.logger.warn(`NATS subscription error: ${err.message}`);
      return null;
    }
    let message: RealtimeMessage;
    try {
      message = codec.decode(m.data);
    } catch {
      this.logger.warn(`dropped a realtime message on ${m.subject} that is not JSON`);
      return null;
    }
    if (!message || typeof message !== 'object' || typeof message.id !== 'string') {
      this.logger.warn(`dropped a malformed realtime message on ${m.subject}`);
      return null;
    }
    const parsed = parseRealtimeSubject(m.subject);
    if (parsed && String(message.accountId) !== parsed.accountId) {
      this.logger.warn(`dropped a realtime message on ${m.subject} naming account ${String(message.accountId)}`);
      return null;
    }
    return { ...message, subject: m.subject };
  }
}
