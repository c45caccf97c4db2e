import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LessThan, type DataSource, type EntityManager } from 'typeorm';
import { AUTH_CONNECTION } from '../auth.options';
import { LoginFailureEntity, type LoginFailureScope } from '../entities';

@Injectable()
export class LoginFailureRepository {
  constructor(@InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource) {}

  private repo(m?: EntityManager) {
    return (m ?? this.ds.manager).getRepository(LoginFailureEntity);
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
