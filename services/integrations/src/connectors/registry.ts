import type { IntegrationTypeValue } from '@switchboard/contracts';
import type { Connector } from './connector';
import { dialer } from './dialer';
import { hubspot } from './hubspot';
import { intercom } from './intercom';
import { monday } from './monday';
import { pipedrive } from './pipedrive';
import { shopify } from './shopify';
import { zoho } from './zoho';

/** Every connector of this service, by type (Zoho Inbox is the sign-on's, not a CRM connector). */
export const CONNECTORS: Readonly<Partial<Record<IntegrationTypeValue, Connector>>> = Object.freeze({ hubspot, pipedrive, zoho, shopify, intercom, monday, dialer });

export function connectorOf(type: string): Connector | null {
  return (CONNECTORS as Record<string, Connector | undefined>)[type] ?? null;
}
