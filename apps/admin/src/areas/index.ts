import { campaignsArea } from './campaigns';
import { contactsArea } from './contacts';
import { genaiArea } from './genai';
import { inboxArea } from './inbox';
import { integrationsArea } from './integrations';
import { linksArea } from './links';
import { routingArea } from './routing';
import { ssoArea } from './sso';
import { statsArea } from './stats';
import { streamsArea } from './streams';
import { superAdminArea } from './superadmin';
import { teamArea } from './team';
import { webhooksArea } from './webhooks';
import { mergeAreaCatalogues } from '../i18n/catalogues';
import type { AdminArea, Catalogue } from './types';

/** The registry of console areas, in menu order. Each area folder exports one `AdminArea`. */
export const areas: AdminArea[] = [statsArea, inboxArea, campaignsArea, streamsArea, contactsArea, linksArea, webhooksArea, integrationsArea, teamArea, genaiArea, superAdminArea, routingArea, ssoArea];

/** Merges the areas' catalogues into one; areas own distinct top-level keys, a clash is a programming error. */
export function areaMessages(locale: 'en' | 'ru'): Catalogue {
  return mergeAreaCatalogues(areas.map((area) => ({ area: area.key, messages: area.messages[locale] })));
}

export type { AdminArea, AreaMenuItem, Catalogue } from './types';
