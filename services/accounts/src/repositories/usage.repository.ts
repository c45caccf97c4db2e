import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { ACCOUNTS_CONNECTION } from '../accounts.options';

/** Per-account, per-UTC-day counters of accepted messages. */
@Injectable()
export class UsageRepository {
  constructor(@InjectDataSource(ACCOUNTS_CONNECTION) private readonly ds: DataSource) {}

  async add(accountId: string, day: string, messages: number, segments: number, m: EntityManager): Promise<void> {
    await m.query(
      `INSERT INTO accounts.daily_usage (account_id, day, messages, segments) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, day) DO UPDATE SET messages = daily_usage.messages + EXCLUDED.messages, segments = daily_usage.segments + EXCLUDED.segments`,
      [accountId, day, messages, segments],
    );
  }

  async messagesOn(accountId: string, day: string): Promise<number> {
    const rows = await this.ds.query<Array<{ messages: string }>>(`SELECT messages FROM accounts.daily_usage WHERE account_id = $1 AND day = $2`, [accountId, day]);
    return rows.length ? Number(rows[0].messages) : 0;
  }
}
