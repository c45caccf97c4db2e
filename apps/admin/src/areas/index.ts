import { campaignsArea } from './campaigns';
import { contactsArea } from './contacts';
import { genaiArea } from './genai';
import { inboxArea } from './inbox';
import { linksArea } from './links';
import { routingArea } from './routing';
import { ssoArea } from './sso';
import { statsArea } from './stats';
import { streamsArea } from './streams';
import { superAdminArea } from './superadmin';
import { teamArea } from './team';
import { webhooksArea } from './webhooks';
import type { AdminArea, Catalogue } from './types';

/** The registry of console areas, in menu order. Each area folder exports one `AdminArea`. */
export const areas: AdminArea[] = [statsArea, inboxArea, campaignsArea, streamsArea, contactsArea, linksArea, webhooksArea, teamArea, genaiArea, superAdminArea, routingArea, ssoArea];

/** Merges the areas' catalogues into one; areas own distinct top-level keys, a clash is a programming error. */
export function areaMessages(locale: 'en' | 'ru'): Catalogue {
  const out: Catalogue = {};
  for (const area of areas) {
    for (const [key, value] of Object.entries(area.messages[locale])) {
      if (key in out) throw new Error(`translation key "${key}" is defined by two areas (${area.key})`);
      out[key] = value;
    }
  }
  return out;
}

export type { AdminArea, AreaMenuItem, Catalogue } from './types';
