import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  AgentsImported,
  ContactsSynced,
  IntegrationStatus,
  MAX_AGENTS_PER_EVENT,
  MAX_REMOVED_PER_EVENT,
  type IntegrationContactFilter,
  type SyncedContactData,
  type SyncProgressDto,
} from '@switchboard/contracts';
import { PROCESS_ROLES, type ProcessRoles, type UnitOfWorkEmit, type UnitOfWorkNotify } from '@switchboard/platform';
import { Clock } from '../clock';
import { rows } from '../db';
import type { Connector, ConnectorContext, CrmContact, CrmUser } from '../connectors/connector';
import { VendorAuthRejected, VendorError, VendorRateLimited, VendorRefused } from '../connectors/http';
import { connectorOf } from '../connectors/registry';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_OPTIONS, type ResolvedIntegrationsOptions } from '../integrations.options';
import { CredentialVault, type IntegrationRow } from './credentials';
import { matchesFilters } from './filters';
import { IntegrationsService } from './integrations.service';
import { IntegrationsUnitOfWork } from './outbox';
import { readProgress, withStep } from './sync-progress';

/** The `cursor` column: where a sync is, so a paused or crashed one continues where it stopped. */
interface SyncCursor {
  full?: { syncId: string; startedAt: string; usersDone?: boolean; contacts?: string | null; done?: number; total?: number | null };
  watermark?: string;
  /** Where the next run's deletions start (the vendor's deletion feed has its own clock). */
  deletedWatermark?: string;
  /** An incremental run under way: its changed contacts, then (`phase: 'deleted'`) its deleted ones. */
  changes?: { since: string; cursor: string | null; watermark: string; phase?: 'changes' | 'deleted'; deletedSince?: string; deletedWatermark?: string };
}

interface ListRow {
  list_id: string;
  filters: IntegrationContactFilter[];
  seq: string;
  full_sync_pending: boolean;
}

interface Roster {
  chosen: CrmUser[];
  profileNames: ReadonlyMap<string, string>;
}

const PAGE = 100;
const LEASE_MS = 5 * 60_000;

/**
 * The sync worker (schedulers role): claims integrations whose next run is due (a lease, so replicas share the work
 * and a crashed one's integration comes back), and runs one step: the users import, pages of the full contacts
 * sync (the cursor saved with each page, in the transaction that publishes the page), or the incremental changes.
 * Vendor answers decide what happens next: 429 pauses for its Retry-After, an outage (5xx, network) pauses with a
 * doubling backoff and never dead-letters, refused credentials (after one refresh) stop the integration (`error`).
 */
@Injectable()
export class SyncWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('integrations.sync');
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private running: Promise<unknown> | null = null;
  /** Pages of the full sync per step (the rest continues at the next poll, so one big CRM never holds the worker). */
  pagesPerStep = 20;

  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(INTEGRATIONS_OPTIONS) private readonly options: ResolvedIntegrationsOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly vault: CredentialVault,
    private readonly uow: IntegrationsUnitOfWork,
    private readonly integrations: IntegrationsService,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    if (this.roles.schedulers && this.options.pollMs > 0) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce()
        .catch((e: unknown) => this.logger.error(`sync pass failed: ${(e as Error).message}`))
        .finally(() => this.schedule());
    }, this.options.pollMs);
    this.timer.unref?.();
  }

  /** Claims the due integrations and runs one step of each. Answers how many were stepped. */
  async runOnce(limit = 8): Promise<number> {
    const now = this.clock.now();
    const found = await rows<IntegrationRow>(this.ds, 
      `UPDATE integrations.integration SET lease_until = $2
        WHERE id IN (SELECT id FROM integrations.integration
                      WHERE next_run_at <= $1 AND status IN ('syncing', 'active', 'paused') AND (lease_until IS NULL OR lease_until < $1)
                      ORDER BY next_run_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [now, new Date(now.getTime() + LEASE_MS), limit],
    );
    for (const row of found) await this.step(row);
    return found.length;
  }

  /** Runs until nothing is due (tests). */
  async drain(max = 1000): Promise<void> {
    for (let i = 0; i < max; i++) if ((await this.runOnce()) === 0) return;
  }

  private async step(row: IntegrationRow): Promise<void> {
    const connector = connectorOf(row.type);
    if (!connector) return this.release(row, { next: null });
    const cursor = (row.cursor ?? {}) as SyncCursor;
    try {
      let soon = false;
      const more = await this.vault.withContext(connector, row, async (ctx) => {
        if (cursor.full) return this.fullStep(connector, ctx, row, cursor);
        soon = await this.changesStep(connector, ctx, row, cursor);
        return false;
      });
      // lists created since the last full sync get the mirror, once the integration is not in the middle of one
      if (!more) await this.fillPendingLists(row);
      const now = this.clock.now();
      // an incremental run with pages left continues at once (its cursor is saved), still active
      const next = more || soon ? now : new Date(now.getTime() + this.options.incrementalEveryMs);
      await this.release(row, { next, status: more ? IntegrationStatus.Syncing : IntegrationStatus.Active, failures: 0, synced: !more && !soon });
    } catch (e) {
      await this.failed(connector, row, e);
    }
  }

  // ---------------------------------------------------------------- full sync

  /** One step of the full sync; true while there is more to do. */
  private async fullStep(connector: Connector, ctx: ConnectorContext, row: IntegrationRow, cursor: SyncCursor): Promise<boolean> {
    const full = cursor.full as NonNullable<SyncCursor['full']>;
    let progress = readProgress(row.sync);
    if (progress.state !== 'running') progress = { ...progress, state: 'running', retryAt: null, error: null };

    if (!full.usersDone && connector.users && row.config) {
      progress = withStep(progress, 'users', { state: 'running' });
      const roster = await this.roster(connector, ctx, row);
      full.usersDone = true;
      progress = withStep(progress, 'users', { state: 'done', done: roster.chosen.length, total: roster.chosen.length });
      await this.uow.run(async (m, emit, notify) => {
        // a start lists every chosen user (auth and the inbox place them again), and who left since the last import
        await this.importUsers(m, emit, row, full.syncId, roster, true);
        await this.save(m, row, cursor, progress, notify);
      });
    }

    if (!connector.contacts) return this.finishFull(row, cursor, progress);
    const fields = (await connector.contacts.contactFields(ctx)).map((f) => f.name);
    if (full.total === undefined) full.total = connector.contacts.countContacts ? await connector.contacts.countContacts(ctx) : null;
    for (let i = 0; i < this.pagesPerStep; i++) {
      const page = await connector.contacts.listContacts(ctx, { cursor: full.contacts ?? null, limit: PAGE, fields });
      full.contacts = page.next;
      full.done = (full.done ?? 0) + page.items.length;
      const total = page.total ?? full.total ?? null;
      progress = withStep(progress, 'contacts', { state: page.next ? 'running' : 'done', done: full.done, total: page.next ? total : full.done });
      await this.uow.run(async (m, emit, notify) => {
        await this.applyContacts(m, emit, row, page.items, { syncId: full.syncId, fullSync: true });
        if (!page.next) await this.finishFullIn(m, emit, row, full.syncId);
        if (!page.next) {
          delete cursor.full;
          cursor.watermark = full.startedAt;
          progress = { ...progress, state: 'done', progress: 100, finishedAt: this.clock.now().toISOString() };
        }
        await this.save(m, row, cursor, progress, notify);
      });
      if (!page.next) return false;
    }
    return true;
  }

  private async finishFull(row: IntegrationRow, cursor: SyncCursor, progress: SyncProgressDto): Promise<boolean> {
    const full = cursor.full as NonNullable<SyncCursor['full']>;
    await this.uow.run(async (m, emit, notify) => {
      await this.finishFullIn(m, emit, row, full.syncId);
      delete cursor.full;
      cursor.watermark = full.startedAt;
      await this.save(m, row, cursor, { ...progress, state: 'done', progress: 100, finishedAt: this.clock.now().toISOString() }, notify);
    });
    return false;
  }

  /** The end of a full sync: contacts the sync did not see are gone from the mirror; each live list gets its `last` batch. */
  private async finishFullIn(m: EntityManager, emit: UnitOfWorkEmit, row: IntegrationRow, syncId: string): Promise<void> {
    await m.query(`DELETE FROM integrations.crm_contact WHERE integration_id = $1 AND seen_sync IS DISTINCT FROM $2`, [row.id, syncId]);
    for (const list of await this.lists(m, row, false)) await this.emitBatch(m, emit, row, list, { syncId, fullSync: true, last: true, upserts: [], deletes: [] });
  }

  // ---------------------------------------------------------------- incremental

  /**
   * One step of the incremental run: the contacts changed since the watermark, page by page, then the contacts the
   * vendor deleted (its feed of deletions, or the mirror's ids asked about a page at a time). Each page is applied in
   * its own transaction with the cursor, so a pause or a crash continues where it stopped. True while pages are left.
   */
  private async changesStep(connector: Connector, ctx: ConnectorContext, row: IntegrationRow, cursor: SyncCursor): Promise<boolean> {
    if (!connector.changes || !connector.contacts) return false;
    const since = cursor.changes?.since ?? cursor.watermark ?? new Date(0).toISOString();
    // a new run reads the CRM's users first: who was added, moved to another profile or left since the last import
    if (!cursor.changes && connector.users && row.config) {
      const roster = await this.roster(connector, ctx, row);
      await this.uow.run((m, emit) => this.importUsers(m, emit, row, `users:${randomUUID()}`, roster, false));
    }
    let state: NonNullable<SyncCursor['changes']> = cursor.changes ?? { since, cursor: null, watermark: since, phase: 'changes' };
    const deletions = connector.deletions;
    let pages = 0;
    if (state.phase !== 'deleted') {
      const fields = (await connector.contacts.contactFields(ctx)).map((f) => f.name);
      for (; pages < this.pagesPerStep; pages++) {
        const page = await connector.changes.listChanges(ctx, { since: state.since, cursor: state.cursor, limit: PAGE, fields });
        state = { ...state, cursor: page.next, watermark: page.watermark > state.watermark ? page.watermark : state.watermark };
        if (!page.next && deletions) {
          const from = cursor.deletedWatermark ?? state.since;
          state = { ...state, phase: 'deleted', cursor: null, deletedSince: from, deletedWatermark: from };
        }
        await this.uow.run(async (m, emit, notify) => {
          await this.applyContacts(m, emit, row, page.items, { syncId: `changes:${randomUUID()}`, fullSync: false, deleted: page.deleted });
          if (state.phase === 'deleted' || page.next) cursor.changes = state;
          else this.endChanges(cursor, state);
          await this.save(m, row, cursor, readProgress(row.sync), notify);
        });
        if (state.phase === 'deleted') break;
        if (!page.next) return false;
      }
      if (state.phase !== 'deleted') return true;
    }
    for (; pages < this.pagesPerStep; pages++) {
      let deleted: string[] = [];
      let next: string | null = null;
      if (deletions?.listDeleted) {
        const d = await deletions.listDeleted(ctx, { since: state.deletedSince ?? state.since, cursor: state.cursor, limit: PAGE });
        deleted = d.deleted;
        next = d.next;
        if (d.watermark > (state.deletedWatermark ?? '')) state = { ...state, deletedWatermark: d.watermark };
      } else if (deletions?.goneOf) {
        // no feed: the contacts the mirror knows, a page of ids at a time
        const ids = (await rows<{ external_id: string }>(this.ds, `SELECT external_id FROM integrations.crm_contact WHERE integration_id = $1 AND external_id > $2 ORDER BY external_id LIMIT $3`, [row.id, state.cursor ?? '', PAGE])).map((r) => r.external_id);
        deleted = ids.length ? await deletions.goneOf(ctx, { ids }) : [];
        next = ids.length === PAGE ? ids[ids.length - 1] : null;
      }
      state = { ...state, cursor: next };
      await this.uow.run(async (m, emit, notify) => {
        if (deleted.length) await this.applyContacts(m, emit, row, [], { syncId: `changes:${randomUUID()}`, fullSync: false, deleted });
        if (next) cursor.changes = state;
        else this.endChanges(cursor, state);
        await this.save(m, row, cursor, readProgress(row.sync), notify);
      });
      if (!next) return false;
    }
    return true;
  }

  private endChanges(cursor: SyncCursor, state: NonNullable<SyncCursor['changes']>): void {
    delete cursor.changes;
    cursor.watermark = state.watermark;
    if (state.deletedWatermark) cursor.deletedWatermark = state.deletedWatermark;
  }

  // ---------------------------------------------------------------- contacts into the mirror and the lists

  /**
   * A page of CRM contacts: upserted into the mirror (one statement), then published to every live list of the
   * integration as one batch each, filtered by the list's filters. A full sync publishes every contact of the page
   * (contacts keeps what it saw under the sync id); incremental runs publish only contacts whose content changed,
   * and a contact that lost its phone or no longer matches a list's filters is a delete for that list.
   */
  private async applyContacts(m: EntityManager, emit: UnitOfWorkEmit, row: IntegrationRow, items: CrmContact[], o: { syncId: string; fullSync: boolean; deleted?: string[] }): Promise<void> {
    const withPhone = items.filter((c) => c.phone);
    const noPhone = items.filter((c) => !c.phone).map((c) => c.externalId);
    const now = this.clock.now();
    const records = withPhone.map((c) => ({ external_id: c.externalId, phone: c.phone, first_name: c.firstName, last_name: c.lastName, email: c.email, fields: c.fields, hash: contactHash(c) }));
    // what the mirror had before: an incremental run publishes only contacts whose content changed
    const before = new Map<string, string>();
    if (!o.fullSync && records.length) {
      for (const x of await rows<{ external_id: string; hash: string }>(m, `SELECT external_id, hash FROM integrations.crm_contact WHERE integration_id = $1 AND external_id = ANY($2)`, [row.id, records.map((r) => r.external_id)])) before.set(x.external_id, x.hash);
    }
    if (records.length) {
      await m.query(
        `INSERT INTO integrations.crm_contact (integration_id, account_id, external_id, phone, first_name, last_name, email, fields, hash, seen_sync, updated_at)
         SELECT $1, $2, x.external_id, x.phone, x.first_name, x.last_name, x.email, x.fields, x.hash, $4, $5
           FROM json_to_recordset($3::json) AS x(external_id text, phone text, first_name text, last_name text, email text, fields jsonb, hash text)
         ON CONFLICT (integration_id, external_id) DO UPDATE
           SET phone = EXCLUDED.phone, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, email = EXCLUDED.email,
               fields = EXCLUDED.fields, hash = EXCLUDED.hash, seen_sync = EXCLUDED.seen_sync, updated_at = EXCLUDED.updated_at`,
        [row.id, row.account_id, JSON.stringify(records), o.syncId, now],
      );
    }
    // only contacts the mirror has leave the lists: a deletion reported twice, or of a contact this integration never
    // synced, changes nothing
    const reported = [...new Set([...noPhone, ...(o.deleted ?? [])])];
    const gone = reported.length
      ? (await rows<{ external_id: string }>(m, `DELETE FROM integrations.crm_contact WHERE integration_id = $1 AND external_id = ANY($2) RETURNING external_id`, [row.id, reported])).map((r) => r.external_id).sort()
      : [];
    const lists = await this.lists(m, row, false);
    if (!lists.length) return;
    const candidates = o.fullSync ? withPhone : withPhone.filter((c) => before.get(c.externalId) !== contactHash(c));
    for (const list of lists) {
      const upserts: SyncedContactData[] = [];
      const deletes = [...gone];
      for (const c of candidates) {
        if (matchesFilters(c, list.filters)) upserts.push(synced(c));
        else if (!o.fullSync) deletes.push(c.externalId);
      }
      for (let i = 0; i < Math.max(upserts.length, 1); i += this.options.contactBatchSize) {
        const part = upserts.slice(i, i + this.options.contactBatchSize);
        const del = i === 0 ? deletes : [];
        if (!part.length && !del.length) continue;
        await this.emitBatch(m, emit, row, list, { syncId: o.syncId, fullSync: o.fullSync, last: false, upserts: part, deletes: del });
      }
    }
  }

  /** Lists created after the integration's full sync get the whole mirror as their own full sync. */
  private async fillPendingLists(row: IntegrationRow): Promise<void> {
    const pending = await this.lists(this.ds.manager, row, true);
    for (const list of pending) {
      const syncId = randomUUID();
      let after = '';
      for (;;) {
        const done = await this.uow.run(async (m, emit) => {
          const found = await rows<{ external_id: string; phone: string; first_name: string | null; last_name: string | null; email: string | null; fields: CrmContact['fields'] }>(m, 
            `SELECT external_id, phone, first_name, last_name, email, fields FROM integrations.crm_contact WHERE integration_id = $1 AND external_id > $2 ORDER BY external_id LIMIT $3`,
            [row.id, after, this.options.contactBatchSize],
          );
          const contacts: CrmContact[] = found.map((r) => ({ externalId: r.external_id, phone: r.phone, firstName: r.first_name, lastName: r.last_name, email: r.email, fields: r.fields, updatedAt: null }));
          const last = found.length < this.options.contactBatchSize;
          await this.emitBatch(m, emit, row, list, { syncId, fullSync: true, last, upserts: contacts.filter((c) => matchesFilters(c, list.filters)).map(synced), deletes: [] });
          if (found.length) after = found[found.length - 1].external_id;
          if (last) await m.query(`UPDATE integrations.synced_list SET full_sync_pending = false WHERE integration_id = $1 AND list_id = $2`, [row.id, list.list_id]);
          return last;
        });
        if (done) break;
      }
    }
  }

  private async emitBatch(m: EntityManager, emit: UnitOfWorkEmit, row: IntegrationRow, list: ListRow, b: { syncId: string; fullSync: boolean; last: boolean; upserts: SyncedContactData[]; deletes: string[] }): Promise<void> {
    const [{ seq }] = await rows<{ seq: string }>(m, `UPDATE integrations.synced_list SET seq = seq + 1 WHERE integration_id = $1 AND list_id = $2 RETURNING seq`, [row.id, list.list_id]);
    emit(ContactsSynced, { accountId: String(row.account_id), integrationKey: row.key, listId: Number(list.list_id), syncId: b.syncId, seq: Number(seq), fullSync: b.fullSync, last: b.last, upserts: b.upserts, deletes: b.deletes }, String(row.account_id));
  }

  private lists(m: EntityManager, row: IntegrationRow, pending: boolean): Promise<ListRow[]> {
    return rows<ListRow>(m, `SELECT list_id, filters, seq, full_sync_pending FROM integrations.synced_list WHERE integration_id = $1 AND full_sync_pending = $2 ORDER BY list_id`, [row.id, pending]);
  }

  // ---------------------------------------------------------------- users

  /** The CRM users the config chooses now, with the profiles' names (they name the inbox teams). */
  private async roster(connector: Connector, ctx: ConnectorContext, row: IntegrationRow): Promise<Roster> {
    const users = connector.users as NonNullable<Connector['users']>;
    const chosen = chooseUsers(await users.listUsers(ctx), row.config as { import_users?: { type: string; profiles?: string[] } });
    const profileNames = chosen.some((u) => u.profile !== null) ? new Map((await users.profiles(ctx)).map((p) => [p.id, p.name])) : new Map<string, string>();
    return { chosen, profileNames };
  }

  /**
   * The users step (decision 0064): the chosen users against those this integration last imported (`crm_user`, one row
   * per address). Published: every chosen user when `all` (a start), else those added or changed (names, profiles),
   * and always the addresses no longer chosen (left the chosen profiles, deactivated or deleted in the CRM), so the
   * inbox takes them out of the teams this integration put them in. The mirror is written in the same transaction.
   */
  private async importUsers(m: EntityManager, emit: UnitOfWorkEmit, row: IntegrationRow, syncId: string, roster: Roster, all: boolean): Promise<void> {
    const people = new Map<string, { externalId: string; entries: CrmUser[]; profiles: Array<{ id: string; name: string }> }>();
    for (const u of roster.chosen) {
      const email = u.email.trim().toLowerCase();
      const p = people.get(email) ?? { externalId: u.externalId, entries: [], profiles: [] };
      p.entries.push(u);
      if (u.profile !== null && !p.profiles.some((x) => x.id === u.profile)) p.profiles.push({ id: u.profile, name: roster.profileNames.get(u.profile) ?? u.profile });
      people.set(email, p);
    }
    const before = new Map((await rows<{ email: string; external_id: string; hash: string }>(m, `SELECT email, external_id, hash FROM integrations.crm_user WHERE integration_id = $1 FOR UPDATE`, [row.id])).map((r) => [r.email, r]));
    const records = [...people].map(([email, p]) => {
      const profiles = [...p.profiles].sort((a, z) => (a.id < z.id ? -1 : a.id > z.id ? 1 : 0));
      const first = p.entries[0];
      return { email, external_id: p.externalId, profiles, hash: createHash('sha1').update(JSON.stringify([first.firstName, first.lastName, first.admin, profiles])).digest('base64url'), entries: p.entries };
    });
    const listed = records.filter((r) => all || before.get(r.email)?.hash !== r.hash);
    const removed = [...before.values()].filter((b) => !people.has(b.email)).map((b) => ({ externalId: b.external_id, email: b.email }));
    if (removed.length) await m.query(`DELETE FROM integrations.crm_user WHERE integration_id = $1 AND email = ANY($2)`, [row.id, removed.map((r) => r.email)]);
    if (listed.length) {
      await m.query(
        `INSERT INTO integrations.crm_user (integration_id, email, external_id, profiles, hash)
         SELECT $1, x.email, x.external_id, x.profiles, x.hash FROM json_to_recordset($2::json) AS x(email text, external_id text, profiles jsonb, hash text)
         ON CONFLICT (integration_id, email) DO UPDATE SET external_id = EXCLUDED.external_id, profiles = EXCLUDED.profiles, hash = EXCLUDED.hash`,
        [row.id, JSON.stringify(listed.map(({ entries: _e, ...r }) => r))],
      );
    }
    if (!all && !listed.length && !removed.length) return;
    this.emitAgents(row, syncId, listed.map((r) => r.entries), roster.profileNames, removed, emit);
  }

  /** `people`: each address's entries (one per profile it is listed with), kept in one event so its teams are whole. */
  private emitAgents(row: IntegrationRow, syncId: string, people: CrmUser[][], profileNames: ReadonlyMap<string, string>, removed: Array<{ externalId: string; email: string }>, emit: UnitOfWorkEmit): void {
    const cfg = (row.config ?? {}) as { space_name?: string | null; import_teams?: { type?: 'profiles' | 'none' } };
    // the inbox space the agents join: the config's space_name, else the company's name, else the integration's (decision 0063)
    const spaceName = (cfg.space_name?.trim() || row.company_name?.trim() || row.name.trim() || row.type).slice(0, 255);
    const chunks: CrmUser[][] = [[]];
    for (const entries of people) {
      if (chunks[chunks.length - 1].length + entries.length > MAX_AGENTS_PER_EVENT && chunks[chunks.length - 1].length) chunks.push([]);
      chunks[chunks.length - 1].push(...entries);
    }
    const gone: Array<typeof removed> = [];
    for (let i = 0; i < removed.length; i += MAX_REMOVED_PER_EVENT) gone.push(removed.slice(i, i + MAX_REMOVED_PER_EVENT));
    const n = Math.max(chunks.length, gone.length, 1);
    for (let i = 0; i < n; i++) {
      const part = chunks[i] ?? [];
      emit(
        AgentsImported,
        {
          accountId: String(row.account_id),
          integrationKey: row.key,
          type: row.type,
          syncId,
          seq: i,
          last: i === n - 1,
          spaceName,
          importTeams: cfg.import_teams?.type ?? 'profiles',
          agents: part.map((u) => ({ externalId: u.externalId, email: u.email, firstName: u.firstName, lastName: u.lastName, admin: u.admin, profile: u.profile, profileName: u.profile === null ? null : (profileNames.get(u.profile) ?? null) })),
          ...(gone[i]?.length ? { removed: gone[i] } : {}),
        },
        String(row.account_id),
      );
    }
  }

  // ---------------------------------------------------------------- bookkeeping

  private async save(m: EntityManager, row: IntegrationRow, cursor: SyncCursor, progress: SyncProgressDto, notify: UnitOfWorkNotify): Promise<void> {
    await m.query(`UPDATE integrations.integration SET cursor = $2, sync = $3, updated_at = $4 WHERE id = $1`, [row.id, JSON.stringify(cursor), JSON.stringify(progress), this.clock.now()]);
    row.cursor = cursor as Record<string, unknown>;
    row.sync = progress as unknown as Record<string, unknown>;
    notify({ accountId: String(row.account_id), type: 'sync.progress', data: { key: row.key, sync: progress } });
  }

  private async release(row: IntegrationRow, o: { next: Date | null; status?: string; failures?: number; synced?: boolean }): Promise<void> {
    const now = this.clock.now();
    await this.uow.run(async (m, emit, notify) => {
      const [r] = await rows<IntegrationRow>(m, 
        `UPDATE integrations.integration SET lease_until = NULL, next_run_at = $2, status = COALESCE($3, status), failures = COALESCE($4, failures),
                last_synced_at = CASE WHEN $5 THEN $6 ELSE last_synced_at END, updated_at = $6
          WHERE id = $1 AND status <> 'disconnected' RETURNING *`,
        [row.id, o.next, o.status ?? null, o.failures ?? null, !!o.synced, now],
      );
      if (r && r.status !== row.status) this.integrations.changed(r, emit, notify);
    });
  }

  private async failed(connector: Connector, row: IntegrationRow, e: unknown): Promise<void> {
    const now = this.clock.now();
    let progress = readProgress(row.sync);
    if (e instanceof VendorAuthRejected || (e instanceof VendorRefused && (e.status === 401 || e.status === 403))) {
      progress = { ...progress, state: 'failed', retryAt: null, error: { code: 'INVALID_TOKEN', message: `${connector.name} refused the integration's credentials: invalid token. Connect it again.` } };
      await this.pause(row, { status: IntegrationStatus.Error, next: null, progress, failures: row.failures });
      return;
    }
    let wait: number;
    let error: { code: string; message: string };
    if (e instanceof VendorRateLimited) {
      wait = e.retryAfterMs;
      error = { code: 'RATE_LIMITED', message: `${connector.name} asked us to slow down: continuing in ${Math.ceil(wait / 1000)} s` };
    } else {
      wait = Math.min(this.options.maxOutageBackoffMs, this.options.outageBackoffMs * 2 ** Math.min(row.failures, 20));
      error = e instanceof VendorError ? { code: 'VENDOR_UNAVAILABLE', message: `${connector.name} could not be reached (${e.status ?? 'network'}): retrying` } : { code: 'SYNC_FAILED', message: 'the sync failed: retrying' };
      if (!(e instanceof VendorError)) this.logger.error(`integration ${row.id} sync step failed: ${(e as Error).message}`);
    }
    const retryAt = new Date(now.getTime() + wait);
    progress = { ...progress, state: 'paused', retryAt: retryAt.toISOString(), error, steps: progress.steps.map((s) => (s.state === 'running' ? { ...s, state: 'paused' } : s)) };
    await this.pause(row, { status: IntegrationStatus.Paused, next: retryAt, progress, failures: e instanceof VendorRateLimited ? row.failures : row.failures + 1 });
  }

  private async pause(row: IntegrationRow, o: { status: string; next: Date | null; progress: SyncProgressDto; failures: number }): Promise<void> {
    await this.uow.run(async (m, emit, notify) => {
      const [r] = await rows<IntegrationRow>(m, 
        `UPDATE integrations.integration SET lease_until = NULL, next_run_at = $2, status = $3, sync = $4, failures = $5, updated_at = $6 WHERE id = $1 AND status <> 'disconnected' RETURNING *`,
        [row.id, o.next, o.status, JSON.stringify(o.progress), o.failures, this.clock.now()],
      );
      if (!r) return;
      notify({ accountId: String(r.account_id), type: 'sync.progress', data: { key: r.key, sync: o.progress } });
      if (r.status !== row.status) this.integrations.changed(r, emit, notify);
    });
  }
}

function chooseUsers(users: CrmUser[], config: { import_users?: { type: string; profiles?: string[] } }): CrmUser[] {
  const active = users.filter((u) => u.active && u.email);
  const mode = config.import_users?.type;
  if (mode === 'admins') return active.filter((u) => u.admin);
  if (mode === 'profiles') {
    const wanted = new Set(config.import_users?.profiles ?? []);
    return active.filter((u) => u.profile !== null && wanted.has(u.profile));
  }
  return mode === 'all' ? active : [];
}

function contactHash(c: CrmContact): string {
  const fields = Object.keys(c.fields).sort().map((k) => [k, c.fields[k]]);
  return createHash('sha1').update(JSON.stringify([c.phone, c.firstName, c.lastName, c.email, fields])).digest('base64url');
}

const synced = (c: CrmContact): SyncedContactData => ({ externalId: c.externalId, phone: c.phone as string, firstName: c.firstName, lastName: c.lastName, email: c.email, fields: c.fields });
