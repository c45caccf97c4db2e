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
  credentials: Record<string, string>;
  enabled: boolean;
  tps: number;
  authState: Record<string, unknown> | null;
}

const SC_COLS = `stream_id::text AS "streamId", account_id::text AS "accountId", stream_uid AS "streamUid", stream_type AS "streamType",
  channel, sender, credentials, enabled, tps, auth_state AS "authState"`;

/** What dispatch keeps of other services: account limits (accounts) and stream channel settings (streams). */
@Injectable()
export class ReadModelRepository {
  constructor(@InjectDataSource(DISPATCH_CONNECTION) readonly ds: DataSource) {}

  async upsertAccountLimit(q: Pick<EntityManager, 'query'>, accountId: string, tps: number, status: string): Promise<void> {
    await q.query(
      `INSERT INTO dispatch.account_limit (account_id, tps, status) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET tps = EXCLUDED.tps, status = EXCLUDED.status, updated_at = now()`,
      [accountId, tps, status],
    );
  }

  accountLimits(): Promise<Array<{ accountId: string; tps: number }>> {
    return this.ds.query(`SELECT account_id::text AS "accountId", tps FROM dispatch.account_limit`);
  }

  async upsertStreamChannel(q: Pick<EntityManager, 'query'>, s: Omit<StreamChannelRow, 'tps' | 'authState'>): Promise<void> {
    await q.query(
      `INSERT INTO dispatch.stream_channel (stream_id, account_id, stream_uid, stream_type, channel, sender, credentials, enabled)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (stream_id) DO UPDATE SET account_id = EXCLUDED.account_id, stream_uid = EXCLUDED.stream_uid, stream_type = EXCLUDED.stream_type,
         channel = EXCLUDED.channel, sender = EXCLUDED.sender, credentials = EXCLUDED.credentials, enabled = EXCLUDED.enabled, updated_at = now(),
         -- a Telegram private stream moved to another phone logs in again
         auth_state = CASE WHEN dispatch.stream_channel.credentials->>'phone' IS DISTINCT FROM EXCLUDED.credentials->>'phone' THEN NULL ELSE dispatch.stream_channel.auth_state END`,
      [s.streamId, s.accountId, s.streamUid, s.streamType, s.channel, s.sender, JSON.stringify(s.credentials), s.enabled],
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

  /** The enabled stream that sends from this number / phone number id / bot on this channel. */
  async streamChannelBySender(channel: string, sender: string): Promise<StreamChannelRow | null> {
    const rows = await this.ds.query<StreamChannelRow[]>(
      `SELECT ${SC_COLS} FROM dispatch.stream_channel WHERE channel = $1 AND sender = $2 ORDER BY enabled DESC, updated_at DESC LIMIT 1`,
      [channel, sender],
    );
    return rows[0] ?? null;
  }

  /**
   * For inbound SMS with no stream registered for the number: the stream of the latest message we sent from that
   * number to that contact (a reply to it).
   */
  async lastOutboundTo(channel: string, sender: string, destination: string): Promise<{ accountId: string; streamId: string; streamUid: string; streamType: number } | null> {
    const rows = await this.ds.query<Array<{ accountId: string; streamId: string; streamUid: string; streamType: number }>>(
      `SELECT account_id::text AS "accountId", stream_id::text AS "streamId", stream_uid AS "streamUid", stream_type AS "streamType"
         FROM dispatch.message WHERE channel = $1 AND destination = ANY($3::text[]) AND sender = ANY($2::text[]) ORDER BY id DESC LIMIT 1`,
      [channel, [sender, sender.replace(/^\+/, ''), `+${sender.replace(/^\+/, '')}`], [destination, destination.replace(/^\+/, ''), `+${destination.replace(/^\+/, '')}`]],
    );
    return rows[0] ?? null;
  }
}
