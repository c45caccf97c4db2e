import { CUSTOM_SETTINGS_DEFAULTS, GEN_SETTINGS_DEFAULTS, mergeCustomSettings, mergeGenSettings, readCustomSettings } from './settings';

describe('account settings', () => {
  it('merges a partial update over the current settings and reads 0/1 flags as booleans', () => {
    const r = mergeCustomSettings({ ...CUSTOM_SETTINGS_DEFAULTS }, { allow_whatsapp: 1, streams_max_messages_per_day: 500 });
    expect(r).toEqual({ ok: true, value: { ...CUSTOM_SETTINGS_DEFAULTS, allow_whatsapp: true, streams_max_messages_per_day: 500 } });
  });

  it('reports unknown keys and wrong types as violations with their path', () => {
    const r = mergeCustomSettings({ ...CUSTOM_SETTINGS_DEFAULTS }, { allow_whatsapp: 'yes', colour: 'red', streams_max_messages_per_day: -1 });
    expect(r.ok).toBe(false);
    const paths = r.ok ? [] : r.violations.map((v) => v.propertyPath).sort();
    expect(paths).toEqual(['customSettings.allow_whatsapp', 'customSettings.colour', 'customSettings.streams_max_messages_per_day']);
  });

  it("takes the account's own opt-out and opt-in keywords (any script, upper-cased once each) and refuses markup or lists too long", () => {
    const r = mergeCustomSettings({ ...CUSTOM_SETTINGS_DEFAULTS }, { opt_out_keywords: ['Хватит', 'basta', 'BASTA'], opt_in_keywords: ['go on'] });
    expect(r).toEqual({ ok: true, value: { ...CUSTOM_SETTINGS_DEFAULTS, opt_out_keywords: ['ХВАТИТ', 'BASTA'], opt_in_keywords: ['GO ON'] } });
    const bad = mergeCustomSettings({ ...CUSTOM_SETTINGS_DEFAULTS }, { opt_out_keywords: ['<b>stop</b>'], opt_in_keywords: Array.from({ length: 51 }, (_, i) => `word${i}`) });
    expect(bad.ok ? [] : bad.violations.map((v) => v.propertyPath).sort()).toEqual(['customSettings.opt_in_keywords', 'customSettings.opt_out_keywords.0']);
  });

  it('accepts only the three generative services', () => {
    expect(mergeGenSettings({ ...GEN_SETTINGS_DEFAULTS }, { default_generative_service: 'gemini' }).ok).toBe(true);
    expect(mergeGenSettings({ ...GEN_SETTINGS_DEFAULTS }, { default_generative_service: 'claude' }).ok).toBe(false);
  });

  it('fills settings missing from storage with their defaults and drops unknown stored keys', () => {
    expect(readCustomSettings({ allow_inbox: false, legacy: 1 })).toEqual({ ...CUSTOM_SETTINGS_DEFAULTS, allow_inbox: false });
  });
});
