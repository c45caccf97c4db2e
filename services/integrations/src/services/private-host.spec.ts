import { isPrivateHost } from './integrations.service';

/** The production check of a customer-given vendor base URL's host (docs/decisions/0040-integrations.md). */
describe('isPrivateHost', () => {
  it.each(['localhost', 'api.localhost', 'crm.local', 'metadata.google.internal', 'intranet', '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '[::1]', '::', 'fd00:ec2::254', 'fe80::1', '::ffff:127.0.0.1'])(
    'refuses %s',
    (host) => expect(isPrivateHost(host)).toBe(true),
  );

  it.each(['api.hubapi.com', 'acme.pipedrive.com', 'www.zohoapis.eu', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2001:4860:4860::8888'])('allows %s', (host) => expect(isPrivateHost(host)).toBe(false));
});
