import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './server-process';

type Catalogue = { [key: string]: string | Catalogue };

const keys = (c: Catalogue, prefix = ''): string[] => Object.entries(c).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`)));
const read = (locale: string) => JSON.parse(fs.readFileSync(path.join(repoRoot, 'apps/admin/dist/lang', `${locale}.json`), 'utf8')) as Catalogue;
const areasDir = path.join(repoRoot, 'apps/admin/src/areas');
const areaCatalogue = async (area: string, locale: string) => ((await import(path.join(areasDir, area, 'i18n', locale))) as { default: Catalogue }).default;

/**
 * The catalogue files the admin build writes for GET /api/lang/{locale}.json (vite.config.ts): what the console
 * itself shows, every area included, Russian complete (English where a text is not translated).
 */
describe('the console catalogues of the admin build (dist/lang)', () => {
  beforeAll(() => {
    if (!fs.existsSync(path.join(repoRoot, 'apps/admin/dist/lang/en.json'))) throw new Error('build the admin first: node scripts/build.mjs');
  });

  it("carry every area's texts as the area wrote them, and react-admin's own", async () => {
    const areas = fs.readdirSync(areasDir).filter((a) => fs.existsSync(path.join(areasDir, a, 'i18n', 'en.ts')));
    expect(areas.length).toBeGreaterThan(5);
    for (const locale of ['en', 'ru']) {
      const file = read(locale);
      for (const area of areas) {
        const own = await areaCatalogue(area, locale);
        for (const top of Object.keys(own)) expect([locale, area, top, file[top]]).toEqual([locale, area, top, own[top]]);
      }
    }
    expect((read('en').ra as Catalogue).action).toMatchObject({ save: 'Save' });
    expect((read('ru').ra as Catalogue).action).toMatchObject({ save: 'Сохранить' });
  });

  it('give Russian every key English has', () => {
    const ru = new Set(keys(read('ru')));
    expect(keys(read('en')).filter((k) => !ru.has(k))).toEqual([]);
  });
});
