/**
 * What the admin build writes to dist/lang/{locale}.json (GET /api/lang/{locale}.json): the console's complete
 * catalogues, Russian completed from English. Loaded by the build (vite.config.ts) through Vite's SSR loader, which
 * is why the areas' catalogues are found by a glob here instead of through the area registry (React components).
 */
import type { Catalogue } from '../areas/types';
import { consoleCatalogues, mergeAreaCatalogues, type CatalogueLocale } from './catalogues';

const files = import.meta.glob<{ default: Catalogue }>('../areas/*/i18n/{en,ru}.ts', { eager: true });

export function langFiles(): Record<CatalogueLocale, Catalogue> {
  const areas = (locale: CatalogueLocale) =>
    mergeAreaCatalogues(
      Object.entries(files)
        .filter(([file]) => file.endsWith(`/i18n/${locale}.ts`))
        .map(([file, mod]) => ({ area: file.split('/')[2], messages: mod.default })),
    );
  return consoleCatalogues({ en: areas('en'), ru: areas('ru') }, true);
}
