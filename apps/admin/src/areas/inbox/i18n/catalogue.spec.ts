import { describe, expect, it } from '@jest/globals';
import type { Catalogue } from '../../types';
import en from './en';
import ru from './ru';

const keys = (c: Catalogue, prefix = ''): string[] =>
  Object.entries(c).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`)));

describe('the inbox catalogues', () => {
  it('say the same things in English and Russian, under the area’s own top-level key', () => {
    expect(keys(ru).sort()).toEqual(keys(en).sort());
    expect(Object.keys(en)).toEqual(['inbox']);
  });

  it('give Russian plurals their three forms where English has two', () => {
    const plural = (c: Catalogue) => keys(c).filter((k) => String(k.split('.').reduce<Catalogue | string>((o, p) => (o as Catalogue)[p], c)).includes('||||'));
    for (const k of plural(en)) {
      const v = k.split('.').reduce<Catalogue | string>((o, p) => (o as Catalogue)[p], ru) as string;
      expect([k, v.split('||||').length]).toEqual([k, 3]);
    }
  });
});
