import { formatReceipt, parseReceipt } from './dlr';
import { iso2OfNumber } from './country';

describe('SMPP delivery receipts', () => {
  it('parses the appendix-B text format', () => {
    const r = parseReceipt('id:0A1B2C sub:001 dlvrd:001 submit date:2611221200 done date:2611221201 stat:DELIVRD err:000 text:Hello');
    expect(r).toEqual({ providerMessageId: '0A1B2C', stat: 'DELIVRD', err: '000', outcome: 'delivered', submitDate: '2611221200', doneDate: '2611221201' });
  });

  it.each([
    ['UNDELIV', 'undelivered'],
    ['EXPIRED', 'undelivered'],
    ['REJECTD', 'undelivered'],
    ['DELETED', 'undelivered'],
    ['ENROUTE', 'intermediate'],
    ['ACCEPTD', 'intermediate'],
  ])('maps stat:%s to %s', (stat, outcome) => {
    expect(parseReceipt(`id:1 stat:${stat} err:001`)?.outcome).toBe(outcome);
  });

  it('prefers the receipted_message_id and message_state TLVs', () => {
    expect(parseReceipt('id:123 stat:DELIVRD', { receiptedMessageId: 'abc', messageState: 5 })).toMatchObject({ providerMessageId: 'abc', outcome: 'undelivered' });
  });

  it('reads its own output and refuses a receipt without id', () => {
    expect(parseReceipt(formatReceipt('ff01', 'DELIVRD'))?.providerMessageId).toBe('ff01');
    expect(parseReceipt('stat:DELIVRD')).toBeNull();
  });
});

describe('country of a number', () => {
  it.each([
    ['+4915112345678', 'DE'],
    ['+447700900123', 'GB'],
    ['+14165550123', 'CA'],
    ['+12025550123', 'US'],
    ['+79161234567', 'RU'],
    ['+77011234567', 'KZ'],
    ['+380501234567', 'UA'],
    ['+35312345678', 'IE'],
  ])('%s is %s', (n, iso) => expect(iso2OfNumber(n)).toBe(iso));
});
