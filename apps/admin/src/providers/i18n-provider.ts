import i18next, { type i18n as I18next } from 'i18next';
import type { I18nProvider, TranslateFunction } from 'react-admin';
import { consoleCatalogues } from '../i18n/catalogues';
import { areaMessages } from '../areas';
import { pickPlural } from '../i18n/plural';

export const LOCALES = [
  { locale: 'en', name: 'English' },
  { locale: 'ru', name: 'Русский' },
] as const;
export type LocaleCode = (typeof LOCALES)[number]['locale'];

const LOCALE_STORAGE_KEY = 'switchboard.locale';
const FALLBACK: LocaleCode = 'en';

const isLocale = (value: unknown): value is LocaleCode => LOCALES.some((l) => l.locale === value);

/** react-admin's own copy of the language (its store, JSON); when it differs, react-admin switches to it after the first render. */
const RA_LOCALE_KEY = 'RaStore.locale';

/**
 * The saved language: ours (`switchboard.locale`) is the one source; react-admin's copy is set to it before react-admin
 * reads its store, so the two never disagree (decision 0026). Without ours, react-admin's is taken.
 */
export function readSavedLocale(): LocaleCode {
  try {
    const saved = window.localStorage.getItem(LOCALE_STORAGE_KEY);
    if (isLocale(saved)) {
      window.localStorage.setItem(RA_LOCALE_KEY, JSON.stringify(saved));
      return saved;
    }
    const ra = window.localStorage.getItem(RA_LOCALE_KEY);
    const fromRa = ra ? (JSON.parse(ra) as unknown) : null;
    if (isLocale(fromRa)) return fromRa;
  } catch (_e) {
    // storage can be blocked (private mode, sandboxed frame): the fallback language is fine then
  }
  return FALLBACK;
}

/** `%{name}` substitution for react-admin's default texts (`_` option) that are not keys of our catalogues. */
function substitute(text: string, options: Record<string, unknown> | undefined): string {
  return text.replace(/%\{(\w+)\}/g, (whole, name: string) =>
    options && options[name] !== undefined ? String(options[name]) : whole,
  );
}

export function createI18next(initial: LocaleCode): I18next {
  const instance = i18next.createInstance();
  const catalogues = consoleCatalogues({ en: areaMessages('en'), ru: areaMessages('ru') });
  // The catalogues are bundled, so init completes synchronously (initAsync: false) and the first render is translated.
  void instance.init({
    lng: initial,
    fallbackLng: FALLBACK,
    supportedLngs: LOCALES.map((l) => l.locale),
    resources: {
      en: { translation: catalogues.en },
      ru: { translation: catalogues.ru },
    },
    initAsync: false,
    nsSeparator: false,
    returnNull: false,
    interpolation: { prefix: '%{', suffix: '}', escapeValue: false },
  });
  if (typeof document !== 'undefined') document.documentElement.lang = instance.language;
  return instance;
}

/** react-admin's i18nProvider on top of i18next; the chosen language is kept in localStorage. */
export function createI18nProvider(instance: I18next = createI18next(readSavedLocale())): I18nProvider {
  const translate: TranslateFunction = (key, options) => {
    const opts = options as Record<string, unknown> | undefined;
    const locale = instance.language;
    if (!instance.exists(key)) {
      const fallback = opts?._;
      return typeof fallback === 'string' ? pickPlural(substitute(fallback, opts), locale, opts) : key;
    }
    const { _: _default, ...rest } = opts ?? {};
    return pickPlural(String(instance.t(key, rest)), locale, opts);
  };
  return {
    translate,
    changeLocale: async (locale: string) => {
      const next = isLocale(locale) ? locale : FALLBACK;
      await instance.changeLanguage(next);
      try {
        window.localStorage.setItem(LOCALE_STORAGE_KEY, next);
      } catch (_e) {
        // see readSavedLocale
      }
      document.documentElement.lang = next;
    },
    getLocale: () => instance.language,
    getLocales: () => LOCALES.map((l) => ({ ...l })),
  };
}

export const i18nProvider = createI18nProvider();
