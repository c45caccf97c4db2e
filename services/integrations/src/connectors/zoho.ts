import type { Connector } from './connector';

/** Zoho CRM (zoho.com/crm/developer/docs/api/v2): OAuth 2 only; `page`/`per_page` paging, `api_domain` per data centre. */
export const zoho: Connector = {
  type: 'zoho',
  name: 'Zoho CRM',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://www.zohoapis.com/crm/v2', authorizeUrl: 'https://accounts.zoho.com/oauth/v2/auth', tokenUrl: 'https://accounts.zoho.com/oauth/v2/token' },
  domain: null,
};
