import { Body, Controller, HttpCode, Inject, Injectable, Logger, Post, type OnModuleInit } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import {
  ContactListReadyV1,
  ContactListStatus,
  ContactListType,
  ContactsSynced,
  ErrorCode,
  IntegrationChanged,
  IntegrationListRequested,
  Permission,
  Topics,
  type ContactsSyncedData,
  type EventEnvelope,
} from '@switchboard/contracts';
import { AppError, claimEvent, EventBus, Permissions, PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import { CONTACTS_SCHEMA } from '../contacts.options';
import { one, rows } from '../db/sql';
import type { ImportListDto } from '../dtos/import-list.dto';
import { ImportListResponse } from '../dtos/responses.dto';
import { normalizePhone } from '../import/phone';
import { ContactListRepository } from '../repositories/contact-list.repository';
import type { ImportListRow } from '../repositories/import-list.repository';
import { caller } from './access';
import { ContactsUnitOfWork } from './contacts-events.service';
import { importListDto } from './import-list.service';

const REFS_GROUP = 'contacts.integration_refs';
const SYNC_GROUP = 'contacts.integration_sync';
const USABLE = ['authorised', 'syncing', 'active', 'paused'];

const Body_ = z
  .object({
    integrationKey: z.string().trim().min(1, 'choose an integration').max(64),
    name: z.string().trim().min(1).max(255).optional(),
    filters: z
      .array(
        z
          .object({
            field: z.string().trim().min(1).max(255),
            operator: z.enum(['eq', 'neq', 'contains', 'gt', 'lt', 'in', 'empty', 'not_empty']),
            value: z.union([z.string().max(1000), z.number(), z.boolean(), z.null(), z.array(z.union([z.string().max(1000), z.number()])).max(500)]).optional(),
          })
          .strict(),
      )
      .max(50)
      .default([]),
  })
  .strict();

/** A CRM field as a contact variable name: `<vendor>_<field>` (so it never takes a standard variable's name). */
export function crmVariableName(type: string, field: string): string {
  return `${type}_${field}`
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .slice(0, 60);
}

/**
 * Integration lists on the contacts side (docs/decisions/0040-integrations.md): `POST /import_lists/integration`
 * creates the import list (type integration, no file) and its contact list (type integration, initializing), checks
 * the key against the integrations read model, and asks integrations over the bus to fill it
 * (`contacts.integration_list.requested`). The batches integrations publishes (`integrations.contacts.synced`) are
 * applied here, each once, with set-based SQL: contacts upserted by phone, the CRM's fields as contact variables,
 * memberships by the CRM's id; a full sync's last batch removes the members it did not see and makes the list ready.
 */
@Injectable()
export class IntegrationListsService implements OnModuleInit {
  private readonly logger = new Logger('contacts.integrations');

  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: ContactsUnitOfWork,
    private readonly lists: ContactListRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.roles.consumers) return;
    await this.bus.subscribe({ group: REFS_GROUP, topics: [Topics.Integrations], types: [IntegrationChanged.type], handler: (e) => this.onIntegration(e) });
    await this.bus.subscribe({ group: SYNC_GROUP, topics: [Topics.Integrations], types: [ContactsSynced.type], handler: (e) => this.onBatch(e) });
  }

  async create(body: unknown): Promise<ImportListDto> {
    const parsed = Body_.safeParse(body ?? {});
    if (!parsed.success) throw AppError.validation(parsed.error.issues.map((i) => ({ propertyPath: i.path.join('.') || '(body)', message: i.message, code: i.code })));
    const b = parsed.data;
    const { accountId, principal } = caller();
    return this.uow.run(async (m, emit) => {
      const ref = await one<{ type: string; name: string; status: string }>(m, `SELECT type, name, status FROM contacts.integration_ref WHERE integration_key = $1 AND account_id = $2`, [b.integrationKey, accountId]);
      if (!ref || ref.status === 'disconnected') throw AppError.validation([{ propertyPath: 'integrationKey', message: 'no such integration in this account' }]);
      if (!USABLE.includes(ref.status)) throw new AppError(400, ErrorCode.InvalidIntegrationToken, 'the integration is not connected: invalid token');
      const name = b.name ?? ref.name;
      const imp = (await one<ImportListRow>(
        m,
        `INSERT INTO contacts.import_list (account_id, name, type, status, file_name, file_format, file_size, integration_key, created_by, started_at)
         VALUES ($1, $2, 'integration', 'processing', $3, 'none', 0, $4, $5, now()) RETURNING *`,
        [accountId, name, `${ref.type} integration`, b.integrationKey, principal.userId],
      )) as ImportListRow;
      const list = await this.lists.insert(accountId, { name, description: '', type: ContactListType.Integration, status: ContactListStatus.Initializing, filter: b.filters.length ? { integration: b.filters } : null, importListId: imp.id, numOfContacts: 0 }, m);
      // not a file import: the import runner's poll must never pick it up, so its lease is the far future
      const [linked] = await rows<ImportListRow>(m, `UPDATE contacts.import_list SET contact_list_id = $2, lease_owner = 'integrations', lease_until = 'infinity' WHERE id = $1 RETURNING *`, [imp.id, list.id]);
      emit(IntegrationListRequested, { accountId, integrationKey: b.integrationKey, listId: Number(list.id), importListId: Number(imp.id), filters: b.filters, removed: false }, accountId);
      return importListDto(linked);
    });
  }

  async onIntegration(e: EventEnvelope): Promise<void> {
    const p = IntegrationChanged.schema.safeParse(e.data);
    if (!p.success) return;
    const d = p.data;
    // newest state wins, whatever order the events arrive in
    await this.uow.run(async (m) => {
      await m.query(
        `INSERT INTO contacts.integration_ref (integration_key, account_id, type, name, status, changed_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (integration_key) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, status = EXCLUDED.status, changed_at = EXCLUDED.changed_at
         WHERE contacts.integration_ref.changed_at <= EXCLUDED.changed_at AND contacts.integration_ref.account_id = EXCLUDED.account_id`,
        [d.integrationKey, d.accountId, d.type, d.name, d.status, d.changedAt],
      );
    });
  }

  async onBatch(e: EventEnvelope): Promise<void> {
    const p = ContactsSynced.schema.safeParse(e.data);
    if (!p.success) {
      this.logger.warn(`integrations.contacts.synced ${e.id} does not match its schema: ignored`);
      return;
    }
    await this.uow.run(async (m, emit) => {
      if (!(await claimEvent(m, CONTACTS_SCHEMA, SYNC_GROUP, e.id))) return;
      await this.apply(m, p.data, emit);
    });
  }

  /** One batch, set-based: a handful of statements whatever its size (at most 500 contacts). */
  private async apply(m: EntityManager, d: ContactsSyncedData, emit: Parameters<Parameters<ContactsUnitOfWork['run']>[0]>[1]): Promise<void> {
    // the list must be this account's integration list of this integration (tenancy from the event, checked here too)
    const list = await one<{ id: string; import_list_id: string | null; type: string }>(
      m,
      `SELECT l.id, l.import_list_id, r.type FROM contacts.contact_list l JOIN contacts.import_list i ON i.id = l.import_list_id JOIN contacts.integration_ref r ON r.integration_key = i.integration_key
        WHERE l.id = $1 AND l.account_id = $2 AND l.type = 'integration' AND NOT l.is_deleted AND i.integration_key = $3 AND r.account_id = $2`,
      [d.listId, d.accountId, d.integrationKey],
    );
    if (!list) return;
    const account = d.accountId;
    const removedContacts: string[] = [];

    if (d.upserts.length) {
      // the CRM's fields as the account's contact variables (created once, by name)
      const fieldNames = [...new Set(d.upserts.flatMap((u) => Object.keys(u.fields)))];
      const varNames = fieldNames.map((f) => crmVariableName(list.type, f));
      const byName = new Map<string, string>();
      if (varNames.length) {
        await m.query(
          `INSERT INTO contacts.variable (account_id, name, ui_name, type) SELECT $1, n, n, 'text' FROM unnest($2::text[]) AS n
           ON CONFLICT (account_id, lower(name)) WHERE account_id IS NOT NULL DO NOTHING`,
          [account, varNames],
        );
        for (const v of await rows<{ id: string; name: string }>(m, `SELECT id::text, lower(name) AS name FROM contacts.variable WHERE account_id = $1 AND lower(name) = ANY($2::text[])`, [account, varNames])) byName.set(v.name, v.id);
      }
      // each CRM field's variable id, named once per batch rather than once per contact and field
      const varOf = new Map(fieldNames.map((f) => [f, byName.get(crmVariableName(list.type, f))]));
      const records: Array<Record<string, unknown>> = [];
      for (const u of d.upserts) {
        const n = normalizePhone(u.phone, null, false);
        if (!n.e164) continue;
        const variables: Record<string, string> = {};
        for (const k in u.fields) {
          const v = u.fields[k];
          const id = varOf.get(k);
          if (id && v !== null && v !== undefined) variables[id] = String(v);
        }
        records.push({ external_id: u.externalId, phone: u.phone, normalized_phone: n.e164, country: n.country, timezone: n.timezone, first_name: u.firstName, last_name: u.lastName, email: u.email, variables });
      }
      if (records.length) {
        // contacts by phone: created, or joined to the list with the CRM's names and fields filling in
        const upserted = await rows<{ id: string; normalized_phone: string }>(
          m,
          `INSERT INTO contacts.contact AS c (account_id, phone, normalized_phone, country, timezone, first_name, last_name, email, variables, list_ids, import_list_id, last_import_id)
           SELECT DISTINCT ON (x.normalized_phone) $1, x.phone, x.normalized_phone, x.country, x.timezone, x.first_name, x.last_name, x.email, x.variables, ARRAY[$2::bigint], $3, $3
             FROM json_to_recordset($4::json) AS x(phone text, normalized_phone text, country text, timezone text, first_name text, last_name text, email text, variables jsonb)
           ON CONFLICT (account_id, normalized_phone) DO UPDATE SET
             first_name = coalesce(EXCLUDED.first_name, c.first_name), last_name = coalesce(EXCLUDED.last_name, c.last_name), email = coalesce(EXCLUDED.email, c.email),
             variables = c.variables || EXCLUDED.variables,
             list_ids = CASE WHEN c.list_ids @> ARRAY[$2::bigint] THEN c.list_ids ELSE c.list_ids || $2::bigint END,
             last_import_id = EXCLUDED.last_import_id, updated_at = now()
           RETURNING c.id::text, c.normalized_phone`,
          [account, list.id, list.import_list_id, JSON.stringify(records)],
        );
        const idOf = new Map(upserted.map((r) => [r.normalized_phone, r.id]));
        const members = records.map((r) => ({ external_id: r.external_id, contact_id: idOf.get(r.normalized_phone as string) }));
        // memberships by the CRM id; a contact whose phone changed leaves its old contact behind
        const moved = await rows<{ old_contact: string }>(
          m,
          `WITH x AS (SELECT * FROM json_to_recordset($3::json) AS x(external_id text, contact_id bigint)),
                -- one primary-key probe per contact of the batch (LIMIT 1 keeps it a probe): as a join the planner read
                -- every member of the list per batch, quadratic over a full sync (decision 0063)
                old AS (SELECT im.external_id, im.contact_id FROM x CROSS JOIN LATERAL (
                          SELECT m.external_id, m.contact_id FROM contacts.integration_member m WHERE m.list_id = $1 AND m.external_id = x.external_id LIMIT 1) im
                        WHERE im.contact_id <> x.contact_id),
                up AS (INSERT INTO contacts.integration_member (list_id, external_id, account_id, contact_id, sync_id)
                       SELECT $1, x.external_id, $2, x.contact_id, $4 FROM x
                       ON CONFLICT (list_id, external_id) DO UPDATE SET contact_id = EXCLUDED.contact_id, sync_id = EXCLUDED.sync_id)
           SELECT contact_id::text AS old_contact FROM old`,
          [list.id, account, JSON.stringify(members), d.syncId],
        );
        removedContacts.push(...moved.map((r) => r.old_contact));
      }
    }
    if (d.deletes.length) {
      const gone = await rows<{ contact_id: string }>(m, `DELETE FROM contacts.integration_member WHERE list_id = $1 AND external_id = ANY($2::text[]) RETURNING contact_id::text`, [list.id, d.deletes]);
      removedContacts.push(...gone.map((r) => r.contact_id));
    }
    if (d.fullSync && d.last) {
      const unseen = await rows<{ contact_id: string }>(m, `DELETE FROM contacts.integration_member WHERE list_id = $1 AND sync_id <> $2 RETURNING contact_id::text`, [list.id, d.syncId]);
      removedContacts.push(...unseen.map((r) => r.contact_id));
    }
    if (removedContacts.length) {
      // out of the list, unless another CRM contact of the list has the same number
      await m.query(
        `UPDATE contacts.contact c SET list_ids = array_remove(c.list_ids, $2::bigint), updated_at = now()
          WHERE c.account_id = $1 AND c.id = ANY($3::bigint[])
            AND NOT EXISTS (SELECT 1 FROM contacts.integration_member im WHERE im.list_id = $2 AND im.contact_id = c.id)`,
        [account, list.id, [...new Set(removedContacts)]],
      );
    }
    await this.lists.recountLists(account, [list.id], m);
    if (d.fullSync && d.last) {
      const before = await one<{ status: number }>(m, `SELECT status FROM contacts.contact_list WHERE id = $1 AND account_id = $2`, [list.id, account]);
      await m.query(`UPDATE contacts.contact_list SET status = 2, progress = 100, updated_at = now() WHERE id = $1 AND account_id = $2`, [list.id, account]);
      await this.lists.recountLists(account, [list.id], m);
      const ready = (await one<{ name: string; num_of_contacts: number }>(m, `SELECT name, num_of_contacts FROM contacts.contact_list WHERE id = $1`, [list.id])) as { name: string; num_of_contacts: number };
      await m.query(
        `UPDATE contacts.import_list SET status = 'parsed', progress = 100, finished_at = now(), lease_until = 'infinity',
                parsed = (SELECT count(*) FROM contacts.integration_member WHERE list_id = $2), number_of_contacts = $3 WHERE id = $1`,
        [list.import_list_id, list.id, ready.num_of_contacts],
      );
      if (before && Number(before.status) !== 2) {
        emit(ContactListReadyV1, { accountId: account, contactListId: list.id, type: ContactListType.Integration, name: ready.name, numOfContacts: ready.num_of_contacts, importListId: list.import_list_id, readyAt: new Date().toISOString() }, account);
      }
    }
  }
}

/** `POST /import_lists/integration`: served by contacts, which owns lists (decision 0040). */
@ApiTags('contacts')
@ApiBearerAuth()
@Controller('import_lists/integration')
export class IntegrationListController {
  constructor(private readonly service: IntegrationListsService) {}

  @ApiBody({
    schema: {
      type: 'object',
      required: ['integrationKey'],
      properties: {
        integrationKey: { type: 'string', example: '3f2b8c1e-5d4a-4e6f-9a10-7b2c3d4e5f60', description: 'the integration (GET /api/integration_keys/dropdown)' },
        name: { type: 'string', maxLength: 255, example: 'HubSpot customers', description: 'the list name; default the integration name' },
        filters: {
          type: 'array',
          description: 'only CRM contacts matching all of these (GET /api/integration_keys/{key}/contact_filters)',
          items: { type: 'object', required: ['field', 'operator'], properties: { field: { type: 'string', example: 'lifecyclestage' }, operator: { type: 'string', enum: ['eq', 'neq', 'contains', 'gt', 'lt', 'in', 'empty', 'not_empty'], example: 'eq' }, value: { type: 'string', example: 'customer' } } },
        },
      },
      example: { integrationKey: '3f2b8c1e-5d4a-4e6f-9a10-7b2c3d4e5f60', name: 'HubSpot customers', filters: [{ field: 'lifecyclestage', operator: 'eq', value: 'customer' }] },
    },
  })
  @ApiCreatedResponse({ type: ImportListResponse, description: 'the import list (type integration); its contact list fills as the CRM syncs and stays in sync' })
  @Post() @Permissions(Permission.ContactListSegmentAdd) @HttpCode(201)
  create(@Body() body: unknown): Promise<ImportListDto> { return this.service.create(body); }
}
