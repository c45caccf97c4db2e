import { isPreferenceKey, isTokenKey, MAX_PREFERENCES_BYTES, preferenceValueProblem, PREFERENCE_KEYS, validatePreferences } from './preferences';

describe('preference validation', () => {
  it('accepts every fixed key of the spec', () => {
    for (const k of PREFERENCE_KEYS) expect(isPreferenceKey(k)).toBe(true);
  });

  it('accepts token-like keys: 8 to 128 letters, digits, _ - . :, not shaped like a constant', () => {
    expect(isTokenKey('a1b2c3d4')).toBe(true);
    expect(isTokenKey('tbl-campaigns-7f3a')).toBe(true);
    expect(isTokenKey('5f0e9a2c-7b1d-4c3e-9f8a-1b2c3d4e5f60')).toBe(true);
    expect(isTokenKey('Pipedrive:deal.view')).toBe(true);
    expect(isTokenKey('A1B2C3D4E5')).toBe(true);
  });

  it('refuses misspelt constants, short keys and odd characters', () => {
    expect(isPreferenceKey('PAGE_SIZES')).toBe(false);
    expect(isPreferenceKey('PINNED_CAMPAIGNS')).toBe(false);
    expect(isPreferenceKey('abc')).toBe(false);
    expect(isPreferenceKey('has space here')).toBe(false);
    expect(isPreferenceKey('__proto__x')).toBe(false);
    expect(isPreferenceKey('x'.repeat(129))).toBe(false);
  });

  it('accepts primitives and non-empty objects as values', () => {
    for (const v of [25, 0, false, true, 'abc', { campaigns: 25 }, [1, 2], { nested: { deep: 1 } }]) expect(preferenceValueProblem(v)).toBeNull();
  });

  it('refuses empty values: null, empty or blank strings, empty objects and arrays', () => {
    for (const v of [null, undefined, '', '   ', {}, []]) expect(preferenceValueProblem(v)).toBe('must not be empty');
  });

  it('refuses functions and non-finite numbers', () => {
    expect(preferenceValueProblem(() => 1)).toBe('must be a primitive or an object');
    expect(preferenceValueProblem(Number.NaN)).toBe('must be a finite number');
  });

  it('reads a JSON string or an object, and names each bad key', () => {
    expect(validatePreferences('{"PAGE_SIZE":25}')).toEqual({ value: { PAGE_SIZE: 25 }, violations: [] });
    expect(validatePreferences({ PAGE_SIZE: 25 }).violations).toEqual([]);
    const r = validatePreferences({ PAGE_SIZE: 25, NOPE: 1, PINNED_STREAM: '' });
    expect(r.violations.map((v) => [v.propertyPath, v.code])).toEqual([
      ['preferences.NOPE', 'unknownKey'],
      ['preferences.PINNED_STREAM', 'invalidValue'],
    ]);
  });

  it('refuses what is not a JSON object', () => {
    for (const v of ['[1]', 'null', '12', '{bad', 12, null, [1]]) {
      expect(validatePreferences(v).violations).toEqual([expect.objectContaining({ propertyPath: 'preferences' })]);
    }
  });

  it('accepts an empty object (no preferences) and refuses more than 16 KiB', () => {
    expect(validatePreferences('{}').violations).toEqual([]);
    const big = { MESSAGE_SENDER_ID: 'x'.repeat(MAX_PREFERENCES_BYTES) };
    expect(validatePreferences(big).violations).toEqual([expect.objectContaining({ code: 'tooLarge' })]);
  });
});
