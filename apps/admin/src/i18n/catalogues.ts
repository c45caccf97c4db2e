import englishMessages from 'ra-language-english';
import type { Catalogue } from '../areas/types';
import en from './en';
import raRussian from './ra-ru';
import ru from './ru';

export type CatalogueLocale = 'en' | 'ru';

/** Merges the areas' catalogues into one; areas own distinct top-level keys, a clash is a programming error. */
export function mergeAreaCatalogues(parts: Array<{ area: string; messages: Catalogue }>): Catalogue {
  const out: Catalogue = {};
  for (const { area, messages } of parts) {
    for (const [key, value] of Object.entries(messages)) {
      if (key in out) throw new Error(`translation key "${key}" is defined by two areas (${area})`);
      out[key] = value;
    }
  }
  return out;
}

/** `base` with every text of `over` put on top, nested catalogues merged key by key. */
function overlay(base: Catalogue, over: Catalogue): Catalogue {
  const out: Catalogue = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = out[key];
    out[key] = typeof value === 'object' && typeof under === 'object' ? overlay(under, value) : value;
  }
  return out;
}

/**
 * The console's catalogues as i18next gets them: react-admin's own texts, the shell's and the areas'. The console's
 * i18next falls back to English key by key; `withFallback` spells that out in the Russian catalogue itself, for clients
 * that read the catalogue file without a fallback of their own (GET /api/lang/{locale}.json).
 */
export function consoleCatalogues(areas: Record<CatalogueLocale, Catalogue>, withFallback = false): Record<CatalogueLocale, Catalogue> {
  const english: Catalogue = { ...(englishMessages as unknown as Catalogue), ...en, ...areas.en };
  const russian: Catalogue = { ...(raRussian as unknown as Catalogue), ...(ru as unknown as Catalogue), ...areas.ru };
  return { en: english, ru: withFallback ? overlay(english, russian) : russian };
}
