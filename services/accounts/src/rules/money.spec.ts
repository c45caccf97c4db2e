import { currencySign, fromMicros, isCurrency, toMicros } from './money';

describe('money', () => {
  it('reads decimals of up to six places, from numbers or strings, exactly', () => {
    expect(toMicros('12.5')).toBe(12_500_000n);
    expect(toMicros(0.1)).toBe(100_000n);
    expect(toMicros('-3')).toBe(-3_000_000n);
    expect(toMicros('0.000001')).toBe(1n);
    expect(toMicros(' 7.25 ')).toBe(7_250_000n);
  });

  it('refuses what is not a plain decimal', () => {
    for (const bad of ['1e3', '0.0000001', 'abc', '', '1,5', NaN, Infinity, 1e-7, null, {}, '1234567890123']) expect(toMicros(bad)).toBeNull();
  });

  it('shows micros as currency units', () => {
    expect(fromMicros(12_345_678n)).toBe(12.345678);
    expect(fromMicros('-2500000')).toBe(-2.5);
    expect(fromMicros(0)).toBe(0);
  });

  it('shows EUR as € and USD as $', () => {
    expect(currencySign('EUR')).toBe('€');
    expect(currencySign('USD')).toBe('$');
  });

  it('knows ISO currencies from the runtime', () => {
    expect(isCurrency('EUR')).toBe(true);
    expect(isCurrency('GBP')).toBe(true);
    expect(isCurrency('XYZ')).toBe(false);
    expect(isCurrency('eur')).toBe(false);
  });
});
