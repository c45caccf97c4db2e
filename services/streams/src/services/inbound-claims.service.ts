import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ErrorCode, InboundRouteChangedV1, type InboundClaimChannelValue } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import { Clock } from '../clock';
import type { Emit } from './streams-events.service';

export interface InboundTarget {
  channel: InboundClaimChannelValue;
  /** `inboundAddress()` spelling. */
  address: string;
}

/** Who holds a claim: one stream or one sender; each holds at most one address. */
export type ClaimHolder = { kind: 'stream'; id: string } | { kind: 'sender'; id: string };

const holderKey = (h: ClaimHolder): string => `${h.kind}:${h.id}`;

/** The error of a second account claiming an address (the owner is not named). */
export function claimedElsewhere(propertyPath: string, what: string): AppError {
  const message = `${what} already receives messages in another account; it can belong to one account only`;
  return new AppError(409, ErrorCode.Conflict, message, [{ propertyPath, message, code: 'inboundClaimed' }]);
}

/**
 * Exclusive inbound ownership (docs/decisions/0021): an address belongs to the account whose stream or sender first
 * claimed it, until its last holder lets go. Every change runs in the caller's transaction `m`: the claim row is the
 * lock (a concurrent claim of the same address waits on its insert and then sees the owner), and the route event for
 * dispatch is written to the outbox in the same commit.
 */
@Injectable()
export class InboundClaimService {
  constructor(private readonly clock: Clock) {}

  /** The address the holder holds now, if any. */
  async current(m: Pick<EntityManager, 'query'>, holder: ClaimHolder): Promise<InboundTarget | null> {
    const rows = await m.query<Array<{ channel: InboundClaimChannelValue; address: string }>>(`SELECT channel, address FROM streams.inbound_claim_holder WHERE holder = $1`, [holderKey(holder)]);
    return rows[0] ?? null;
  }

  /** The account owning an address (null: unclaimed). */
  async owner(m: Pick<EntityManager, 'query'>, target: InboundTarget): Promise<string | null> {
    const rows = await m.query<Array<{ account_id: string }>>(`SELECT account_id::text FROM streams.inbound_claim WHERE channel = $1 AND address = $2`, [target.channel, target.address]);
    return rows[0]?.account_id ?? null;
  }

  /**
   * Makes `holder` of `accountId` hold `target` (null: nothing), releasing what it held before. Throws
   * `claimedElsewhere` when another account owns the target; the caller's transaction then rolls back.
   */
  async set(m: Pick<EntityManager, 'query'>, emit: Emit, accountId: string, holder: ClaimHolder, target: InboundTarget | null, refusal: { propertyPath: string; what: string }): Promise<void> {
    const key = holderKey(holder);
    const before = await this.current(m, holder);
    if (before && target && before.channel === target.channel && before.address === target.address) return;
    if (before) await this.release(m, emit, before, key);
    if (target) {
      await m.query(`INSERT INTO streams.inbound_claim (channel, address, account_id) VALUES ($1, $2, $3) ON CONFLICT (channel, address) DO NOTHING`, [target.channel, target.address, accountId]);
      const [claim] = await m.query<Array<{ account_id: string; stream_id: string | null }>>(
        `SELECT account_id::text, stream_id::text FROM streams.inbound_claim WHERE channel = $1 AND address = $2 FOR UPDATE`,
        [target.channel, target.address],
      );
      if (!claim || claim.account_id !== accountId) throw claimedElsewhere(refusal.propertyPath, refusal.what);
      await m.query(`INSERT INTO streams.inbound_claim_holder (channel, address, holder, account_id) VALUES ($1, $2, $3, $4)`, [target.channel, target.address, key, accountId]);
      if (holder.kind === 'stream' && claim.stream_id === null) {
        await m.query(`UPDATE streams.inbound_claim SET stream_id = $3 WHERE channel = $1 AND address = $2`, [target.channel, target.address, holder.id]);
        this.route(emit, target, accountId, holder.id);
      } else if (claim.stream_id === null) this.route(emit, target, accountId, null);
    }
  }

  /** Drops the holder's claim on `target`; the claim goes with its last holder, and a receiving stream is replaced. */
  private async release(m: Pick<EntityManager, 'query'>, emit: Emit, target: InboundTarget, key: string): Promise<void> {
    await m.query(`DELETE FROM streams.inbound_claim_holder WHERE channel = $1 AND address = $2 AND holder = $3`, [target.channel, target.address, key]);
    const [claim] = await m.query<Array<{ account_id: string; stream_id: string | null }>>(
      `SELECT account_id::text, stream_id::text FROM streams.inbound_claim WHERE channel = $1 AND address = $2 FOR UPDATE`,
      [target.channel, target.address],
    );
    if (!claim) return;
    const rest = await m.query<Array<{ holder: string }>>(`SELECT holder FROM streams.inbound_claim_holder WHERE channel = $1 AND address = $2 ORDER BY created_at, holder`, [target.channel, target.address]);
    if (rest.length === 0) {
      await m.query(`DELETE FROM streams.inbound_claim WHERE channel = $1 AND address = $2`, [target.channel, target.address]);
      this.route(emit, target, null, null);
      return;
    }
    if (claim.stream_id !== null && `stream:${claim.stream_id}` !== key) return;
    const next = rest.find((r) => r.holder.startsWith('stream:'))?.holder.slice('stream:'.length) ?? null;
    await m.query(`UPDATE streams.inbound_claim SET stream_id = $3 WHERE channel = $1 AND address = $2`, [target.channel, target.address, next]);
    this.route(emit, target, claim.account_id, next);
  }

  private route(emit: Emit, target: InboundTarget, accountId: string | null, streamId: string | null): void {
    emit(InboundRouteChangedV1, { channel: target.channel, address: target.address, accountId, streamId, occurredAt: this.clock.now().toISOString() }, accountId);
  }
}
