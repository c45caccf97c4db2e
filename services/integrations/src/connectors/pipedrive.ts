import type { Connector } from './connector';

/** Pipedrive (developers.pipedrive.com): OAuth 2 or an API token; v1 with `start`/`limit` paging. Admin-only (spec 6). */
export const pipedrive: Connector = {
  type: 'pipedrive',
  name: 'Pipedrive',
  authMode: 'oauth',
  adminOnly: true,
  defaults: { apiUrl: 'https://api.pipedrive.com/v1', authorizeUrl: 'https://oauth.pipedrive.com/oauth/authorize', tokenUrl: 'https://oauth.pipedrive.com/oauth/token' },
  domain: { required: false, pattern: /^[a-z0-9][a-z0-9-]{0,62}$/ },
};
