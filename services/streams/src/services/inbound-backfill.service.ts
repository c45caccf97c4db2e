import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { inboundAddress, StreamType, StreamUpdatedV1 } from '@switchboard/contracts';
import { PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { SenderEntity, StreamEntity } from '../entities';
import { STREAMS_CONNECTION } from '../streams.options';
import { InboundClaimService, type ClaimHolder, type InboundTarget } from './inbound-claims.service';
import { senderInboundTarget } from './sender.service';
import { StreamService } from './stream.service';
import { StreamsUnitOfWork } from './streams-events.service';

/**
 * Once, after the migration that introduced inbound claims and sealed provider settings (1796100000000): streams and
 * senders that existed before claim their addresses, oldest first (a later one that collides is left without a claim
 * and logged for the super administrator), and every provider stream's settings go to dispatch again, sealed, so
 * dispatch never needs the plaintext its read model had (its migration cleared it). Runs in scheduler processes; the
 * rows are taken with SKIP LOCKED, so two processes share the work.
 *
 * Also once, after 1796650000000: streams whose own rate was set before the snapshot events carried it send their
 * snapshot again, so dispatch paces them at it (docs/decisions/0047-limits-across-replicas.md).
 */
@Injectable()
export class InboundBackfillService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('StreamsInboundBackfill');
  private running?: Promise<void>;

  constructor(
    @InjectDataSource(STREAMS_CONNECTION) private readonly ds: DataSource,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: StreamsUnitOfWork,
    private readonly claims: InboundClaimService,
    private readonly streams: StreamService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers) return;
    this.running = this.run().catch((e: unknown) => this.log.warn(`backfill failed (retried at the next start): ${(e as Error).message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.running;
  }

  async run(): Promise<void> {
    for (;;) {
      const done = await this.uow.run(async (m, emit) => {
        const [row] = await m.query<Array<{ id: string }>>(`SELECT id::text FROM streams.stream WHERE provider_backfill ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`);
        if (!row) return true;
        const stream = await m.getRepository(StreamEntity).findOneByOrFail({ id: row.id });
        if (!stream.deletedAt) {
          await this.claimIfFree(m, emit, stream.accountId, { kind: 'stream', id: stream.id }, this.streamTarget(stream));
          this.streams.emitChannelOf(emit, stream);
        }
        await m.query(`UPDATE streams.stream SET provider_backfill = false WHERE id = $1`, [row.id]);
        return false;
      });
      if (done) break;
    }
    for (;;) {
      const done = await this.uow.run(async (m, emit) => {
        const [row] = await m.query<Array<{ id: string }>>(`SELECT id::text FROM streams.stream WHERE tps_backfill ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`);
        if (!row) return true;
        const stream = await m.getRepository(StreamEntity).findOneByOrFail({ id: row.id });
        if (!stream.deletedAt) emit(StreamUpdatedV1, this.streams.snapshot(stream), stream.accountId);
        await m.query(`UPDATE streams.stream SET tps_backfill = false WHERE id = $1`, [row.id]);
        return false;
      });
      if (done) break;
    }
    for (;;) {
      const done = await this.uow.run(async (m, emit) => {
        const [row] = await m.query<Array<{ id: string }>>(`SELECT id::text FROM streams.sender WHERE provider_backfill ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED`);
        if (!row) return true;
        const sender = await m.getRepository(SenderEntity).findOneByOrFail({ id: row.id });
        await this.claimIfFree(m, emit, sender.accountId, { kind: 'sender', id: sender.id }, senderInboundTarget(sender));
        await m.query(`UPDATE streams.sender SET provider_backfill = false WHERE id = $1`, [row.id]);
        return false;
      });
      if (done) break;
    }
  }

  /** Without provider calls (a start must not depend on Graph or Telegram): the stored settings decide. */
  private streamTarget(s: StreamEntity): InboundTarget | null {
    if (s.streamType === StreamType.TwoWay) {
      const address = s.sender && /\d{3,}/.test(s.sender) ? inboundAddress('sms', s.sender) : null;
      return address ? { channel: 'sms', address } : null;
    }
    if (s.streamType === StreamType.WhatsApp) return s.params.phone_number ? { channel: 'whatsapp', address: s.params.phone_number } : null;
    if (s.streamType === StreamType.TelegramBot) {
      // a bot token starts with the bot's id
      const botId = /^(\d{3,20}):/.exec(this.streams.openSecrets(s).auth_token ?? '')?.[1];
      return botId ? { channel: 'telegram', address: botId } : null;
    }
    return null;
  }

  private async claimIfFree(m: Parameters<Parameters<StreamsUnitOfWork['run']>[0]>[0], emit: Parameters<Parameters<StreamsUnitOfWork['run']>[0]>[1], accountId: string, holder: ClaimHolder, target: InboundTarget | null): Promise<void> {
    if (!target) return;
    const owner = await this.claims.owner(m, target);
    if (owner !== null && owner !== accountId) {
      this.log.warn(`${holder.kind} ${holder.id} of account ${accountId} uses ${target.channel} ${target.address}, which account ${owner} claimed first: left without a claim`);
      return;
    }
    await this.claims.set(m, emit, accountId, holder, target, { propertyPath: 'sender', what: 'this address' });
  }
}
