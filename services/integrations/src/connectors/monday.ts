import type { Connector } from './connector';

/** monday.com (developer.monday.com, GraphQL API v2): OAuth or a personal API token; a board's items by cursor. */
export const monday: Connector = {
  type: 'monday',
  name: 'Monday',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://api.monday.com/v2', authorizeUrl: 'https://auth.monday.com/oauth2/authorize', tokenUrl: 'https://auth.monday.com/oauth2/token' },
  domain: { required: false, pattern: /^\d{1,20}$/ },
};
