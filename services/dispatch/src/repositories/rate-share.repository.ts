import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ShareKey } from '../domain/rate-shares';
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
}

/**
 * A lowered share counts as held this long past the replica's last booked message: its timer may fire late on a
 * loaded machine (and the SMSC sees it a little later still).
 */
const PENDING_MARGIN_MS = 150;

/** Grants shares of rates across replicas in `dispatch.rate_share` (docs/decisions/0047-limits-across-replicas.md). */
@Injectable()
export class RateShareRepository {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource) {}

  /**
   * Renews this replica's shares in one statement (`dispatch.renew_rate_shares`, migration 1797100000000; 0081): under
   * the lock, each requested limit gets `shareSchedule` of its rate given the other live replicas' rows, and the row is
   * written with a lease of `leaseMs`. A share lowered is still counted as held until the messages booked under it have
   * gone out (the request's `pendingMs`, with a margin for late timers, at most `holdMs`); a replica with nothing
   * booked gives its share up at once. A limit given up in `drop` counts for `holdMs`. The lock is held inside
   * PostgreSQL for the one call, never across this process's event loop turns.
   */
  async renew(instanceId: string, requests: ShareRequest[], drop: ShareKey[], leaseMs: number, holdMs: number): Promise<ShareGrant[]> {
    const rows: Array<{ o_key: string; o_share: number; o_later: number | null; o_later_ms: number | null }> = await this.ds.query(
      `SELECT o_key, o_share, o_later, o_later_ms FROM dispatch.renew_rate_shares($1::uuid, $2::text[], $3::float8[], $4::float8[], $5::bool[], $6::float8[], $7::text[], $8, $9, $10)`,
      [
        instanceId,
        requests.map((r) => r.key),
        requests.map((r) => r.rate),
        requests.map((r) => r.demand),
        requests.map((r) => r.saturated),
        requests.map((r) => r.pendingMs),
        drop,
        leaseMs,
        holdMs,
        PENDING_MARGIN_MS,
      ],
    );
    const byKey = new Map(rows.map((r) => [r.o_key, r]));
    return requests.map((r) => {
      const g = byKey.get(r.key);
      const later = g && g.o_later != null ? { share: Number(g.o_later), afterMs: Number(g.o_later_ms) } : null;
      return { key: r.key, rate: r.rate, share: g ? Number(g.o_share) : 0, later };
    });
  }

  /** A replica stopping with nothing booked left: its shares are free at once. */
  async release(instanceId: string): Promise<void> {
    await this.ds.query(`DELETE FROM dispatch.rate_share WHERE instance_id = $1::uuid`, [instanceId]);
  }
}
