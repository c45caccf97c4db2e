import * as isoCountries from 'i18n-iso-countries';
import { isTimeZone } from '@switchboard/platform';
import { loadCountries } from './country-data';

describe('country data from the maintained packages', () => {
  const countries = loadCountries();

  it('has every ISO 3166-1 country with its alpha-2 and alpha-3 codes', () => {
    const codes = Object.keys(isoCountries.getAlpha2Codes());
    expect(countries.map((c) => c.iso2).sort()).toEqual(codes.sort());
    expect(countries.length).toBeGreaterThanOrEqual(249);
    for (const c of countries) {
      expect(c.iso2).toMatch(/^[A-Z]{2}$/);
      expect(c.iso3).toMatch(/^[A-Z]{3}$/);
      expect(c.name.length).toBeGreaterThan(0);
    }
    expect(countries.find((c) => c.iso2 === 'FR')).toMatchObject({ iso3: 'FRA', name: 'France', defaultTimezone: 'Europe/Paris', timezonesGap: 0 });
  });

  it('gives every country at least one IANA time zone, its default among them', () => {
    for (const c of countries) {
      expect(c.zones.length).toBeGreaterThan(0);
      expect(c.zones.map((z) => z.name)).toContain(c.defaultTimezone);
      for (const z of c.zones) expect(isTimeZone(z.name)).toBe(true);
    }
  });

  it('measures the spread of a multi-zone country in minutes', () => {
    const us = countries.find((c) => c.iso2 === 'US')!;
    expect(us.zones.length).toBeGreaterThan(5);
    expect(us.timezonesGap).toBeGreaterThanOrEqual(300);
    expect(countries.find((c) => c.iso2 === 'RU')!.defaultTimezone).toBe('Europe/Moscow');
  });
});
