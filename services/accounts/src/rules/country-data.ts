import * as ct from 'countries-and-timezones';
import * as isoCountries from 'i18n-iso-countries';

/**
 * Every ISO 3166-1 country from maintained packages: codes (alpha-2, alpha-3, numeric) from `i18n-iso-countries`,
 * IANA time zones and offsets from `countries-and-timezones` (both follow upstream ISO and tz releases). Nothing here
 * is a hand-kept country list; see docs/decisions/0010-accounts.md for the two codes the tz database has no zone for.
 */
export interface CountryZone {
  name: string;
  /** Standard offset from UTC, minutes. */
  utcOffset: number;
  /** Offset while daylight saving time applies (equal to utcOffset where there is none), minutes. */
  dstOffset: number;
}

export interface CountryRecord {
  iso2: string;
  iso3: string;
  numeric: string;
  name: string;
  zones: CountryZone[];
  defaultTimezone: string;
  /** Minutes between the country's westernmost and easternmost standard offsets (0 for one-zone countries). */
  timezonesGap: number;
}

/**
 * Codes ISO assigns (or the ITU uses) with no zone of their own in the tz database: Bouvet Island is uninhabited
 * (UTC, its nautical zone), Kosovo keeps the time of Europe/Belgrade (tz `backzone`).
 */
const ZONELESS: Readonly<Record<string, string>> = Object.freeze({ BV: 'Etc/UTC', XK: 'Europe/Belgrade' });

function zoneOf(name: string): CountryZone {
  const tz = ct.getTimezone(name);
  if (!tz) return { name, utcOffset: 0, dstOffset: 0 };
  return { name, utcOffset: tz.utcOffset, dstOffset: tz.dstOffset };
}

/**
 * A prominence proxy for the default zone of a multi-zone country: the country's own canonical zone that the most
 * tz aliases point at (old names exist for places that mattered), ties in tz order. Super admins can change it.
 */
function pickDefault(iso2: string, zones: string[], aliasCount: Map<string, number>): string {
  const all = ct.getAllTimezones({ deprecated: true });
  const canonical = zones.filter((z) => !all[z as keyof typeof all]?.aliasOf);
  const own = canonical.filter((z) => all[z as keyof typeof all]?.countries[0] === iso2);
  const pool = own.length ? own : canonical.length ? canonical : zones;
  return pool.reduce((best, z) => ((aliasCount.get(z) ?? 0) > (aliasCount.get(best) ?? 0) ? z : best), pool[0]);
}

let cache: CountryRecord[] | null = null;

export function loadCountries(): CountryRecord[] {
  if (cache) return cache;
  const allZones = ct.getAllTimezones({ deprecated: true });
  const aliasCount = new Map<string, number>();
  for (const tz of Object.values(allZones)) if (tz.aliasOf) aliasCount.set(tz.aliasOf, (aliasCount.get(tz.aliasOf) ?? 0) + 1);
  const records: CountryRecord[] = [];
  for (const [iso2, iso3] of Object.entries(isoCountries.getAlpha2Codes())) {
    // Deprecated zones are included so territories listed only under an old name (HM: Indian/Kerguelen) keep one.
    const found = ct.getCountry(iso2, { deprecated: true })?.timezones ?? [];
    const names = found.length ? [...found] : ZONELESS[iso2] ? [ZONELESS[iso2]] : ['Etc/UTC'];
    const zones = names.map(zoneOf);
    const offsets = zones.map((z) => z.utcOffset);
    records.push({
      iso2,
      iso3,
      numeric: isoCountries.alpha2ToNumeric(iso2) ?? '',
      name: ct.getCountry(iso2)?.name ?? isoCountries.getName(iso2, 'en', { select: 'official' }) ?? iso2,
      zones,
      defaultTimezone: names.length === 1 ? names[0] : pickDefault(iso2, names, aliasCount),
      timezonesGap: Math.max(...offsets) - Math.min(...offsets),
    });
  }
  records.sort((a, b) => a.iso2.localeCompare(b.iso2));
  cache = records;
  return records;
}

