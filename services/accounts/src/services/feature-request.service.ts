import { Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode, FeatureAccessRequestedV1 } from '@switchboard/contracts';
import { AppError, Mailer, type Principal } from '@switchboard/platform';
import { ACCOUNTS_OPTIONS, type ResolvedAccountsOptions } from '../accounts.options';
import type { FeatureAccessRequestDto } from '../dtos/customer.dto';
import { FeatureRequestRepository } from '../repositories';
import { AccountGate } from './account-gate.service';
import { AccountsUnitOfWork } from './accounts-events.service';

export interface FeatureRequestDto {
  id: number;
  feature: string;
  message: string;
  status: 'accepted';
  createdAt: string;
}

/**
 * Spec 4: a feature request ends "accepted", "already sent" or "failed", decided by the response status:
 * 201 accepted, 409 already sent (one open request per account and feature), anything else failed.
 */
@Injectable()
export class FeatureRequestService {
  private readonly logger = new Logger('accounts');

  constructor(
    private readonly requests: FeatureRequestRepository,
    private readonly gate: AccountGate,
    private readonly uow: AccountsUnitOfWork,
    @Inject(Mailer) private readonly mailer: Mailer,
    @Inject(ACCOUNTS_OPTIONS) private readonly options: ResolvedAccountsOptions,
  ) {}

  async request(p: Principal, dto: FeatureAccessRequestDto): Promise<FeatureRequestDto> {
    const account = await this.gate.current(p);
    const message = (dto.message ?? '').trim();
    const saved = await this.uow.run(async (m, emit) => {
      const r = await this.requests.insertPending({ accountId: account.id, userId: p.userId, email: p.email, feature: dto.feature, message }, m);
      if (!r) throw AppError.conflict('a request for this feature was already sent', ErrorCode.Conflict);
      emit(FeatureAccessRequestedV1, { requestId: r.id, accountId: account.id, userId: p.userId, email: p.email, feature: r.feature, message }, account.id);
      return r;
    });
    await this.mail(account.name, account.id, p.email, dto.feature, message);
    return { id: Number(saved.id), feature: saved.feature, message: saved.message, status: 'accepted', createdAt: new Date(saved.createdAt).toISOString() };
  }

  /** Best effort: the request is recorded and published whether or not the mail goes out. */
  private async mail(accountName: string, accountId: string, from: string | null, feature: string, message: string): Promise<void> {
    for (const to of this.options.featureRequestRecipients) {
      try {
        await this.mailer.send({
          to,
          subject: `Feature access request: ${feature} for ${accountName}`,
          text: `${from ?? 'A user'} of account "${accountName}" (#${accountId}) asks for access to ${feature}.\n\n${message}`,
        });
      } catch (e) {
        this.logger.warn(`feature request mail to ${to} failed: ${(e as Error).message}`);
      }
    }
  }
}
