import { canAdvance, canAdvanceOutgoing, isFinal } from './status';

describe('message status only moves forward', () => {
  it.each`
    from           | to               | ok
    ${'accepted'}  | ${'sent'}        | ${true}
    ${'accepted'}  | ${'delivered'}   | ${true}
    ${'sent'}      | ${'delivered'}   | ${true}
    ${'sent'}      | ${'undelivered'} | ${true}
    ${'sent'}      | ${'accepted'}    | ${false}
    ${'delivered'} | ${'undelivered'} | ${false}
    ${'delivered'} | ${'sent'}        | ${false}
    ${'rejected'}  | ${'delivered'}   | ${false}
    ${'no_routes'} | ${'sent'}        | ${false}
    ${'sent'}      | ${'sent'}        | ${false}
  `('$from -> $to: $ok', ({ from, to, ok }) => {
    expect(canAdvance(from, to)).toBe(ok);
  });

  it('knows the final statuses', () => {
    expect(['delivered', 'undelivered', 'sent_failed', 'no_routes', 'rejected'].every((s) => isFinal(s as never))).toBe(true);
    expect(isFinal('sent')).toBe(false);
  });

  it('moves the outgoing status forward only, read after delivered, and never fails a delivered message', () => {
    expect(canAdvanceOutgoing('sent', 'read')).toBe(true);
    expect(canAdvanceOutgoing('read', 'delivered')).toBe(false);
    expect(canAdvanceOutgoing('delivered', 'failed')).toBe(false);
    expect(canAdvanceOutgoing('sent', 'failed')).toBe(true);
    expect(canAdvanceOutgoing('failed', 'read')).toBe(false);
  });
});
