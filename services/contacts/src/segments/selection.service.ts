import { Injectable } from '@nestjs/common';
import { AppError } from '@switchboard/platform';
import { ContactListRepository } from '../repositories/contact-list.repository';
import { ImportListRepository } from '../repositories/import-list.repository';
import { VariableService } from '../services/variable.service';
import { compileFilter, parseFilter, SqlParams, type FilterResolver, type ResolvedVariable, type SegmentFilter } from './filter';

/** Which contacts an operation is about: the query of GET /api/contacts, a task's params, a segment. */
export interface ContactSelection {
  contactList?: string;
  importList?: string;
  country?: string;
  optedOut?: boolean;
  search?: string;
  ids?: string[];
  filter?: SegmentFilter;
  /** Only contacts that may be sent to (not blacklisted, not opted out). */
  sendableOnly?: boolean;
}

/** The condition every count of "contacts" uses: a blacklisted or opted-out number is never counted as sendable. */
export const SENDABLE = 'NOT c.blocked AND c.opted_out_at IS NULL';

/**
 * Builds the WHERE clause (on `contacts.contact c`, `$1` the account) for a selection, resolving lists, segments,
 * imports and variables within the account only.
 */
@Injectable()
export class SelectionService {
  constructor(
    private readonly lists: ContactListRepository,
    private readonly imports: ImportListRepository,
    private readonly variables: VariableService,
  ) {}

  resolver(accountId: string): FilterResolver {
    return {
      lists: async (ids) => new Map((await this.lists.findMany(accountId, ids)).map((l) => [String(l.id), { type: l.type, filter: l.filter }])),
      importLists: async (ids) => new Map((await this.imports.findMany(accountId, ids)).map((i) => [String(i.id), i.contact_list_id ? String(i.contact_list_id) : null])),
      variables: async (refs) => {
        const catalog = await this.variables.catalog(accountId);
        const out = new Map<string, ResolvedVariable>();
        for (const ref of refs) {
          const v = catalog.find(ref);
          if (v) out.set(ref, { id: String(v.id), name: v.name, type: v.type, isStandard: v.is_standard });
        }
        return out;
      },
    };
  }

  /** `$1` is the account id. */
  async where(accountId: string, s: ContactSelection, params: SqlParams): Promise<string> {
    if (params.values[0] !== accountId) throw new Error('selection parameters must start with the account id');
    const w = ['c.account_id = $1'];
    if (s.sendableOnly) w.push(SENDABLE);
    if (s.contactList) {
      const list = await this.lists.find(accountId, s.contactList);
      if (!list) throw AppError.notFound('contact list');
      if (list.type === 'segment') w.push(`(${await compileFilter(parseFilter(list.filter, 'contactList'), this.resolver(accountId), params, 'contactList', [String(list.id)])})`);
      else w.push(`c.list_ids @> ARRAY[${params.add(list.id)}::bigint]`);
    }
    if (s.importList) {
      const [imp] = await this.imports.findMany(accountId, [s.importList]);
      if (!imp) throw AppError.notFound('import list');
      w.push(imp.contact_list_id ? `c.list_ids @> ARRAY[${params.add(imp.contact_list_id)}::bigint]` : 'FALSE');
    }
    if (s.country) w.push(`c.country = ${params.add(s.country.toUpperCase())}`);
    if (s.optedOut !== undefined) w.push(s.optedOut ? 'c.opted_out_at IS NOT NULL' : 'c.opted_out_at IS NULL');
    if (s.search) {
      const p = params.add(`%${s.search.replace(/[\\%_]/g, '\\$&')}%`);
      w.push(`(c.normalized_phone ILIKE ${p} OR c.phone ILIKE ${p} OR c.first_name ILIKE ${p} OR c.last_name ILIKE ${p} OR c.email ILIKE ${p})`);
    }
    if (s.ids) w.push(`c.id = ANY(${params.add(s.ids)}::bigint[])`);
    if (s.filter) w.push(`(${await compileFilter(s.filter, this.resolver(accountId), params)})`);
    return w.join(' AND ');
  }

  /** Sendable contacts matching a filter (POST /api/contact_lists/total_by_filter, segment counts). */
  async countFilter(accountId: string, filter: SegmentFilter, query: (sql: string, params: unknown[]) => Promise<Array<{ n: number }>>, segmentId?: string): Promise<number> {
    const params = new SqlParams([accountId]);
    const where = await compileFilter(filter, this.resolver(accountId), params, 'filter', segmentId ? [segmentId] : []);
    const [r] = await query(`SELECT count(*)::int AS n FROM contacts.contact c WHERE c.account_id = $1 AND ${SENDABLE} AND (${where})`, params.values);
    return r?.n ?? 0;
  }
}
