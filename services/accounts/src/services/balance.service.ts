import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BalanceAdjustedV1, MessageChargedV1, MessageRefundDueV1, type EventData } from '@switchboard/contracts';
import { AppError, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import type { EntityManager } from 'typeorm';
import type { BalanceAdjustmentDto } from '../dtos/customer.dto';
import { BalanceEntryKind, type BalanceEntryEntity } from '../entities';
import { CustomerRepository, LedgerRepository } from '../repositories';
import { currencySign, fromMicros, microsToNumber, toMicros } from '../rules/money';
import { AccountGate } from './account-gate.service';
import { AccountsUnitOfWork, type Emit, type Notify } from './accounts-events.service';
import { toBalanceEntryDto, type BalanceEntryDto } from './customer-view';

export interface BalanceDto {
  balance: number;
  balanceMicros: string;
  currency: string;
  currencySign: string;
}

export interface AdjustmentResult extends BalanceDto {
  entry: BalanceEntryDto;
}

const balanceOf = (e: BalanceEntryEntity): BalanceDto => ({
  balance: fromMicros(e.balanceAfterMicros),
  balanceMicros: String(e.balanceAfterMicros),
  currency: e.currency,
  currencySign: currencySign(e.currency),
});

/**
 * The balance ledger. Money moves only through entries: super-admin adjustments (emitting BalanceAdjustedV1 for
 * streams' read model), charges taken when streams accepts a message, refunds when dispatch could not send it.
 */
@Injectable()
export class BalanceService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly customers: CustomerRepository,
    private readonly gate: AccountGate,
    private readonly uow: AccountsUnitOfWork,
  ) {}

  async adjust(p: Principal, id: string, dto: BalanceAdjustmentDto): Promise<AdjustmentResult> {
    const amount = toMicros(dto.amount)!;
    const entry = await this.uow.run(async (m, emit, notify) => {
      const c = await this.customers.findById(id, m);
      if (!c) throw AppError.notFound('customer');
      return this.adjustIn(m, emit, notify, { accountId: id, currency: c.currency, amountMicros: amount, reason: dto.reason.trim(), createdBy: p.userId });
    });
    return { ...balanceOf(entry), entry: toBalanceEntryDto(entry) };
  }

  /** An adjustment in the caller's transaction (seeding credits the demo account with it). */
  async adjustIn(
    m: EntityManager,
    emit: Emit,
    notify: Notify,
    a: { accountId: string; currency: string; amountMicros: bigint; reason: string; createdBy: string | null },
  ): Promise<BalanceEntryEntity> {
    const adjustmentId = randomUUID();
    const entry = (await this.ledger.apply({ ...a, kind: BalanceEntryKind.Adjustment, sourceId: adjustmentId }, m))!;
    emit(BalanceAdjustedV1, { accountId: a.accountId, adjustmentId, amountMicros: microsToNumber(a.amountMicros), currency: a.currency, reason: a.reason }, a.accountId);
    notify({ accountId: a.accountId, type: 'balance.changed', data: { ...balanceOf(entry), kind: entry.kind } });
    return entry;
  }

  /**
   * Charges and refunds of a batch of messaging events, in order, each once per message (the ledger's source key):
   * one balance update per account. Realtime gets each account's balance after its last new entry.
   */
  async recordMany(
    m: EntityManager,
    notify: Notify,
    items: Array<{ charge: EventData<typeof MessageChargedV1> } | { refund: EventData<typeof MessageRefundDueV1> }>,
  ): Promise<number> {
    const booked = await this.ledger.applyMany(
      items.map((i) =>
        'charge' in i
          ? { accountId: i.charge.accountId, kind: BalanceEntryKind.Charge, sourceId: i.charge.messageUuid, amountMicros: -BigInt(i.charge.amountMicros), currency: i.charge.currency, reason: 'message charged', createdBy: null }
          : { accountId: i.refund.accountId, kind: BalanceEntryKind.Refund, sourceId: i.refund.messageUuid, amountMicros: BigInt(i.refund.amountMicros), currency: i.refund.currency, reason: i.refund.reason || 'message refunded', createdBy: null },
      ),
      m,
    );
    let n = 0;
    for (const b of booked) {
      n += b.inserted;
      notify({
        accountId: b.accountId,
        type: 'balance.changed',
        data: { balance: fromMicros(b.balanceAfterMicros), balanceMicros: b.balanceAfterMicros, currency: b.currency, currencySign: currencySign(b.currency), kind: b.kind },
      });
    }
    return n;
  }

  /** A charge streams took for an accepted message: the balance goes down by its amount, once per message. */
  async recordCharge(m: EntityManager, notify: Notify, d: EventData<typeof MessageChargedV1>): Promise<boolean> {
    const entry = await this.ledger.apply(
      { accountId: d.accountId, kind: BalanceEntryKind.Charge, sourceId: d.messageUuid, amountMicros: -BigInt(d.amountMicros), currency: d.currency, reason: 'message charged', createdBy: null },
      m,
    );
    if (entry) notify({ accountId: d.accountId, type: 'balance.changed', data: { ...balanceOf(entry), kind: entry.kind } });
    return entry !== null;
  }

  /** Money back for a message dispatch could not send, once per message. */
  async recordRefund(m: EntityManager, notify: Notify, d: EventData<typeof MessageRefundDueV1>): Promise<boolean> {
    const entry = await this.ledger.apply(
      { accountId: d.accountId, kind: BalanceEntryKind.Refund, sourceId: d.messageUuid, amountMicros: BigInt(d.amountMicros), currency: d.currency, reason: d.reason || 'message refunded', createdBy: null },
      m,
    );
    if (entry) notify({ accountId: d.accountId, type: 'balance.changed', data: { ...balanceOf(entry), kind: entry.kind } });
    return entry !== null;
  }

  async entries(p: Principal, id: string, query: Record<string, unknown>): Promise<ListResult<BalanceEntryDto>> {
    const c = await this.gate.named(p, id);
    const list = parseListQuery(query, { sortable: ['id'], defaultOrder: { id: 'DESC' } });
    const [rows, total] = await this.ledger.list(c.id, list.skip, list.take);
    return { items: rows.map(toBalanceEntryDto), total };
  }
}
