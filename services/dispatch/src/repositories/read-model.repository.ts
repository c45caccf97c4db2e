import { rowsOf } from './rows';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { DISPATCH_CONNECTION } from '../dispatch.options';

export interface StreamChannelRow {
  streamId: string;
  accountId: string;
  streamUid: string;
  streamType: number;
  channel: string;
  sender: string;
  /** What is not secret (`businessId`, `phone`); the secrets are in `sealedCredentials` only. */
  credentials: Record<string, string>;
  /** `ProviderSecrets.seal(streamUid, …)` of the stream's provider secrets, opened in memory where they are used. */
  sealedCredentials: string | null;
  enabled: boolean;
  tps: number;
  authState: Record<string, unknown> | null;
}

const SC_COLS = `stream_id::text AS "streamId", account_id::text AS "accountId", stream_uid AS "streamUid", stream_type AS "streamType",
  channel, sender, credentials, sealed_credentials AS "sealedCredentials", enabled, tps, auth_state AS "authState"`;

/** Credential keys that are secrets: never stored in the clear, whatever an event of an older version carried. */
export const SECRET_CREDENTIALS: ReadonlySet<string> = new Set(['accessToken', 'botToken', 'verifyToken']);

export interface InboundOwnerRow {
  accountId: string;
  streamId: string | null;
}

/** What an inbound message needs of the stream that receives it. */
export type InboundStreamRow = Pick<StreamChannelRow, 'accountId' | 'streamId' | 'streamUid' | 'streamType'>;

export interface InboundTargetRow {
  owner: InboundOwnerRow;
  stream: InboundStreamRow | null;
  optKeywords: OptKeywords;
}

/** The key of `inboundTargets`' answer. */
export const targetKey = (channel: string, address: string): string => `${channel}\u0000${address}`;

export interface OptKeywords {
  optOut?: string[];
  optIn?: string[];
}

/** What dispatch keeps of other services: account limits (accounts) and stream channel settings (streams). */
@Injectable()
export class ReadModelRepository {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) readonly ds: DataSource) {}

  async upsertAccountLimit(q: Pick<EntityManager, 'query'>, accountId: string, tps: number, status: string, optKeywords: OptKeywords = {}): Promise<void> {
    await q.query(
      `INSERT INTO dispatch.account_limit (account_id, tps, status, opt_keywords) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id) DO UPDATE SET tps = EXCLUDED.tps, status = EXCLUDED.status, opt_keywords = EXCLUDED.opt_keywords, updated_at = now()`,
      [accountId, tps, status, JSON.stringify(optKeywords)],
    );
  }

  async optKeywords(accountId: string): Promise<OptKeywords> {
    const rows = await this.ds.query<Array<{ k: OptKeywords }>>(`SELECT opt_keywords AS k FROM dispatch.account_limit WHERE account_id = $1`, [accountId]);
    return rows[0]?.k ?? {};
  }

  /** `streams.inbound_route.changed`: the owner of an address, or none (`accountId` null). */
  async setInboundOwner(q: Pick<EntityManager, 'query'>, channel: string, address: string, accountId: string | null, streamId: string | null): Promise<void> {
    if (accountId === null) {
      await q.query(`DELETE FROM dispatch.inbound_owner WHERE channel = $1 AND address = $2`, [channel, address]);
      return;
    }
    await q.query(
      `INSERT INTO dispatch.inbound_owner (channel, address, account_id, stream_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (channel, address) DO UPDATE SET account_id = EXCLUDED.account_id, stream_id = EXCLUDED.stream_id, updated_at = now()`,
      [channel, address, accountId, streamId],
    );
  }

  async inboundOwner(channel: string, address: string): Promise<InboundOwnerRow | null> {
    const rows = await this.ds.query<InboundOwnerRow[]>(
      `SELECT account_id::text AS "accountId", stream_id::text AS "streamId" FROM dispatch.inbound_owner WHERE channel = $1 AND address = $2`,
      [channel, address],
    );
    return rows[0] ?? null;
  }

  /**
   * The targets of a batch of inbound messages in one round trip (docs/decisions/0068): for each distinct (channel,
   * address), its owner, the stream the owner names (when that stream is the owner's) and the owner's opt keywords.
   * Keyed by `targetKey`; an address nobody owns is absent.
   */
  async inboundTargets(keys: ReadonlyArray<{ channel: string; address: string }>): Promise<Map<string, InboundTargetRow>> {
    const rows = await this.ds.query<
      Array<{ channel: string; address: string; accountId: string; ownerStreamId: string | null; k: OptKeywords | null; streamId: string | null; streamUid: string; streamType: number }>
    >(
      `SELECT w.channel, w.address, o.account_id::text AS "accountId", o.stream_id::text AS "ownerStreamId", al.opt_keywords AS k,
              sc.stream_id::text AS "streamId", sc.stream_uid AS "streamUid", sc.stream_type AS "streamType"
         FROM unnest($1::text[], $2::text[]) AS w(channel, address)
         JOIN dispatch.inbound_owner o ON o.channel = w.channel AND o.address = w.address
         LEFT JOIN dispatch.account_limit al ON al.account_id = o.account_id
         LEFT JOIN dispatch.stream_channel sc ON sc.stream_id = o.stream_id AND sc.account_id = o.account_id`,
      [keys.map((k) => k.channel), keys.map((k) => k.address)],
    );
    return new Map(
      rows.map((r) => [
        targetKey(r.channel, r.address),
        {
          owner: { accountId: r.accountId, streamId: r.ownerStreamId },
          stream: r.streamId === null ? null : { accountId: r.accountId, streamId: r.streamId, streamUid: r.streamUid, streamType: r.streamType },
          optKeywords: r.k ?? {},
        },
      ]),
    );
  }

  /** The streams of these uids with their accounts' opt keywords, in one round trip (a batch of Telegram webhook messages). */
  async inboundStreamsByUid(uids: readonly string[]): Promise<Map<string, InboundStreamRow & { optKeywords: OptKeywords }>> {
    const rows = await this.ds.query<Array<InboundStreamRow & { k: OptKeywords | null }>>(
      `SELECT sc.stream_id::text AS "streamId", sc.account_id::text AS "accountId", sc.stream_uid AS "streamUid", sc.stream_type AS "streamType", al.opt_keywords AS k
         FROM dispatch.stream_channel sc LEFT JOIN dispatch.account_limit al ON al.account_id = sc.account_id
        WHERE sc.stream_uid = ANY($1::text[])`,
      [uids],
    );
    return new Map(rows.map(({ k, ...s }) => [s.streamUid, { ...s, optKeywords: k ?? {} }]));
  }

  accountLimits(): Promise<Array<{ accountId: string; tps: number }>> {
    return this.ds.query(`SELECT account_id::text AS "accountId", tps FROM dispatch.account_limit`);
  }

  async upsertStreamChannel(q: Pick<EntityManager, 'query'>, s: Omit<StreamChannelRow, 'tps' | 'authState'>): Promise<void> {
    const open = Object.fromEntries(Object.entries(s.credentials).filter(([k]) => !SECRET_CREDENTIALS.has(k)));
    await q.query(
      `INSERT INTO dispatch.stream_channel (stream_id, account_id, stream_uid, stream_type, channel, sender, credentials, enabled, sealed_credentials)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (stream_id) DO UPDATE SET account_id = EXCLUDED.account_id, stream_uid = EXCLUDED.stream_uid, stream_type = EXCLUDED.stream_type,
         channel = EXCLUDED.channel, sender = EXCLUDED.sender, credentials = EXCLUDED.credentials, enabled = EXCLUDED.enabled,
         sealed_credentials = EXCLUDED.sealed_credentials, updated_at = now(),
         -- a Telegram private stream moved to another phone logs in again
         auth_state = CASE WHEN dispatch.stream_channel.credentials->>'phone' IS DISTINCT FROM EXCLUDED.credentials->>'phone' THEN NULL ELSE dispatch.stream_channel.auth_state END`,
      [s.streamId, s.accountId, s.streamUid, s.streamType, s.channel, s.sender, JSON.stringify(open), s.enabled, s.sealedCredentials],
    );
  }

  /**
   * The stream's own TPS from its snapshot (`streams.stream.created` / `updated`). Streams without provider settings
   * (marketing, transactional, OTP) get no `channel_configured`, so their row starts here with no sender (it never
   * matches an inbound number) and disabled; `channel_configured` fills the rest. Leaves `updated_at` alone: it
   * orders streams sharing a sender for inbound messages, which a rate change must not reorder.
   */
  async upsertStreamLimit(q: Pick<EntityManager, 'query'>, s: Pick<StreamChannelRow, 'streamId' | 'accountId' | 'streamUid' | 'streamType' | 'channel' | 'tps'>): Promise<void> {
    await q.query(
      `INSERT INTO dispatch.stream_channel (stream_id, account_id, stream_uid, stream_type, channel, sender, credentials, enabled, tps)
       VALUES ($1, $2, $3, $4, $5, '', '{}'::jsonb, false, $6)
       ON CONFLICT (stream_id) DO UPDATE SET tps = EXCLUDED.tps`,
      [s.streamId, s.accountId, s.streamUid, s.streamType, s.channel, s.tps],
    );
  }

  async setAuthState(streamId: string, state: Record<string, unknown> | null): Promise<void> {
    rowsOf<unknown>(await this.ds.query(`UPDATE dispatch.stream_channel SET auth_state = $2, updated_at = now() WHERE stream_id = $1`, [streamId, state ? JSON.stringify(state) : null]));
  }

  streamChannels(): Promise<StreamChannelRow[]> {
    return this.ds.query(`SELECT ${SC_COLS} FROM dispatch.stream_channel`);
  }

  async streamChannel(streamId: string): Promise<StreamChannelRow | null> {
    const rows = await this.ds.query<StreamChannelRow[]>(`SELECT ${SC_COLS} FROM dispatch.stream_channel WHERE stream_id = $1`, [streamId]);
    return rows[0] ?? null;
  }

  async streamChannelByUid(streamUid: string): Promise<StreamChannelRow | null> {
    const rows = await this.ds.query<StreamChannelRow[]>(`SELECT ${SC_COLS} FROM dispatch.stream_channel WHERE stream_uid = $1`, [streamUid]);
    return rows[0] ?? null;
  }

  /** A stream of this account that sends from one of these spellings of a number / phone number id on this channel. */
  async streamChannelBySender(accountId: string, channel: string, senders: string[]): Promise<StreamChannelRow | null> {
    const rows = await this.ds.query<StreamChannelRow[]>(
      `SELECT ${SC_COLS} FROM dispatch.stream_channel WHERE account_id = $1 AND channel = $2 AND sender = ANY($3::text[]) ORDER BY enabled DESC, stream_id LIMIT 1`,
      [accountId, channel, senders],
    );
    return rows[0] ?? null;
  }

  /**
   * For inbound SMS with no stream registered for the number: the stream of the latest message we sent from that
   * number to that contact (a reply to it).
   */
  async lastOutboundTo(accountId: string, channel: string, senders: string[], destination: string): Promise<{ accountId: string; streamId: string; streamUid: string; streamType: number } | null> {
    const rows = await this.ds.query<Array<{ accountId: string; streamId: string; streamUid: string; streamType: number }>>(
      `SELECT account_id::text AS "accountId", stream_id::text AS "streamId", stream_uid AS "streamUid", stream_type AS "streamType"
         FROM dispatch.message WHERE account_id = $4 AND channel = $1 AND destination = ANY($3::text[]) AND sender = ANY($2::text[]) ORDER BY id DESC LIMIT 1`,
      [channel, senders, [destination, destination.replace(/^\+/, ''), `+${destination.replace(/^\+/, '')}`], accountId],
    );
    return rows[0] ?? null;
  }
}
