import * as isoCountries from 'i18n-iso-countries';
import { Permission } from '@switchboard/contracts';
import { startAccounts, violationPaths, type AccountsTestApp } from './support';

interface Zone {
  id: number;
  name: string;
  countryCode: string;
  country: string;
}
interface Country {
  id: number;
  name: string;
  iso2: string;
  iso3: string;
  availability: { working_days: { start: number; end: number }; working_hours: { start: string; end: string } };
  timezones: Zone[];
  timezonesGap: number;
  defaultTimezone: Zone | null;
  overridden: boolean;
}
type List<T> = { items: T[]; total: number };

describe('countries, time zones, sending hours and prices', () => {
  let a: AccountsTestApp;
  let account: string;
  let other: string;
  let france: Country;
  let us: Country;

  beforeAll(async () => {
    a = await startAccounts();
    account = await a.customer({ name: 'Globe', currency: 'USD' });
    other = await a.customer({ name: 'Elsewhere' });
    const list = await a.call<List<Country>>('GET', '/countries?itemsPerPage=1000', { token: a.member(account, []) });
    france = list.body.items.find((c) => c.iso2 === 'FR')!;
    us = list.body.items.find((c) => c.iso2 === 'US')!;
  });
  afterAll(async () => {
    await a?.close();
  });

  it('lists every ISO 3166-1 country with iso2, iso3 and at least one time zone, sorted by name', async () => {
    const res = await a.call<List<Country>>('GET', '/countries?itemsPerPage=1000', { token: a.member(account, []) });
    expect(res.status).toBe(200);
    const codes = isoCountries.getAlpha2Codes();
    expect(res.body.total).toBe(Object.keys(codes).length);
    expect(res.body.items.map((c) => c.iso2).sort()).toEqual(Object.keys(codes).sort());
    for (const c of res.body.items) {
      expect(c.iso3).toBe(codes[c.iso2]);
      expect(c.timezones.length).toBeGreaterThan(0);
      expect(c.defaultTimezone).not.toBeNull();
      expect(c.timezones.every((z) => z.countryCode === c.iso2 && z.country === `/api/countries/${c.id}`)).toBe(true);
    }
    const names = res.body.items.map((c) => c.name);
    expect(names).toEqual([...names].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)));
    expect(france).toMatchObject({ name: 'France', iso3: 'FRA', timezonesGap: 0, defaultTimezone: expect.objectContaining({ name: 'Europe/Paris' }) });
    expect(france.availability).toEqual({ working_days: { start: 1, end: 7 }, working_hours: { start: '09:00', end: '20:00' } });
    expect(us.timezones.length).toBeGreaterThan(5);
    expect(us.timezonesGap).toBeGreaterThan(0);
  });

  it('pages and searches countries, and shows one', async () => {
    const page = await a.call<List<Country>>('GET', '/countries?itemsPerPage=10&page=2&order[iso2]=asc', { token: a.member(account, []) });
    expect(page.body.items).toHaveLength(10);
    expect(page.body.total).toBeGreaterThan(240);
    const search = await a.call<List<Country>>('GET', '/countries?search=germ', { token: a.member(account, []) });
    expect(search.body.items.map((c) => c.iso2)).toEqual(['DE']);
    const byCode = await a.call<List<Country>>('GET', '/countries?iso2=jp', { token: a.member(account, []) });
    expect(byCode.body.items.map((c) => c.name)).toEqual(['Japan']);
    expect((await a.call('GET', `/countries/${france.id}`, { token: a.member(account, []) })).body).toMatchObject({ iso2: 'FR' });
    expect((await a.call('GET', '/countries/999999', { token: a.member(account, []) })).status).toBe(404);
    expect((await a.call('GET', '/countries?itemsPerPage=1001', { token: a.member(account, []) })).status).toBe(400);
    expect((await a.call('GET', '/countries?order[secret]=asc', { token: a.member(account, []) })).status).toBe(400);
  });

  it('lists time zones with IANA ids, per country, and shows one', async () => {
    const all = await a.call<List<Zone>>('GET', '/timezones?itemsPerPage=1000', { token: a.member(account, []) });
    expect(all.status).toBe(200);
    expect(all.body.total).toBeGreaterThan(400);
    const fr = await a.call<List<Zone>>('GET', '/timezones?country=FR', { token: a.member(account, []) });
    expect(fr.body.items.map((z) => z.name)).toEqual(['Europe/Paris']);
    const byId = await a.call<List<Zone>>('GET', `/timezones?country=/api/countries/${us.id}`, { token: a.member(account, []) });
    expect(byId.body.total).toBe(us.timezones.length);
    const search = await a.call<List<Zone>>('GET', '/timezones?search=Kolkata', { token: a.member(account, []) });
    expect(search.body.items.map((z) => [z.name, z.countryCode])).toEqual([['Asia/Kolkata', 'IN']]);
    const one = await a.call('GET', `/timezones/${fr.body.items[0].id}`, { token: a.member(account, []) });
    expect(one.body).toMatchObject({ name: 'Europe/Paris', countryCode: 'FR', country: `/api/countries/${france.id}`, utcOffset: 60, dstOffset: 120 });
    expect((await a.call('GET', '/timezones?country=F!', { token: a.member(account, []) })).status).toBe(400);
  });

  describe('global settings (super admins)', () => {
    it('sets a global price and sending hours, emitting PriceChangedV1 and SendingHoursChangedV1', async () => {
      const res = await a.call('PUT', `/countries/global/${france.id}`, {
        token: a.superAdmin(),
        body: { pricePerSegment: '0.045', priceCurrency: 'EUR', availability: { working_days: { start: 1, end: 5 }, working_hours: { start: '08:00', end: '19:30' } }, defaultTimezone: 'Europe/Paris' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ iso2: 'FR', pricePerSegment: 0.045, pricePerSegmentMicros: '45000', priceCurrency: 'EUR', currencySign: '€', availability: { working_days: { start: 1, end: 5 } } });
      const events = await a.events();
      expect(events).toContainEqual(expect.objectContaining({ type: 'accounts.price.changed', accountId: null, data: { accountId: null, iso2: 'FR', pricePerSegmentMicros: 45_000, currency: 'EUR' } }));
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'accounts.sending_hours.changed', data: expect.objectContaining({ accountId: null, iso2: 'FR', defaultTimezone: 'Europe/Paris', availability: expect.objectContaining({ working_hours: { start: '08:00', end: '19:30' } }) }) }),
      );
      expect((await a.call('GET', `/countries/global/${france.id}`, { token: a.superAdmin() })).body).toMatchObject({ pricePerSegment: 0.045 });
      const list = await a.call<List<{ iso2: string }>>('GET', '/countries/global?iso2=FR', { token: a.superAdmin() });
      expect(list.body).toMatchObject({ total: 1, items: [expect.objectContaining({ iso2: 'FR', pricePerSegment: 0.045 })] });
    });

    it('emits nothing when nothing changes, and PriceRemovedV1 when the price is removed', async () => {
      const de = (await a.call<List<Country>>('GET', '/countries?iso2=DE', { token: a.member(account, []) })).body.items[0];
      await a.call('PUT', `/countries/global/${de.id}`, { token: a.superAdmin(), body: { pricePerSegment: 0.05 } });
      const before = (await a.events()).length;
      await a.call('PUT', `/countries/global/${de.id}`, { token: a.superAdmin(), body: { pricePerSegment: '0.050000' } });
      expect((await a.events()).length).toBe(before);
      await a.call('PUT', `/countries/global/${de.id}`, { token: a.superAdmin(), body: { pricePerSegment: null } });
      expect((await a.events()).slice(before)).toEqual([expect.objectContaining({ type: 'accounts.price.removed', data: { accountId: null, iso2: 'DE' } })]);
    });

    it('refuses a default zone of another country, a negative price and hours that start and end together', async () => {
      const res = await a.call('PUT', `/countries/global/${france.id}`, {
        token: a.superAdmin(),
        body: { defaultTimezone: 'America/New_York', pricePerSegment: -1, availability: { working_days: { start: 0, end: 5 }, working_hours: { start: '10:00', end: '10:00' } } },
      });
      expect(res.status).toBe(400);
      expect(violationPaths(res.body)).toEqual(['availability.working_days.start', 'availability.working_hours.end', 'pricePerSegment']);
      const zone = await a.call('PUT', `/countries/global/${france.id}`, { token: a.superAdmin(), body: { defaultTimezone: 'America/New_York' } });
      expect(zone.status).toBe(400);
      expect(violationPaths(zone.body)).toEqual(['defaultTimezone']);
      expect((await a.call('GET', `/countries/global/${france.id}`, { token: a.superAdmin() })).body).toMatchObject({ defaultTimezone: expect.objectContaining({ name: 'Europe/Paris' }) });
    });

    it('accepts the default zone as an id or IRI', async () => {
      const chicago = us.timezones.find((z) => z.name === 'America/Chicago')!;
      const res = await a.call('PUT', `/countries/global/${us.id}`, { token: a.superAdmin(), body: { defaultTimezone: `/api/timezones/${chicago.id}` } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ defaultTimezone: expect.objectContaining({ name: 'America/Chicago' }) });
    });
  });

  describe("an account's overrides", () => {
    it('overrides sending hours for its own account only, and goes back to the global values', async () => {
      const editor = a.member(account, [Permission.SendingHoursEdit, Permission.SendingHoursView]);
      const hours = { working_days: { start: 6, end: 7 }, working_hours: { start: '22:00', end: '06:00' } };
      const res = await a.call('PUT', `/countries/${france.id}`, { token: editor, body: { availability: hours } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ iso2: 'FR', availability: hours, overridden: true });

      const mine = await a.call<List<{ iso2: string; availability: unknown; overridden: boolean }>>('GET', '/countries/sending_hours?iso2=FR', { token: editor });
      expect(mine.body.items).toEqual([expect.objectContaining({ iso2: 'FR', availability: hours, overridden: true, defaultTimezone: 'Europe/Paris' })]);
      const theirs = await a.call<List<{ availability: { working_days: unknown } }>>('GET', '/countries/sending_hours?iso2=FR', { token: a.member(other, [Permission.SendingHoursView]) });
      expect(theirs.body.items[0]).toMatchObject({ overridden: false, availability: { working_days: { start: 1, end: 5 } } });

      const events = await a.events();
      expect(events).toContainEqual(expect.objectContaining({ type: 'accounts.sending_hours.changed', accountId: account, data: { accountId: account, iso2: 'FR', availability: hours, defaultTimezone: null } }));

      const reset = await a.call('PUT', `/countries/${france.id}`, { token: editor, body: { availability: null } });
      expect(reset.body).toMatchObject({ overridden: false, availability: { working_days: { start: 1, end: 5 } } });
      expect(await a.sql('SELECT * FROM accounts.country_setting WHERE account_id = $1', [account])).toEqual([]);
    });

    it('lets only super admins give an account its own price, in the account currency', async () => {
      const editor = a.member(account, [Permission.SendingHoursEdit]);
      const refused = await a.call('PUT', `/countries/${france.id}`, { token: editor, body: { pricePerSegment: 0.001 } });
      expect(refused.status).toBe(403);

      const set = await a.call('PUT', `/countries/${france.id}`, { token: a.superAdmin(account), body: { pricePerSegment: 0.03 } });
      expect(set.status).toBe(200);
      const events = await a.events();
      expect(events).toContainEqual(expect.objectContaining({ type: 'accounts.price.changed', accountId: account, data: { accountId: account, iso2: 'FR', pricePerSegmentMicros: 30_000, currency: 'USD' } }));

      const prices = await a.call<List<{ iso2: string }>>('GET', '/countries/prices?iso2=FR', { token: a.member(account, [Permission.CostView]) });
      expect(prices.body.items).toEqual([expect.objectContaining({ iso2: 'FR', pricePerSegment: 0.03, currency: 'USD', currencySign: '$', overridden: true })]);
      const global = await a.call<List<{ iso2: string }>>('GET', '/countries/prices?iso2=FR', { token: a.member(other, [Permission.CostView]) });
      expect(global.body.items).toEqual([expect.objectContaining({ pricePerSegment: 0.045, currency: 'EUR', currencySign: '€', overridden: false })]);
    });

    it('overrides the default zone with one of the country zones only', async () => {
      const editor = a.member(account, [Permission.SendingHoursEdit]);
      const ok = await a.call('PUT', `/countries/${us.id}`, { token: editor, body: { defaultTimezone: 'America/Los_Angeles' } });
      expect(ok.body).toMatchObject({ defaultTimezone: expect.objectContaining({ name: 'America/Los_Angeles' }), overridden: true });
      const bad = await a.call('PUT', `/countries/${us.id}`, { token: editor, body: { defaultTimezone: 'Europe/Paris' } });
      expect(bad.status).toBe(400);
      expect((await a.call('PUT', '/countries/999999', { token: editor, body: { availability: null } })).status).toBe(404);
    });
  });
});
