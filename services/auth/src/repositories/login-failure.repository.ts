import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LessThan, type DataSource, type EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { updatedRows as updatedRowsOf } from './sql';
import { LoginFailureEntity, type LoginFailureScope } from '../entities';

@Injectable()
export class LoginFailureRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(LoginFailureEntity);
  }

  /**
   * The sign-in attempt counted as a failure before it is judged, in one step with the check: each subject's
   * failures are read under a transaction-scoped advisory lock on that subject, so concurrent attempts queue and
   * cannot all see "below the limit" before any of them is recorded. Answers the rows written, or the seconds to
   * wait (and writes nothing) when a subject is over its limit.
   */
  async reserve(entries: Array<{ scope: LoginFailureScope; subject: string; wait: (recent: Date[]) => number; since: Date; limit: number }>, at: Date): Promise<{ ids: string[] } | { wait: number }> {
    const ordered = [...entries].sort((x, y) => `${x.scope}:${x.subject}`.localeCompare(`${y.scope}:${y.subject}`));
    return this.ds.transaction(async (m) => {
      let wait = 0;
      for (const e of ordered) {
        await m.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`auth.login_failure:${e.scope}:${e.subject}`]);
        wait = Math.max(wait, e.wait(await this.recent(e.scope, e.subject, e.since, e.limit, m)));
      }
      if (wait > 0) return { wait };
      const rows = updatedRowsOf<{ id: string }>(
        await m.query(
          `INSERT INTO auth.login_failure (scope, subject, failed_at) SELECT s, sub, $3 FROM unnest($1::text[], $2::text[]) AS t(s, sub) RETURNING id::text AS id`,
          [ordered.map((e) => e.scope), ordered.map((e) => e.subject), at],
        ),
      );
      return { ids: rows.map((r) => r.id) };
    });
  }

  /** The attempt of `ids` succeeded: it is no failure. With `forgiveEmail`, the email's earlier failures go too. */
  async release(ids: string[], forgiveEmail: string | null): Promise<void> {
    if (!ids.length) return;
    await this.ds.query(
      `DELETE FROM auth.login_failure WHERE id = ANY($1::bigint[])
         OR ($2::text IS NOT NULL AND scope = 'email' AND subject = $2 AND id < (SELECT max(x) FROM unnest($1::bigint[]) AS x))`,
      [ids, forgiveEmail],
    );
  }

  async record(entries: Array<{ scope: LoginFailureScope; subject: string }>, at: Date, m?: EntityManager): Promise<void> {
    if (!entries.length) return;
    await this.repo(m).insert(entries.map((e) => ({ ...e, failedAt: at })));
  }

  /** The `limit` most recent failure times after `since`, newest first. */
  async recent(scope: LoginFailureScope, subject: string, since: Date, limit: number, m?: EntityManager): Promise<Date[]> {
    const rows = await this.repo(m)
      .createQueryBuilder('f')
      .select('f.failedAt', 'failedAt')
      .where('f.scope = :scope AND f.subject = :subject AND f.failedAt > :since', { scope, subject, since })
      .orderBy('f.failedAt', 'DESC')
      .limit(limit)
      .getRawMany<{ failedAt: Date }>();
    return rows.map((r) => new Date(r.failedAt));
  }

  async clear(scope: LoginFailureScope, subject: string, m?: EntityManager): Promise<void> {
    await this.repo(m).delete({ scope, subject });
  }

  async pruneBefore(before: Date, m?: EntityManager): Promise<void> {
    await this.repo(m).delete({ failedAt: LessThan(before) });
  }
}
