import type { Connector } from './connector';

/** Intercom (developers.intercom.com, API 2.x): OAuth or an access token; contacts with `starting_after` cursors. */
export const intercom: Connector = {
  type: 'intercom',
  name: 'Intercom',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://api.intercom.io', authorizeUrl: 'https://app.intercom.com/oauth', tokenUrl: 'https://api.intercom.io/auth/eagle/token' },
  domain: null,
};
