import { CustomerUpdatedV1 } from '@switchboard/contracts';
import { createEnvelope, ProviderSecrets, type InMemoryEventBus } from '@switchboard/platform';
import { DnsZone, startGenAiWireServer, type GenAiWireServer } from '@switchboard/platform/testing';
import { IntercomServer } from '../src/testing';
import { startIntegrations, type IntegrationsTestApp, type Json } from './support';

/**
 * SSRF by DNS: a public-looking host name that resolves to a loopback, private or link-local address is refused as a
 * vendor base URL and as an AI provider base URL when it is given, and again at every vendor and AI provider request
 * (DNS rebinding), which connects to the address it checked. A local DNS server answers the names.
 */
describe('vendor and AI provider hosts that resolve to private addresses', () => {
  let zone: DnsZone;
  let ic: IntercomServer;
  const endpoints = () => ({ intercom: { apiUrl: ic.url, authorizeUrl: `${ic.url}/oauth`, tokenUrl: `${ic.url}/auth/eagle/token` } });
  const port = () => new URL(ic.url).port;

  beforeAll(async () => {
    zone = await new DnsZone().start();
    ic = await new IntercomServer('ic-client', 'ic-secret', () => Date.now()).start();
  });
  afterAll(async () => {
    await ic?.stop();
    await zone?.stop();
  });

  describe('in production (public addresses only)', () => {
    let s: IntegrationsTestApp;
    const token = () => s.member('91');
    beforeAll(async () => {
      s = await startIntegrations({ allowPrivateUrls: false, dnsServers: [zone.address], endpoints: endpoints(), genai: { allowPrivateBaseUrls: false } });
    }, 60000);
    afterAll(() => s?.close());

    it('refuses a vendor base URL whose name resolves to 127.0.0.1 or a link-local address, storing nothing and calling no vendor', async () => {
      zone.set('crm.public-looking.com', { a: ['127.0.0.1'] });
      zone.set('metadata.public-looking.com', { a: ['169.254.169.254'] });
      const calls = ic.calls.length;
      for (const [host, why] of [['crm.public-looking.com', 'resolves to 127.0.0.1 (loopback)'], ['metadata.public-looking.com', 'resolves to 169.254.169.254 (link-local (cloud metadata))'], ['nowhere.public-looking.com', 'has no address']]) {
        const r = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', apiKey: 'valid-key', baseUrl: `https://${host}/api` } });
        expect({ host, status: r.status, code: r.body.code, violations: r.body.violations }).toEqual({ host, status: 400, code: '0x1', violations: [expect.objectContaining({ propertyPath: 'baseUrl', message: expect.stringContaining(why) })] });
      }
      expect(await s.sql(`SELECT 1 FROM integrations.integration WHERE account_id = 91`)).toEqual([]);
      // the same on PUT: the stored integration keeps its base URL
      const ok = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', apiKey: 'valid-key' } });
      expect(ok.status).toBe(201);
      const put = await s.call('PUT', `/integration_keys/${ok.body.key}`, { token: token(), body: { apiKey: 'valid-key', baseUrl: 'https://crm.public-looking.com' } });
      expect(put).toMatchObject({ status: 400, body: { code: '0x1', violations: [{ propertyPath: 'baseUrl', message: expect.stringContaining('127.0.0.1 (loopback)') }] } });
      expect((await s.sql(`SELECT base_url FROM integrations.integration WHERE key = $1`, [ok.body.key]))[0].base_url).toBeNull();
      // only the connect without a base URL reached the vendor (the operator's endpoint, checking the key)
      expect(ic.calls.length - calls).toBe(1);
    });

    it('refuses an AI provider base URL whose name resolves to 127.0.0.1', async () => {
      zone.set('ai.public-looking.com', { a: ['127.0.0.1'] });
      const verify = await s.call('POST', '/genai/verify/openai/sk-test', { token: token(), body: { base_url: 'https://ai.public-looking.com/v1' } });
      expect(verify).toMatchObject({ status: 400, body: { code: '0x1', violations: [{ propertyPath: 'base_url', message: expect.stringContaining('resolves to 127.0.0.1 (loopback)') }] } });
      const save = await s.call('POST', '/genai/settings/', { token: token(), body: { service: 'openai', api_key: 'sk-test', base_url: 'https://ai.public-looking.com/v1' } });
      expect(save).toMatchObject({ status: 400, body: { code: '0x1', violations: [{ propertyPath: 'base_url', message: expect.stringContaining('127.0.0.1 (loopback)') }] } });
      expect(await s.sql(`SELECT 1 FROM integrations.genai_provider WHERE account_id = 91`)).toEqual([]);
    });

    it('checks the host again at every request: a name that later resolves to 127.0.0.1 is not called', async () => {
      const r = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', apiKey: 'valid-key' } });
      // as if the name had resolved to a public address when it was given, and was re-pointed afterwards
      await s.sql(`UPDATE integrations.integration SET base_url = $2 WHERE key = $1`, [r.body.key, `http://crm.rebind.com:${port()}`]);
      zone.set('crm.rebind.com', { a: ['127.0.0.1'] });
      const calls = ic.calls.length;
      const fields = await s.call('GET', `/integration_keys/${r.body.key}/contact_fields`, { token: token() });
      expect(fields.status).toBe(502);
      expect(fields.body.message).toContain('crm.rebind.com resolves to 127.0.0.1 (loopback)');
      expect(ic.calls.length).toBe(calls);
    });
  });

  describe('the request connects to the address it checked', () => {
    let s: IntegrationsTestApp;
    const token = () => s.member('92');
    beforeAll(async () => {
      // loopback allowed here, so the local vendor is reachable by a name only the local DNS server knows
      s = await startIntegrations({ allowPrivateUrls: false, allowLoopback: true, dnsServers: [zone.address], endpoints: endpoints() });
    }, 60000);
    afterAll(() => s?.close());

    it('reaches the vendor at the checked address, and refuses it once the name moves to a private address', async () => {
      const r = await s.call('POST', '/integration_keys', { token: token(), body: { type: 'intercom', apiKey: 'valid-key' } });
      await s.sql(`UPDATE integrations.integration SET base_url = $2 WHERE key = $1`, [r.body.key, `http://crm.pinned.com:${port()}`]);
      zone.set('crm.pinned.com', { a: ['127.0.0.1'] });
      const asked = zone.queries.length;
      const fields = await s.call<Json[]>('GET', `/integration_keys/${r.body.key}/contact_fields`, { token: token() });
      expect(fields.status).toBe(200);
      expect(fields.body.map((f) => f.name)).toContain('stage');
      // the system resolver does not know crm.pinned.com: the call went to the address the local server answered
      expect(ic.calls.at(-1)?.headers.host).toBe(`crm.pinned.com:${port()}`);
      expect(zone.queries.slice(asked).filter((q) => q.name === 'crm.pinned.com' && q.type === 1)).toHaveLength(1);

      zone.set('crm.pinned.com', { a: ['10.20.30.40'] });
      const calls = ic.calls.length;
      const moved = await s.call('GET', `/integration_keys/${r.body.key}/contact_fields`, { token: token() });
      expect(moved.status).toBe(502);
      expect(moved.body.message).toContain('resolves to 10.20.30.40 (private)');
      expect(ic.calls.length).toBe(calls);
    });

    it('reaches each AI provider at the checked address, streamed answers too, and refuses it once the name moves to a private address', async () => {
      const acc = '93';
      const bus = s.t.bus as InMemoryEventBus;
      await bus.publish([
        createEnvelope(
          CustomerUpdatedV1,
          { accountId: acc, name: 'Acme', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings: { allow_generative_ai: 1 }, genSettings: { default_generative_service: 'openai' }, createdAt: '2026-01-01T00:00:00.000Z' },
          { source: 'accounts', accountId: acc },
        ),
      ]);
      await bus.drain();
      const servers: Record<'openai' | 'gemini' | 'ollama', GenAiWireServer> = { openai: await startGenAiWireServer('openai'), gemini: await startGenAiWireServer('gemini'), ollama: await startGenAiWireServer('ollama', { key: '' }) };
      try {
        for (const [service, server] of Object.entries(servers)) {
          const host = `${service}.ai-pinned.com`;
          const url = new URL(server.url);
          url.hostname = host;
          // as if the name had resolved to a public address when it was given (the check on input is tested above)
          const sealed = server.key ? new ProviderSecrets('test-secret-of-the-integrations-module').seal(`genai:${acc}:${service}`, { key: server.key }) : null;
          await s.sql(`INSERT INTO integrations.genai_provider (account_id, service, key_sealed, base_url, model, verified_at, updated_at) VALUES ($1, $2, $3, $4, NULL, now(), now())`, [acc, service, sealed, url.toString().replace(/\/$/, '')]);
          zone.set(host, { a: ['127.0.0.1'] });
          const asked = zone.queries.length;
          const json = await s.call('POST', '/inbox/rephrase', { token: s.member(acc), body: { text: 'hello there', tone: 'friendly', service } });
          expect({ service, status: json.status, text: json.body.text }).toEqual({ service, status: 200, text: 'Answer: hello there' });
          // the system resolver does not know the name: the request went to the address the local server answered, asked once
          expect(server.requests.at(-1)?.headers.host).toBe(`${host}:${url.port}`);
          expect(zone.queries.slice(asked).filter((q) => q.name === host && q.type === 1)).toHaveLength(1);

          const streamed = await s.call('POST', '/inbox/rephrase', { token: s.member(acc), body: { text: 'streamed hello', tone: 'friendly', service }, headers: { accept: 'application/x-ndjson' } });
          expect(streamed.status).toBe(200);
          const events = streamed.text.trim().split('\n').map((l) => JSON.parse(l) as Json);
          expect(events.filter((e) => e.type === 'text').map((e) => e.text).join('')).toBe('Answer: streamed hello');
          expect(events.at(-1)).toMatchObject({ type: 'done', text: 'Answer: streamed hello', service });

          // re-pointed to a private address: refused at the next request, JSON or streamed, and the provider is not called
          zone.set(host, { a: ['10.20.30.40'] });
          const calls = server.requests.length;
          for (const accept of ['application/json', 'application/x-ndjson']) {
            const moved = await s.call('POST', '/inbox/rephrase', { token: s.member(acc), body: { text: 'hello', tone: 'friendly', service }, headers: { accept } });
            expect({ service, accept, status: moved.status, code: moved.body?.code }).toEqual({ service, accept, status: 502, code: expect.any(String) });
            expect(moved.body.message).toContain(`${host} resolves to 10.20.30.40 (private)`);
          }
          expect(server.requests.length).toBe(calls);
          // the usage counts only the answers given
          expect(await s.sql(`SELECT requests FROM integrations.genai_usage WHERE account_id = $1 AND service = $2`, [acc, service])).toEqual([{ requests: 2 }]);
        }
      } finally {
        await Promise.all(Object.values(servers).map((x) => x.close()));
      }
    });
  });
});
