import type { Connector } from './connector';

/** HubSpot CRM (developers.hubspot.com): OAuth 2 or a private app token; CRM v3 objects with `after` paging. */
export const hubspot: Connector = {
  type: 'hubspot',
  name: 'HubSpot',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://api.hubapi.com', authorizeUrl: 'https://app.hubspot.com/oauth/authorize', tokenUrl: 'https://api.hubapi.com/oauth/v1/token' },
  domain: null,
};
