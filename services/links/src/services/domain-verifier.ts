import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DomainDeclinedReason, DomainState, type DomainStateValue } from '@switchboard/contracts';
import { PROCESS_ROLES, type ProcessRoles } from '@switchboard/platform';
import { Clock } from '../clock';
import { DnsChecker, type DnsAnswer } from '../dns/dns-checker';
import { LINKS_CONNECTION, LINKS_OPTIONS, type DnsTargets, type ResolvedLinksOptions } from '../links.options';
import { announceDomain, changed, DOMAIN_COLUMNS, limitAdjusted, ownershipValue, type DomainRow } from './domain-rows';
import { LinksUnitOfWork } from './links-events.service';

/** What DNS says about a domain, before the claim is settled. */
export interface Verdict {
  state: DomainStateValue;
  type: 'CNAME' | 'A';
  ip: string | null;
  declinedReason: string | null;
  /** Routing and the ownership token are both right: the account may hold the claim. */
  proven: boolean;
}

/**
 * The domain states DNS decides (spec 4), docs/decisions/0033-links-domains.md:
 * - no CNAME and no A record at all: not configured (0);
 * - a CNAME or A record pointing elsewhere: declined (4, `dns_points_elsewhere`);
 * - routing right, ownership TXT missing: valid-pending (3);
 * - routing right and the account's TXT token present: configured (1), if the claim is the account's.
 */
export function verdictOf(answer: DnsAnswer, targets: DnsTargets, token: string): Verdict {
  const viaCname = answer.cname.includes(targets.cnameTarget);
  const viaA = targets.aTarget !== null && answer.cname.length === 0 && answer.a.length > 0 && answer.a.every((ip) => ip === targets.aTarget);
  const type = answer.cname.length === 0 && answer.a.length > 0 ? 'A' : 'CNAME';
  const ip = answer.a[0] ?? null;
  if (answer.cname.length === 0 && answer.a.length === 0) return { state: DomainState.NotConfigured, type, ip, declinedReason: null, proven: false };
  if (!viaCname && !viaA) {
    const seen = answer.cname.length ? `CNAME ${answer.cname.join(', ')}` : `A ${answer.a.join(', ')}`;
    return { state: DomainState.Declined, type, ip, declinedReason: `${DomainDeclinedReason.PointsElsewhere}: ${seen}`, proven: false };
  }
  if (!answer.txt.includes(ownershipValue(token))) return { state: DomainState.ValidPending, type, ip, declinedReason: null, proven: false };
  return { state: DomainState.Configured, type, ip, declinedReason: null, proven: true };
}

/**
 * Verifies domains by real DNS lookups and re-checks every domain on a schedule (processes with the schedulers role).
 * A name is held by at most one account: the first whose routing record and TXT token both verify claims it (a partial
 * unique index); a second account proving the same name is declined (`claimed_by_another_account`) until the holder
 * loses its proof (TXT gone, records elsewhere), deletes the domain, or is re-checked without it.
 */
@Injectable()
export class DomainVerifier implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('links.dns');
  private readonly dns: DnsChecker;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    @InjectDataSource(LINKS_CONNECTION) private readonly ds: DataSource,
    @Inject(LINKS_OPTIONS) private readonly options: ResolvedLinksOptions,
    @Inject(PROCESS_ROLES) private readonly roles: ProcessRoles,
    private readonly uow: LinksUnitOfWork,
    private readonly clock: Clock,
  ) {
    this.dns = new DnsChecker(options.dnsServers, options.dnsTimeoutMs);
  }

  onApplicationBootstrap(): void {
    if (!this.roles.schedulers || this.options.dnsPollMs <= 0) return;
    // due domains are looked for often (new ones are due at once); each is re-checked every dnsRecheckMs
    const every = this.options.dnsPollMs;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.checkDue()
        .catch((e: unknown) => this.log.warn(`DNS re-check failed: ${(e as Error).message}`))
        .finally(() => (this.running = null));
    }, every);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Checks the domains whose check is due (any account), at most `limit`. Returns how many were checked. */
  async checkDue(limit = 50): Promise<number> {
    const now = this.clock.now();
    // claimed by moving their next check on (rows another replica is claiming are skipped), so replicas running the
    // schedulers role never look the same domain up twice; a claim whose check fails is retried a minute later
    const retry = new Date(now.getTime() + Math.min(this.options.dnsRecheckMs, 60_000));
    const due = await changed<{ id: string; account_id: string }>(
      this.ds,
      `UPDATE links.domain d SET next_check_at = $3 FROM (
         SELECT id FROM links.domain WHERE next_check_at <= $1 AND NOT blocked ORDER BY next_check_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) x
       WHERE d.id = x.id RETURNING d.id::text, d.account_id::text`,
      [now, limit, retry],
    );
    for (const d of due) await this.check(d.account_id, d.id);
    return due.length;
  }

  /** Looks the domain up in DNS now and moves it to the state the answer gives. Returns the new row (null: gone). */
  async check(accountId: string, id: string): Promise<DomainRow | null> {
    const [before] = await this.ds.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE d.account_id = $1 AND d.id = $2`, [accountId, id]);
    if (!before) return null;
    const answer = await this.dns.lookup(before.name);
    return this.uow.run(async (m, emit, notify) => {
      const [row] = await m.query<DomainRow[]>(`SELECT ${DOMAIN_COLUMNS} FROM links.domain d WHERE d.account_id = $1 AND d.id = $2 FOR UPDATE`, [accountId, id]);
      if (!row) return null;
      const now = this.clock.now();
      const next = new Date(now.getTime() + this.options.dnsRecheckMs);
      if (row.blocked) return row;
      // a failed lookup (timeout, SERVFAIL) says nothing: the domain keeps its state and is asked again soon
      if (answer.error && answer.cname.length === 0 && answer.a.length === 0) {
        await m.query(`UPDATE links.domain SET checked_at = $2, next_check_at = $3 WHERE id = $1`, [id, now, new Date(now.getTime() + Math.min(this.options.dnsRecheckMs, 60_000))]);
        return row;
      }
      const v = verdictOf(answer, this.options.dns, row.verification_token);
      let state = v.state;
      let reason = v.declinedReason;
      let claimed = false;
      if (v.proven) {
        // one claimant at a time per name: serialise on the name, then look for another holder
        await m.query(`SELECT pg_advisory_xact_lock(hashtext('links.domain.claim'), hashtext($1))`, [row.name]);
        const [holder] = await m.query<Array<{ id: string }>>(`SELECT id::text FROM links.domain WHERE name = $1 AND claimed AND id <> $2`, [row.name, id]);
        if (holder) {
          state = DomainState.Declined;
          reason = DomainDeclinedReason.ClaimedByAnotherAccount;
        } else {
          claimed = true;
        }
      }
      state = limitAdjusted(state, row.messages_limit, row.total_usages);
      // an archived domain stays archived: the check only settles its claim and what a restore goes back to
      const archived = row.state === DomainState.Archived;
      const [after] = await changed<DomainRow>(m, 
        `UPDATE links.domain d SET state = $2, state_before_archive = $3, declined_reason = $4, claimed = $5, type = $6, ip = $7, checked_at = $8, next_check_at = $9, updated_at = $8
         WHERE d.id = $1 RETURNING ${DOMAIN_COLUMNS}`,
        [id, archived ? DomainState.Archived : state, archived ? state : null, reason, claimed, v.type, v.ip, now, next],
      );
      if (after.state !== row.state || after.declined_reason !== row.declined_reason || after.claimed !== row.claimed || (archived && after.state_before_archive !== row.state_before_archive)) {
        announceDomain(emit, notify, after, now);
      }
      return after;
    });
  }
}
