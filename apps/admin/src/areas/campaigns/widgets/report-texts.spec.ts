import { describe, expect, it } from '@jest/globals';
import i18next from 'i18next';
import { pickPlural } from '../../../i18n/plural';
import type { Catalogue } from '../../types';
import en from '../i18n/en';
import ru from '../i18n/ru';
import { emptyValues } from '../wizard/model';
import { domainsEmptyKey } from './report-texts';

/** The console's translate (i18next with `%{}` and the "one |||| many" forms) over the campaigns catalogues. */
function translator(locale: 'en' | 'ru') {
  const i = i18next.createInstance();
  void i.init({ lng: locale, resources: { en: { translation: en }, ru: { translation: ru } }, initAsync: false, showSupportNotice: false, nsSeparator: false, interpolation: { prefix: '%{', suffix: '}', escapeValue: false } });
  return (key: string, options?: Record<string, unknown>) => pickPlural(String(i.t(key, options)), locale, options);
}

const texts = (c: Catalogue | string): string[] => (typeof c === 'string' ? [c] : Object.values(c).flatMap(texts));

describe('the campaign page’s texts (walkthrough 7, 8, 10, 11, 14)', () => {
  it('says "No clicks yet" per domain for a campaign with a link variable, and "no short links" only without one', () => {
    expect(domainsEmptyKey([{ text: 'Hi {{firstName}}, see {{ shorturl }}' }])).toBe('campaigns.report.noClicks');
    expect(domainsEmptyKey([{ text: 'Hi' }, { text: 'Stop: {{optout}}' }])).toBe('campaigns.report.noClicks');
    expect(domainsEmptyKey([{ text: 'Hi {{firstName}}' }])).toBe('campaigns.report.noDomains');
    expect(translator('en')('campaigns.report.noClicks')).toBe('No clicks yet');
    expect(translator('ru')('campaigns.report.noClicks')).toBe('Кликов пока нет');
  });

  it('writes one click and two clicks, and the three Russian forms', () => {
    const t = translator('en');
    expect(t('campaigns.report.clicks', { count: '1', smart_count: 1 })).toBe('1 click');
    expect(t('campaigns.report.clicks', { count: '2', smart_count: 2 })).toBe('2 clicks');
    expect(t('campaigns.report.links', { count: '1', smart_count: 1 })).toBe('1 link');
    const r = translator('ru');
    expect([1, 3, 5, 11, 21, 22].map((n) => r('campaigns.report.clicks', { count: String(n), smart_count: n }))).toEqual(['1 клик', '3 клика', '5 кликов', '11 кликов', '21 клик', '22 клика']);
    expect([1, 2, 7].map((n) => r('campaigns.report.links', { count: String(n), smart_count: n }))).toEqual(['1 ссылка', '2 ссылки', '7 ссылок']);
  });

  it('calls clicks one word in Russian across the campaign page: "Клики", never "Переходы"', () => {
    const campaigns = ru.campaigns as Catalogue;
    const page = [campaigns.report, campaigns.stats, campaigns.progress];
    expect(page.flatMap(texts).filter((s) => /переход/i.test(s))).toEqual([]);
    expect([translator('ru')('campaigns.stats.clicked'), translator('ru')('campaigns.report.series.clicks')]).toEqual(['Клики', 'Клики']);
  });

  it('names each click rate’s denominator: the headline of sent, a variant’s of delivered, a domain’s of links', () => {
    const t = translator('en');
    expect(t('campaigns.stats.ctr')).toBe('Click rate (of sent)');
    expect(t('campaigns.report.ctrOfDelivered', { ctr: '50' })).toBe('CTR 50% of delivered');
    expect(t('campaigns.report.ctrOfLinks', { ctr: '50' })).toBe('CTR 50% of links');
    const r = translator('ru');
    expect([r('campaigns.stats.ctr'), r('campaigns.report.ctrOfDelivered', { ctr: '50' })]).toEqual(['CTR (от отправленных)', 'CTR 50% от доставленных']);
  });

  it('names the wizard’s first variant "Variant 1", in Russian "Вариант 1"', () => {
    expect(emptyValues(translator('en')('campaigns.message.variantWord')).variants[0].name).toBe('Variant 1');
    expect(emptyValues(translator('ru')('campaigns.message.variantWord')).variants[0].name).toBe('Вариант 1');
  });
});
