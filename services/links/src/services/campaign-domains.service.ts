import { Injectable } from '@nestjs/common';
import type { DomainDto, DomainPoolDto } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import { DomainService } from './domain.service';
import { PoolService } from './pool.service';

export interface CampaignAddDomainResult {
  data: DomainDto[];
  duplicates: string[];
  /** The pool the new domains joined (an existing one, or the one created), or null. */
  pool: DomainPoolDto | null;
}

/**
 * `POST /campaigns/add/domain` (spec 7, docs/decisions/0044): the campaign wizard's "add domain" for its short-URL
 * variable. Adds domains like the add domain modal (format rule, duplicates answered for the confirm popup unless
 * `skipDuplicates`, DNS checked at once) and puts the new ones into an existing pool (`pool`) or a new pool
 * (`newPool`: name and description required, spec 5), so the wizard can pick the domains or the pool next.
 * Nothing is added when the pool part is wrong: it is checked first.
 */
@Injectable()
export class CampaignDomainsService {
  constructor(
    private readonly domains: DomainService,
    private readonly pools: PoolService,
  ) {}

  async add(body: Record<string, unknown>): Promise<CampaignAddDomainResult> {
    const skip = body.skipDuplicates === undefined ? false : body.skipDuplicates;
    if (typeof skip !== 'boolean') throw AppError.validation([{ propertyPath: 'skipDuplicates', message: 'true or false' }]);
    const target = await this.poolTarget(body);
    const added = await this.domains.addMany(body.domains, skip);
    if (!added.data.length || !target) return { ...added, pool: null };
    const ids = added.data.map((d) => d.id);
    const pool = target.kind === 'existing' ? await this.pools.addDomains(target.id, { domains: ids }) : await this.pools.create({ ...target.fields, domains: ids });
    return { ...added, pool };
  }

  private async poolTarget(body: Record<string, unknown>): Promise<{ kind: 'existing'; id: string } | { kind: 'new'; fields: Record<string, unknown> } | null> {
    const { pool, newPool } = body;
    const hasPool = pool !== undefined && pool !== null;
    const hasNew = newPool !== undefined && newPool !== null;
    if (hasPool && hasNew) throw AppError.validation([{ propertyPath: 'pool', message: 'an existing pool or a new pool, not both' }]);
    if (hasPool) {
      const id = typeof pool === 'number' || typeof pool === 'string' ? String(pool).replace(/^.*\//, '') : '';
      if (!/^\d{1,18}$/.test(id)) throw AppError.validation([{ propertyPath: 'pool', message: 'a pool id', code: 'required' }]);
      await this.pools.get(id); // another account's pool, or none: 404, and nothing is added
      return { kind: 'existing', id };
    }
    if (hasNew) {
      if (typeof newPool !== 'object' || Array.isArray(newPool)) throw AppError.validation([{ propertyPath: 'newPool', message: 'an object: name, description, distribution' }]);
      const f = newPool as Record<string, unknown>;
      const violations = [];
      if (typeof f.name !== 'string' || !f.name.trim()) violations.push({ propertyPath: 'newPool.name', message: 'the new pool needs a name', code: 'required' });
      if (typeof f.description !== 'string' || !f.description.trim()) violations.push({ propertyPath: 'newPool.description', message: 'the new pool needs a description', code: 'required' });
      if (violations.length) throw AppError.validation(violations);
      return { kind: 'new', fields: { name: f.name, description: f.description, ...(f.distribution !== undefined ? { distribution: f.distribution } : {}) } };
    }
    return null;
  }
}
