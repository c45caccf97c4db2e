import { MessageChargedV1, MessageRefundDueV1 } from '@switchboard/contracts';
import { fastCharge, fastRefund } from './messaging.consumer';

/** What the schema's parse gives (its data, or undefined when it refuses). */
const zod = (schema: { safeParse: (d: unknown) => { success: boolean; data?: unknown } }, d: unknown) => {
  const r = schema.safeParse(d);
  return r.success ? r.data : undefined;
};

const uuid = '0f8fad5b-d9cb-469f-a165-70867728950e';
const charge = { messageUuid: uuid, accountId: '42', amountMicros: 45_000, currency: 'EUR', balanceAfterMicros: -1 };
const refund = { messageUuid: uuid, accountId: '42', amountMicros: 45_000, currency: 'EUR', reason: 'no route' };

/** Each field replaced by values the schema may refuse or take, and the data as a whole replaced by non-objects. */
function variants(base: Record<string, unknown>): unknown[] {
  const values: unknown[] = [
    undefined, null, '', ' ', 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '12', '0012', '1e3', 'abc', 'EU', 'EURO', 'E"R', '€€€',
    uuid.toUpperCase(), uuid.replace(/-/g, ''), `${uuid} `, `{${uuid}}`, '00000000-0000-0000-0000-000000000000', [], {}, true, 12n,
  ];
  const out: unknown[] = [base, { ...base, extra: 'stripped' }, null, [], 'text', 7, [base]];
  for (const key of Object.keys(base)) {
    const { [key]: _dropped, ...without } = base;
    out.push(without);
    for (const v of values) out.push({ ...base, [key]: v });
  }
  return out;
}

describe("the ledger's hand-written checks of charges and refunds", () => {
  it('take what the schema takes and give what its parse gives, and leave to the schema what it refuses', () => {
    for (const [fast, schema, base] of [
      [fastCharge, MessageChargedV1.schema, charge],
      [fastRefund, MessageRefundDueV1.schema, refund],
    ] as const) {
      for (const d of variants(base)) {
        // the same answer as the schema's for each: taken with the same data, or left to the schema (which refuses it)
        expect([d, fast(d)]).toEqual([d, zod(schema, d)]);
      }
    }
  });

  it('keep only the fields of the schema, in a new object', () => {
    const d = { ...charge, extra: 1 };
    const mine = fastCharge(d);
    expect(mine).toEqual(charge);
    expect(mine).not.toBe(d);
    expect(Object.keys(fastRefund({ ...refund, extra: 1 })!)).toEqual(Object.keys(refund));
  });
});
