import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { PoolClient } from 'pg';
import { LinkBatchMintedV2, LinkBatchRequestedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { createEnvelope, EventBus, Outbox, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { LINKS_CONNECTION, LINKS_OPTIONS, type ResolvedLinksOptions } from '../links.options';
import { LinksOutboxRelay, LinksUnitOfWork } from '../services/links-events.service';
import { CodeCipher } from './codes';
import { mintBatch, type LinkBatchAnswer, type LinkBatchRequest, type MintedDomainChange } from './mint';

export const MINT_GROUP = 'links.mint';
/**
 * Batches minted at once by a process (a partition's, so one campaign's too): each takes its domains only for its short
 * reservation (docs/decisions/0134), so two keep both cores busy, Node building one batch while PostgreSQL writes the
 * other.
 */
export const MINT_CONCURRENCY = 2;

/**
 * Answers `campaigns.link_batch.requested` with `links.link_batch.minted` (docs/decisions/0034). Idempotent by the
 * batch id: a redelivered or repeated request answers the batch's stored links again. Runs where the consumers role
 * is on and a code secret is configured.
 */
@Injectable()
export class MintConsumer implements OnModuleInit {
  private readonly cipher: CodeCipher | null;
  private readonly log = new Logger('links.mint');

  constructor(
    @InjectDataSource(LINKS_CONNECTION) private readonly ds: DataSource,
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    @Inject(LINKS_OPTIONS) private readonly options: ResolvedLinksOptions,
    private readonly clock: Clock,
    private readonly relay: LinksOutboxRelay,
    private readonly uow: LinksUnitOfWork,
  ) {
    this.cipher = options.codeSecret ? new CodeCipher(options.codeSecret) : null;
  }

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    if (!this.cipher) {
      this.log.warn('no code secret (LINKS_CODE_SECRET): personal links are not minted');
      return;
    }
    await this.bus.subscribe({ group: MINT_GROUP, topics: [Topics.Campaigns], types: [LinkBatchRequestedV1.type], concurrency: MINT_CONCURRENCY, handler: (e) => this.handle(e) });
  }

  async handle(e: EventEnvelope): Promise<void> {
    if (e.type !== LinkBatchRequestedV1.type) return;
    await this.mint(LinkBatchRequestedV1.schema.parse(e.data));
  }

  /** Mints (or answers again) one batch; the answer also leaves through the outbox. */
  async mint(req: LinkBatchRequest): Promise<LinkBatchAnswer> {
    if (!this.cipher) throw new Error('links: minting needs a code secret');
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      // the driver's own connection: COPY needs the pg client itself
      const client = (qr as unknown as { databaseConnection: PoolClient }).databaseConnection;
      let moved: MintedDomainChange[] = [];
      const answer = await mintBatch(client, req, { cipher: this.cipher, scheme: this.options.redirect.publicScheme, now: this.clock.now(), varsValues: this.options.mintVarsValues, onDomainsChanged: (d) => (moved = d) });
      // a domain the batch took to its messages limit (reached limit, 6) is shown live, as every other state change
      // of a domain is (its links.domain.changed event left through the outbox in the same transaction)
      if (moved.length) await this.uow.publish(moved.map((d) => ({ accountId: d.accountId, type: 'domain.changed', data: { id: Number(d.id), state: d.state, declinedReason: d.declinedReason } })));
      if (answer.outcome === 'minted') this.relay.kick();
      else await this.announceRefusal(answer);
      return answer;
    } finally {
      await qr.release();
    }
  }

  /** A refusal is not stored (a later request is decided afresh) but is answered like a mint. */
  private async announceRefusal(answer: LinkBatchAnswer): Promise<void> {
    await this.ds.transaction((m) => Outbox.add(m, 'links', [createEnvelope(LinkBatchMintedV2, answer, { accountId: answer.accountId, source: 'links', occurredAt: this.clock.now() })]));
    this.relay.kick();
  }
}
