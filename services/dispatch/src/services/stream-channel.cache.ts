import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { PROCESS_ROLES, ProviderSecrets, type ProcessRoles } from '@switchboard/platform';
import { DISPATCH_OPTIONS, type ResolvedDispatchOptions } from '../dispatch.options';
import { ReadModelRepository, type StreamChannelRow } from '../repositories/read-model.repository';

/**
 * How often a sending process reads the whole read model again. Stream events reach one process of the consumer
 * group (Kafka), which updates its cache at once; the others learn a new rate or credentials within this period.
 */
export const STREAM_CHANNEL_RELOAD_MS = 10_000;

/** Streams remembered by uid for the webhooks, at most; past it they are forgotten all at once. */
const MAX_BY_UID = 10_000;

/** The stream channel read model in memory: credentials and rates are read for every message sent. */
@Injectable()
export class StreamChannelCache implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(StreamChannelCache.name);
  private byId = new Map<string, StreamChannelRow>();
  /** Rows put while a load is reading: newer than what that load may return. */
  private putsDuringLoad = new Map<string, StreamChannelRow>();
  private loading = 0;
  private timer?: NodeJS.Timeout;
  private readonly secrets: ProviderSecrets | null;
  /** Opened secrets by stream, with the sealed text they came from (a new one is opened once). */
  private readonly opened = new Map<string, { sealed: string; values: Record<string, string> }>();
  /**
   * Rows read by uid for the webhooks (`byUid`), with when they were read, and the reads under way (one per uid
   * however many posts wait for it).
   */
  private readonly uidRows = new Map<string, { row: StreamChannelRow; at: number }>();
  private readonly uidReads = new Map<string, Promise<StreamChannelRow | null>>();

  constructor(
    private readonly repo: ReadModelRepository,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(DISPATCH_OPTIONS) options: ResolvedDispatchOptions,
  ) {
    this.secrets = options.providerSecretsKey ? new ProviderSecrets(options.providerSecretsKey) : null;
  }

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers) return;
    this.timer = setInterval(() => {
      this.load().catch((e: unknown) => this.log.warn(`reloading stream channels failed: ${String(e)}`));
    }, STREAM_CHANNEL_RELOAD_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async load(): Promise<void> {
    this.loading++;
    try {
      const rows = await this.repo.streamChannels();
      const next = new Map(rows.map((r) => [String(r.streamId), r]));
      // a consumer's put that landed while the query ran may be newer than the row the query read
      for (const [id, row] of this.putsDuringLoad) next.set(id, row);
      this.byId = next;
    } finally {
      if (--this.loading === 0) this.putsDuringLoad.clear();
    }
  }

  put(row: StreamChannelRow): void {
    this.byId.set(String(row.streamId), row);
    if (this.loading > 0) this.putsDuringLoad.set(String(row.streamId), row);
    // a webhook asking for this stream from now on gets the row its event wrote
    this.uidReads.delete(row.streamUid);
    if (this.uidRows.size >= MAX_BY_UID && !this.uidRows.has(row.streamUid)) this.uidRows.clear();
    this.uidRows.set(row.streamUid, { row, at: Date.now() });
  }

  /**
   * The stream a webhook URL names (a WhatsApp notification's stream uid), for every post: read from the read model
   * once and then remembered for STREAM_CHANNEL_RELOAD_MS, the staleness the sending path already allows between
   * processes (docs/decisions/0121). The stream's events (`put`) replace it at once in the process that consumes
   * them. A uid not found is not remembered, so a stream created a moment ago is found by the next post. Concurrent
   * posts for one uid share one read.
   */
  async byUid(streamUid: string): Promise<StreamChannelRow | null> {
    const hit = this.uidRows.get(streamUid);
    if (hit && Date.now() - hit.at < STREAM_CHANNEL_RELOAD_MS) return hit.row;
    const reading = this.uidReads.get(streamUid);
    if (reading) return reading;
    const read = this.repo.streamChannelByUid(streamUid).then(
      (row) => {
        if (this.uidReads.get(streamUid) !== read) return row; // a put came meanwhile: it holds the newer row
        this.uidReads.delete(streamUid);
        if (!row) {
          this.uidRows.delete(streamUid);
          return null;
        }
        if (this.uidRows.size >= MAX_BY_UID && !this.uidRows.has(streamUid)) this.uidRows.clear();
        this.uidRows.set(streamUid, { row, at: Date.now() });
        return row;
      },
      (e: unknown) => {
        if (this.uidReads.get(streamUid) === read) this.uidReads.delete(streamUid);
        throw e;
      },
    );
    this.uidReads.set(streamUid, read);
    return read;
  }

  get(streamId: string): StreamChannelRow | undefined {
    return this.byId.get(streamId);
  }

  /**
   * The stream's credentials: what is not secret, the provider secrets opened from their sealed text (in memory only,
   * never written back), and the Telegram private session dispatch stored at login.
   */
  credentials(streamId: string): Record<string, string> | null {
    const row = this.byId.get(streamId);
    if (!row) return null;
    const out = { ...row.credentials, ...this.openSecrets(row) };
    const session = this.authSession(row);
    return session ? { ...out, session } : out;
  }

  /**
   * The Telegram private login state as it is stored: the session (a login to the user's Telegram account) sealed
   * for the stream like the provider secrets, never in the clear when PROVIDER_SECRETS_KEY is set.
   */
  sealAuthState(streamUid: string, state: Record<string, unknown>): Record<string, unknown> {
    const { session, ...rest } = state;
    if (typeof session !== 'string' || !this.secrets) return state;
    return { ...rest, sealedSession: this.secrets.seal(streamUid, { session }) };
  }

  /** The stored login state with its session opened (in memory only). */
  openAuthState(row: Pick<StreamChannelRow, 'streamId' | 'streamUid' | 'authState'>): Record<string, unknown> {
    const state = { ...(row.authState ?? {}) };
    const session = this.authSession(row);
    delete state.sealedSession;
    return session ? { ...state, session } : state;
  }

  private authSession(row: Pick<StreamChannelRow, 'streamId' | 'streamUid' | 'authState'>): string | null {
    const state = row.authState;
    if (!state) return null;
    if (typeof state.session === 'string') return state.session;
    if (typeof state.sealedSession !== 'string' || !this.secrets) return null;
    try {
      return this.secrets.open(row.streamUid, state.sealedSession).session ?? null;
    } catch {
      this.log.error(`the Telegram session of stream ${row.streamId} does not open with this PROVIDER_SECRETS_KEY`);
      return null;
    }
  }

  /** The opened secrets of a row (for rows read outside the cache, e.g. by a webhook). */
  openSecrets(row: Pick<StreamChannelRow, 'streamId' | 'streamUid' | 'sealedCredentials'>): Record<string, string> {
    if (!row.sealedCredentials || !this.secrets) return {};
    const hit = this.opened.get(String(row.streamId));
    if (hit && hit.sealed === row.sealedCredentials) return hit.values;
    try {
      const values = this.secrets.open(row.streamUid, row.sealedCredentials);
      this.opened.set(String(row.streamId), { sealed: row.sealedCredentials, values });
      return values;
    } catch {
      this.log.error(`the provider secrets of stream ${row.streamId} do not open with this PROVIDER_SECRETS_KEY`);
      return {};
    }
  }

  /** The stream's own rate in messages per second (`params.tps` in streams); 0: none. */
  tps(streamId: string): number {
    return this.byId.get(streamId)?.tps ?? 0;
  }
}
