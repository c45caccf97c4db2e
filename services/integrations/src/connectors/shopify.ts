import type { Connector } from './connector';

/** Shopify Admin REST API (shopify.dev): OAuth per shop or a custom app token; cursor paging in the Link header. */
export const shopify: Connector = {
  type: 'shopify',
  name: 'Shopify',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://{domain}/admin/api/2024-01', authorizeUrl: 'https://{domain}/admin/oauth/authorize', tokenUrl: 'https://{domain}/admin/oauth/access_token' },
  domain: { required: true, pattern: /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/ },
};
