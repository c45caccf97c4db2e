import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import {
  Channel,
  CustomerCreatedV1,
  CustomerUpdatedV1,
  InboundRouteChangedV1,
  MessagesReconcileRequestedV1,
  StreamChannelConfiguredV1,
  StreamCreatedV1,
  StreamType,
  StreamUpdatedV1,
  TelegramCodeSubmittedV1,
  Topics,
  type EventEnvelope,
} from '@switchboard/contracts';
import { EventBus, IdempotentConsumer, PROCESS_ROLES, ProviderSecrets, type ProcessRoles } from '@switchboard/platform';
import { TelegramBotAdapter, telegramWebhookSecret } from '../adapters/telegram-bot.adapter';
import { DISPATCH_CONNECTION, DISPATCH_OPTIONS, DISPATCH_SCHEMA, type ResolvedDispatchOptions } from '../dispatch.options';
import { ReadModelRepository } from '../repositories/read-model.repository';
import { AdapterRegistry } from './adapter-registry.service';
import { Dispatcher } from './dispatcher.service';
import { ReconcileResponder } from './reconcile.service';
import { StreamChannelCache } from './stream-channel.cache';
import { TelegramAuthService } from './telegram-auth.service';

const ACCOUNTS_GROUP = 'dispatch.accounts';
const STREAMS_GROUP = 'dispatch.streams';

/** The channel a stream type sends on (as streams' `channel_configured` names it). */
function channelOf(streamType: number): (typeof Channel)[keyof typeof Channel] {
  if (streamType === StreamType.WhatsApp) return Channel.WhatsApp;
  if (streamType === StreamType.TelegramBot) return Channel.Telegram;
  if (streamType === StreamType.TelegramPrivate) return Channel.TelegramPrivate;
  return Channel.Sms;
}

/** Read models from other services: account TPS (accounts), stream TPS, stream channels and Telegram logins (streams). */
@Injectable()
export class ReadModelConsumers implements OnModuleInit {
  private readonly log = new Logger(ReadModelConsumers.name);
  private readonly secrets: ProviderSecrets | null;

  constructor(
    @InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(DISPATCH_OPTIONS) private readonly options: ResolvedDispatchOptions,
    private readonly repo: ReadModelRepository,
    private readonly cache: StreamChannelCache,
    private readonly dispatcher: Dispatcher,
    private readonly adapters: AdapterRegistry,
    private readonly telegramAuth: TelegramAuthService,
    private readonly reconcile: ReconcileResponder,
  ) {
    this.secrets = options.providerSecretsKey ? new ProviderSecrets(options.providerSecretsKey) : null;
  }

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: ACCOUNTS_GROUP, topics: [Topics.Accounts], types: [CustomerCreatedV1.type, CustomerUpdatedV1.type], handler: (e) => this.onAccounts(e) });
    // the streams topic also carries every accepted and charged message: this group takes only the stream events
    await this.bus.subscribe({
      group: STREAMS_GROUP,
      topics: [Topics.Streams],
      types: [StreamCreatedV1.type, StreamUpdatedV1.type, StreamChannelConfiguredV1.type, TelegramCodeSubmittedV1.type, InboundRouteChangedV1.type, MessagesReconcileRequestedV1.type],
      handler: (e) => this.onStreams(e),
    });
  }

  private async onAccounts(e: EventEnvelope): Promise<void> {
    if (e.type !== CustomerCreatedV1.type && e.type !== CustomerUpdatedV1.type) return;
    const d = CustomerCreatedV1.schema.parse(e.data);
    const words = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((w): w is string => typeof w === 'string' && w.trim() !== '').slice(0, 50) : undefined);
    const optKeywords = { optOut: words(d.customSettings.opt_out_keywords), optIn: words(d.customSettings.opt_in_keywords) };
    await IdempotentConsumer.handleOnce(this.ds, DISPATCH_SCHEMA, ACCOUNTS_GROUP, e, (m) => this.repo.upsertAccountLimit(m, d.accountId, d.tps, d.status, optKeywords));
    this.dispatcher.setAccountTps(d.accountId, d.tps);
  }

  private async onStreams(e: EventEnvelope): Promise<void> {
    // streams asks which of its accepted messages dispatch has (docs/decisions/0087)
    if (e.type === MessagesReconcileRequestedV1.type) return this.reconcile.answer(e);
    if (e.type === StreamCreatedV1.type || e.type === StreamUpdatedV1.type) {
      const d = StreamUpdatedV1.schema.parse(e.data);
      const applied = await IdempotentConsumer.handleOnce(this.ds, DISPATCH_SCHEMA, STREAMS_GROUP, e, (m) =>
        this.repo.upsertStreamLimit(m, { streamId: d.streamId, accountId: d.accountId, streamUid: d.streamUid, streamType: d.streamType, channel: channelOf(d.streamType), tps: d.tps }),
      );
      if (!applied) return;
      // the dispatcher's stream bucket reads the cache for every message: the new rate applies from the next one
      const row = await this.repo.streamChannel(d.streamId);
      if (row) this.cache.put(row);
      return;
    }
    if (e.type === StreamChannelConfiguredV1.type) {
      const d = StreamChannelConfiguredV1.schema.parse(e.data);
      const applied = await IdempotentConsumer.handleOnce(this.ds, DISPATCH_SCHEMA, STREAMS_GROUP, e, (m) =>
        this.repo.upsertStreamChannel(m, {
          streamId: d.streamId,
          accountId: d.accountId,
          streamUid: d.streamUid,
          streamType: d.streamType,
          channel: d.channel,
          sender: d.sender,
          credentials: d.credentials,
          sealedCredentials: d.sealedCredentials ?? null,
          enabled: d.enabled,
        }),
      );
      if (!applied) return;
      const row = await this.repo.streamChannel(d.streamId);
      if (!row) return;
      this.cache.put(row);
      if (!d.enabled) return;
      const botToken = this.cache.openSecrets(row).botToken;
      if (d.channel === 'telegram' && botToken) await this.registerTelegramWebhook(d.streamUid, botToken);
      if (d.channel === 'telegram_private' && d.credentials.phone && !(row.authState as { authorised?: boolean } | null)?.authorised) await this.telegramAuth.requestCode(row);
      return;
    }
    if (e.type === TelegramCodeSubmittedV1.type) {
      const d = TelegramCodeSubmittedV1.schema.parse(e.data);
      const fresh = await IdempotentConsumer.handleOnce(this.ds, DISPATCH_SCHEMA, STREAMS_GROUP, e, async () => undefined);
      if (!fresh) return;
      let { code, password } = d;
      if (d.sealed) {
        if (!this.secrets) {
          this.log.error(`a Telegram login code for stream ${d.streamId} came sealed and PROVIDER_SECRETS_KEY is not set`);
          return;
        }
        const opened = this.secrets.open(d.streamUid, d.sealed);
        code = opened.code ?? '';
        password = opened.password || null;
      }
      await this.telegramAuth.submitCode(d.streamId, code, password);
      return;
    }
    if (e.type === InboundRouteChangedV1.type) {
      const d = InboundRouteChangedV1.schema.parse(e.data);
      await IdempotentConsumer.handleOnce(this.ds, DISPATCH_SCHEMA, STREAMS_GROUP, e, (m) => this.repo.setInboundOwner(m, d.channel, d.address, d.accountId, d.streamId));
    }
  }

  /** setWebhook with the stream's secret_token; failures are logged (the bot still sends). */
  private async registerTelegramWebhook(streamUid: string, token: string): Promise<void> {
    const key = this.options.telegram?.webhookSecretKey;
    if (!this.options.publicUrl || !key) return;
    const adapter =
      this.adapters.all().find((a): a is TelegramBotAdapter => a instanceof TelegramBotAdapter) ??
      new TelegramBotAdapter('0', { baseUrl: this.options.telegram?.baseUrl ?? 'https://api.telegram.org' });
    const url = `${this.options.publicUrl.replace(/\/$/, '')}/api/dispatch/webhooks/telegram/${encodeURIComponent(streamUid)}`;
    const r = await adapter.setWebhook(token, url, telegramWebhookSecret(key, streamUid));
    if (!r.ok) this.log.warn(`setWebhook for stream ${streamUid} failed: ${r.description ?? 'unknown'}`);
  }
}
