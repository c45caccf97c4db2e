import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ownershipGrant, shareSchedule, type OtherShare, type ShareKey } from '../domain/rate-shares';
import { DISPATCH_CONNECTION } from '../dispatch.options';

export interface ShareRequest {
  key: ShareKey;
  rate: number;
  demand: number;
  saturated: boolean;
  /** ms until the last message this replica booked under its current share goes out (0: none waiting). */
  pendingMs: number;
}

export interface ShareGrant {
  key: ShareKey;
  rate: number;
  /** Usable now. */
  share: number;
  /** A larger share usable `afterMs` from the renewal's answer (other replicas' lowered shares count until then). */
  later: { share: number; afterMs: number } | null;
  /** Ownership mode: the replica that holds the whole limit when it is not this one. */
  owner?: string | null;
}

interface ShareRow {
  key: string;
  instance_id: string;
  share: number;
  prior_share: number;
  prior_live: boolean;
  prior_ms: number;
  demand: number;
  saturated: boolean;
}

/**
 * A lowered share counts as held this long past the replica's last booked message: its timer may fire late on a
 * loaded machine (and the SMSC sees it a little later still).
 */
const PENDING_MARGIN_MS = 150;

/** One lock for every renewal of every replica: a renewal is a few milliseconds, a few times a second per replica. */
const SHARE_LOCK = `hashtext('switchboard.dispatch.rate_share')`;

/** Grants shares of rates across replicas in `dispatch.rate_share` (docs/decisions/0047-limits-across-replicas.md). */
@Injectable()
export class RateShareRepository {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource) {}

  /**
   * Renews this replica's shares: under the lock, each requested limit gets `shareFor` of its rate given the other
   * live replicas' rows, and the row is written with a lease of `leaseMs`. A share lowered is still counted as held
   * until the messages booked under it have gone out (the request's `pendingMs`, with a margin for late timers, at most
   * `holdMs`); a replica with nothing booked gives its share up at once. A limit given up in `drop` counts for `holdMs`.
   */
  async renew(instanceId: string, requests: ShareRequest[], drop: ShareKey[], leaseMs: number, holdMs: number, ownership = false): Promise<ShareGrant[]> {
    return this.ds.transaction(async (m) => {
      await m.query(`SELECT pg_advisory_xact_lock(${SHARE_LOCK})`);
      await m.query(`DELETE FROM dispatch.rate_share WHERE expires_at < now()`);
      const keys = requests.map((r) => r.key);
      const rows: ShareRow[] = keys.length
        ? await m.query(
            `SELECT key, instance_id::text, share, prior_share, coalesce(prior_until > now(), false) AS prior_live,
                    greatest(0, extract(epoch FROM prior_until - clock_timestamp()) * 1000)::float8 AS prior_ms, demand, saturated
               FROM dispatch.rate_share WHERE key = ANY($1::text[])`,
            [keys],
          )
        : [];
      const others = new Map<string, Array<OtherShare & { instanceId: string }>>();
      const mine = new Map<string, ShareRow>();
      for (const r of rows) {
        if (r.instance_id === instanceId) mine.set(r.key, r);
        else {
          const list = others.get(r.key) ?? [];
          const holding = Math.max(Number(r.share), r.prior_live ? Number(r.prior_share) : 0);
          // a lowered share that ends: counted until a little after its end (this answer's clocks are the database's)
          const priorMs = r.prior_live && Number(r.prior_share) > Number(r.share) ? Math.max(1, Number(r.prior_ms ?? 0)) : 0;
          list.push({ instanceId: r.instance_id, holding, share: Number(r.share), priorMs, demand: Number(r.demand), saturated: r.saturated });
          others.set(r.key, list);
        }
      }
      const grants: ShareGrant[] = [];
      const cols = { key: [] as string[], rate: [] as number[], share: [] as number[], prior: [] as number[], lowered: [] as boolean[], demand: [] as number[], saturated: [] as boolean[], hold: [] as number[] };
      for (const r of requests) {
        const owned = ownership ? ownershipGrant(r.rate, others.get(r.key) ?? []) : null;
        const plan = owned ? { share: owned.share, later: null } : shareSchedule(r.rate, r, others.get(r.key) ?? []);
        // the row holds the later share from now: every other replica counts it as held at once
        const share = plan.later ? plan.later.share : plan.share;
        const own = mine.get(r.key);
        // lowered below what it used until now: the old share counts for the hold horizon (with a still live older one)
        const current = own ? Number(own.share) : 0;
        const holding = own ? Math.max(current, own.prior_live ? Number(own.prior_share) : 0) : 0;
        grants.push({ key: r.key, rate: r.rate, share: plan.share, later: plan.later, owner: owned?.owner ?? null });
        cols.key.push(r.key);
        cols.rate.push(r.rate);
        cols.share.push(share);
        cols.prior.push(holding);
        cols.lowered.push(share < current);
        cols.demand.push(r.demand);
        cols.saturated.push(r.saturated);
        cols.hold.push(Math.min(holdMs, Math.max(0, r.pendingMs) + PENDING_MARGIN_MS));
      }
      if (grants.length) {
        await m.query(
          `INSERT INTO dispatch.rate_share AS s (key, instance_id, rate, share, prior_share, prior_until, demand, saturated, expires_at)
           SELECT k, $2::uuid, rate, share, CASE WHEN lowered THEN prior ELSE 0 END,
                  CASE WHEN lowered THEN now() + hold * interval '1 millisecond' END, demand, saturated, now() + $9 * interval '1 millisecond'
             FROM unnest($1::text[], $3::float8[], $4::float8[], $5::float8[], $6::bool[], $7::float8[], $8::bool[], $10::float8[]) AS x(k, rate, share, prior, lowered, demand, saturated, hold)
           ON CONFLICT (key, instance_id) DO UPDATE SET
             rate = EXCLUDED.rate, share = EXCLUDED.share, demand = EXCLUDED.demand, saturated = EXCLUDED.saturated, expires_at = EXCLUDED.expires_at,
             prior_share = CASE WHEN EXCLUDED.prior_until IS NOT NULL THEN EXCLUDED.prior_share ELSE s.prior_share END,
             prior_until = coalesce(EXCLUDED.prior_until, s.prior_until)`,
          [cols.key, instanceId, cols.rate, cols.share, cols.prior, cols.lowered, cols.demand, cols.saturated, leaseMs, cols.hold],
        );
      }
      if (drop.length) {
        // given up: held for the hold horizon (messages already booked still go out), then free
        await m.query(
          `UPDATE dispatch.rate_share
              SET prior_share = greatest(share, CASE WHEN prior_until > now() THEN prior_share ELSE 0 END), share = 0,
                  prior_until = now() + $3 * interval '1 millisecond', expires_at = now() + $3 * interval '1 millisecond'
            WHERE instance_id = $1::uuid AND key = ANY($2::text[])`,
          [instanceId, drop, holdMs],
        );
      }
      return grants;
    });
  }

  /**
   * A replica stopping with nothing booked left: its shares are free at once, or after `holdMs` (ownership, 0094: its
   * sends of the last second still count in a carrier's window, and the next owner's window starts empty).
   */
  async release(instanceId: string, holdMs = 0): Promise<void> {
    if (holdMs <= 0) {
      await this.ds.query(`DELETE FROM dispatch.rate_share WHERE instance_id = $1::uuid`, [instanceId]);
      return;
    }
    await this.ds.query(
      `UPDATE dispatch.rate_share
          SET prior_share = greatest(share, CASE WHEN prior_until > now() THEN prior_share ELSE 0 END), share = 0,
              prior_until = now() + $2 * interval '1 millisecond', expires_at = now() + $2 * interval '1 millisecond'
        WHERE instance_id = $1::uuid`,
      [instanceId, holdMs],
    );
  }
}
