/** Local servers speaking the CRM vendors' documented APIs, for tests (`@switchboard/integrations/testing`). */
export * from './fake-vendor';
export * from './hubspot-server';
export * from './vendor-servers';
