import type { Connector } from './connector';

/**
 * The dialer: it calls us, not the other way round. Installing it issues an integration token the dialer presents
 * (`X-Integration-Token`) on `POST /integration_keys/dialer/conversation`, which answers the console URL that opens a
 * new conversation with the caller in one click (docs/decisions/0040-integrations.md).
 */
export const dialer: Connector = {
  type: 'dialer',
  name: 'Dialer',
  authMode: 'api_key',
  adminOnly: false,
  defaults: { apiUrl: 'https://dialer.invalid', authorizeUrl: null, tokenUrl: null },
  domain: null,
};
