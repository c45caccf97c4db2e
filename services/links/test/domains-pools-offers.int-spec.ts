import { DomainPoolChangedV1, DomainState, OfferChangedV1 } from '@switchboard/contracts';
import { DnsZone } from '@switchboard/platform/testing';
import { startLinks, type Json, type LinksTestApp } from './support';

const DAY = 86_400_000;

describe('domains, pools and offers in the console API', () => {
  let zone: DnsZone;
  let l: LinksTestApp;
  let A: string;

  beforeAll(async () => {
    zone = await new DnsZone().start();
    l = await startLinks({ dnsServers: [zone.address], dnsTimeoutMs: 300, maxDomainsPerPool: 3 });
    A = l.token('301');
  });

  afterAll(async () => {
    await l?.close();
    await zone?.stop();
  });

  describe('adding domains', () => {
    it('refuses names that break the format rule (errors.client.domain), adding none of the list', async () => {
      for (const bad of ['https://go.example.com', 'go.example.com/path', 'go example.com', 'localhost', 'go..example.com', '-go.example.com', 'go.example.com:8080', '']) {
        const r = await l.call('POST', '/domains/bulk', { token: A, body: { domains: ['fine.example.com', bad] } });
        expect({ bad, status: r.status, code: r.body.code, v: r.body.violations }).toEqual({ bad, status: 400, code: '0x1', v: [expect.objectContaining({ propertyPath: 'domains[1]', code: 'domain' })] });
      }
      expect((await l.call('POST', '/domains/bulk', { token: A, body: { domains: [] } })).status).toBe(400);
      expect(await l.sql(`SELECT name FROM links.domain WHERE account_id = 301`)).toEqual([]);
    });

    it('lists duplicates for the confirm popup and adds nothing, then adds the others once confirmed', async () => {
      const first = await l.call('POST', '/domains/bulk', { token: A, body: { domains: ['one.example.com', 'Two.Example.com', 'one.example.com'] } });
      expect(first.body.data.map((d: Json) => d.name)).toEqual(['one.example.com', 'two.example.com']);
      expect(first.body.duplicates).toEqual([]);

      const again = await l.call('POST', '/domains/bulk', { token: A, body: { domains: ['two.example.com', 'three.example.com', 'ONE.example.com'] } });
      expect(again.body).toEqual({ data: [], duplicates: ['two.example.com', 'one.example.com'] });
      expect((await l.sql(`SELECT count(*)::int AS n FROM links.domain WHERE account_id = 301`))[0]).toEqual({ n: 2 });

      const confirmed = await l.call('POST', '/domains/bulk', { token: A, body: { domains: ['two.example.com', 'three.example.com', 'ONE.example.com'], skipDuplicates: true } });
      expect(confirmed.body.data.map((d: Json) => d.name)).toEqual(['three.example.com']);
      expect(confirmed.body.duplicates).toEqual(['two.example.com', 'one.example.com']);

      // one domain through POST /domains: a duplicate is a 409
      expect((await l.call('POST', '/domains', { token: A, body: { name: 'two.example.com' } })).body).toMatchObject({ status: 409, code: 'duplicateDomainsFound' });
    });

    it('gives new domains the global limit, and the bulk action archives, restores and sets limits', async () => {
      expect((await l.call('POST', '/domains/messages_limit', { token: A, body: { limit: 500 } })).body).toMatchObject({ limit: 500 });
      expect((await l.call('GET', '/domains/messages_limit', { token: A })).body).toEqual({ limit: 500 });
      const [d] = (await l.call('POST', '/domains/bulk', { token: A, body: { domains: ['limited.example.com'] } })).body.data as Json[];
      expect(d.messagesLimit).toBe(500);
      const ids = (await l.call('GET', '/domains?itemsPerPage=100', { token: A })).body.items.map((x: Json) => x.id);
      expect((await l.call('POST', '/domains/bulk_action', { token: A, body: { action: 'archive', ids } })).body.affected).toBe(ids.length);
      expect((await l.call('GET', '/domains', { token: A })).body.total).toBe(0);
      expect((await l.call('GET', '/domains?archived=1', { token: A })).body.total).toBe(ids.length);
      const restored = await l.call('POST', '/domains/bulk_action', { token: A, body: { action: 'restore', ids } });
      expect(restored.body.items.every((x: Json) => x.state !== DomainState.Archived)).toBe(true);
      const limited = await l.call('POST', '/domains/bulk_action', { token: A, body: { action: 'set_limit', ids: [d.id], messagesLimit: 9 } });
      expect(limited.body.items[0].messagesLimit).toBe(9);
      expect((await l.call('POST', '/domains/bulk_action', { token: A, body: { action: 'explode', ids } })).status).toBe(400);
      const dash = (await l.call('GET', '/domains/dashboard', { token: A })).body;
      expect(dash).toMatchObject({ total: ids.length, messagesLimit: 500, totalUsages: 0, ctr: 0 });
      expect(Object.values(dash.byState as Record<string, number>).reduce((s, n) => s + n, 0)).toBe(ids.length);
    });

    it('deletes an unused domain but keeps one that carried links (archive it instead)', async () => {
      const [a, b] = (await l.call('POST', '/domains/bulk', { token: A, body: { domains: ['gone.example.com', 'used.example.com'] } })).body.data as Json[];
      await l.sql(`UPDATE links.domain SET total_usages = 3 WHERE id = $1`, [b.id]);
      expect((await l.call('DELETE', `/domains/${a.id}`, { token: A })).status).toBe(204);
      expect((await l.call('DELETE', `/domains/${b.id}`, { token: A })).status).toBe(409);
      expect((await l.call('GET', `/domains/${a.id}`, { token: A })).status).toBe(404);
    });
  });

  describe('pools', () => {
    it('creates a pool with its domains in order, adds and removes them within max_domains_per_pool, and publishes each change', async () => {
      const names = ['p1.example.com', 'p2.example.com', 'p3.example.com', 'p4.example.com'];
      const ds = (await l.call('POST', '/domains/bulk', { token: A, body: { domains: names } })).body.data as Json[];
      const created = await l.call('POST', '/domain_pools', { token: A, body: { name: 'Spring', description: 'spring sale', distribution: 1, domains: [ds[1].id, ds[0].id] } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Spring', distribution: 1, totalDomains: 2, validDomains: 0, usages: 0, ctr: 0 });
      expect(created.body.domains.map((d: Json) => d.name)).toEqual(['p2.example.com', 'p1.example.com']);
      const id = created.body.id as number;

      expect((await l.call('POST', `/domain_pools/${id}/domains`, { token: A, body: { domains: [ds[2].id] } })).body.totalDomains).toBe(3);
      // max_domains_per_pool is 3 here
      const over = await l.call('POST', `/domain_pools/${id}/domains`, { token: A, body: { domains: [ds[3].id] } });
      expect(over).toMatchObject({ status: 400, body: { violations: [expect.objectContaining({ propertyPath: 'domains', code: 'maxNumber' })] } });
      expect((await l.call('DELETE', `/domain_pools/${id}/domains/${ds[1].id}`, { token: A })).body.domains.map((d: Json) => d.name)).toEqual(['p1.example.com', 'p3.example.com']);
      expect((await l.call('PUT', `/domain_pools/${id}`, { token: A, body: { distribution: 10, name: 'Spring 2' } })).body).toMatchObject({ distribution: 10, name: 'Spring 2' });
      expect((await l.call('PUT', `/domain_pools/${id}`, { token: A, body: { distribution: 5 } })).status).toBe(400);
      expect((await l.call('POST', '/domain_pools', { token: A, body: { description: 'no name' } })).status).toBe(400);

      // pool info: its domains with states and counters; CTR from their usages and clicks
      await l.sql(`UPDATE links.domain SET total_usages = 200, total_clicks = 7 WHERE id = $1`, [ds[0].id]);
      await l.sql(`UPDATE links.domain SET state = 1 WHERE id = $1`, [ds[2].id]);
      const info = await l.call('GET', `/domain_pools/${id}/domains`, { token: A });
      expect(info.body.items.map((d: Json) => [d.name, d.totalUsages, d.totalClicks, d.ctr])).toEqual([
        ['p1.example.com', 200, 7, 3.5],
        ['p3.example.com', 0, 0, 0],
      ]);
      expect((await l.call('GET', `/domain_pools/${id}`, { token: A })).body).toMatchObject({ ctr: 3.5, clicks: 7, validDomains: 1 });
      expect((await l.call('GET', '/domain_pools/dropdown', { token: A })).body.items).toEqual([{ id, name: 'Spring 2', totalDomains: 2, usages: 0 }]);
      expect((await l.call('GET', '/domain_pools/dashboard', { token: A })).body).toMatchObject({ total: 1, totalDomains: 2, clicks: 7, ctr: 3.5, withoutValidDomains: 0, maxDomainsPerPool: 3 });
      expect((await l.call('PUT', '/domain_pools/settings', { token: A, body: { maxDomainsPerPool: 4 } })).body).toEqual({ maxDomainsPerPool: 4 });
      expect((await l.call('POST', `/domain_pools/${id}/domains`, { token: A, body: { domains: [ds[3].id, ds[1].id] } })).body.totalDomains).toBe(4);

      expect((await l.call('DELETE', `/domain_pools/${id}`, { token: A })).status).toBe(204);
      await l.flush();
      const events = l.published.filter((e) => e.type === DomainPoolChangedV1.type && (e.data as Json).poolId === String(id)).map((e) => e.data as Json);
      expect(events.map((e) => [e.distribution, e.domainIds.length, e.deleted])).toEqual([
        [1, 2, false],
        [1, 3, false],
        [1, 2, false],
        [10, 2, false],
        [10, 4, false],
        [10, 0, true],
      ]);
      expect(events[0].domainIds).toEqual([String(ds[1].id), String(ds[0].id)]);
    });

    it('adds domains from the campaign wizard (campaigns/add/domain) into a new or an existing pool, checking the pool first', async () => {
      const B = l.token('302');
      const names = async () => (await l.sql<{ name: string }>(`SELECT name FROM links.domain WHERE account_id = 302 ORDER BY name`)).map((r) => r.name);
      // a new pool needs a name and a description (spec 5); a wrong pool part adds nothing
      const noDesc = await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['w1.example.com'], newPool: { name: 'Wizard' } } });
      expect([noDesc.status, noDesc.body.violations]).toEqual([400, [expect.objectContaining({ propertyPath: 'newPool.description', code: 'required' })]]);
      expect((await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['w1.example.com'], pool: 999999 } })).status).toBe(404);
      expect((await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['w1.example.com'], pool: 1, newPool: { name: 'x', description: 'y' } } })).status).toBe(400);
      expect((await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['https://w1.example.com/'] } })).status).toBe(400);
      expect(await names()).toEqual([]);

      const made = await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['w1.example.com', 'w2.example.com'], newPool: { name: 'Wizard', description: 'from the campaign', distribution: 1 } } });
      expect(made.status).toBe(200);
      expect(made.body.data.map((d: Json) => d.name)).toEqual(['w1.example.com', 'w2.example.com']);
      expect(made.body.pool).toMatchObject({ name: 'Wizard', description: 'from the campaign', distribution: 1, domains: [expect.objectContaining({ name: 'w1.example.com' }), expect.objectContaining({ name: 'w2.example.com' })] });

      // duplicates: nothing added and the pool untouched until confirmed; then the others join the existing pool
      const dup = await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['w2.example.com', 'w3.example.com'], pool: made.body.pool.id } });
      expect(dup.body).toEqual({ data: [], duplicates: ['w2.example.com'], pool: null });
      expect(await names()).toEqual(['w1.example.com', 'w2.example.com']);
      const joined = await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['w2.example.com', 'w3.example.com'], pool: `/api/domain_pools/${made.body.pool.id}`, skipDuplicates: true } });
      expect(joined.body.data.map((d: Json) => d.name)).toEqual(['w3.example.com']);
      expect(joined.body.pool.domains.map((d: Json) => d.name)).toEqual(['w1.example.com', 'w2.example.com', 'w3.example.com']);

      // without a pool it is the add domain modal
      const plain = await l.call('POST', '/campaigns/add/domain', { token: B, body: { domains: ['w4.example.com'] } });
      expect([plain.body.data.length, plain.body.pool]).toEqual([1, null]);
      expect(await names()).toEqual(['w1.example.com', 'w2.example.com', 'w3.example.com', 'w4.example.com']);
    });
  });

  describe('pool read models', () => {
    it("publishes a pool's new members when one of its domains is deleted", async () => {
      const [a, b] = (await l.call('POST', '/domains/bulk', { token: A, body: { domains: ['m1.example.com', 'm2.example.com'] } })).body.data as Json[];
      const pool = (await l.call('POST', '/domain_pools', { token: A, body: { name: 'Members', domains: [a.id, b.id] } })).body;
      expect((await l.call('DELETE', `/domains/${a.id}`, { token: A })).status).toBe(204);
      expect((await l.call('GET', `/domain_pools/${pool.id}`, { token: A })).body.totalDomains).toBe(1);
      await l.flush();
      const last = l.published.filter((e) => e.type === DomainPoolChangedV1.type && (e.data as Json).poolId === String(pool.id)).pop();
      expect(last?.data).toMatchObject({ domainIds: [String(b.id)], deleted: false });
    });
  });

  describe('offers', () => {
    it('checks the target URL: http(s), variables in the path and query only, never in the scheme or host', async () => {
      const bad = [
        'ftp://files.example.com/x',
        'shop.example.com/x',
        'https://{domain}/x',
        'https://shop.{tld}/x',
        '{scheme}://shop.example.com',
        'https://user:pw@shop.example.com/',
        'https://shop.example.com/a b',
        'https://shop.example.com/{first name}',
        'https://shop.example.com/{unclosed',
        'javascript:alert(1)',
      ];
      for (const url of bad) {
        const r = await l.call('POST', '/offers', { token: A, body: { name: 'x', originalUrl: url } });
        expect({ url, status: r.status, path: r.body.violations?.[0]?.propertyPath }).toEqual({ url, status: 400, path: 'originalUrl' });
      }
      const ok = await l.call('POST', '/offers', { token: A, body: { name: 'Landing', originalUrl: 'https://shop.example.com/p/{productId}?n={firstName}&again={firstName}#{section}' } });
      expect(ok.body).toMatchObject({ variables: ['productId', 'firstName', 'section'], expireMethod: 'never', expireInDays: null, state: 'active', expiresAt: null });
      expect((await l.call('POST', '/offers', { token: A, body: { name: 'x', originalUrl: 'https://shop.example.com/', expireMethod: 'offer_creation' } })).status).toBe(400);
    });

    it('takes the message texts\' {{firstName}} in a target URL as {firstName}, on create and edit, still never in the host (walkthrough 6)', async () => {
      const o = await l.call('POST', '/offers', { token: A, body: { name: 'Both forms', originalUrl: 'https://shop.example.com/p/{{productId}}?n={{ firstName }}&c={city}' } });
      expect(o.status).toBe(201);
      expect(o.body).toMatchObject({ originalUrl: 'https://shop.example.com/p/{productId}?n={firstName}&c={city}', variables: ['productId', 'firstName', 'city'] });
      const edited = await l.call('PUT', `/offers/${o.body.id}`, { token: A, body: { originalUrl: 'https://shop.example.com/q?n={{lastName}}' } });
      expect(edited.body).toMatchObject({ originalUrl: 'https://shop.example.com/q?n={lastName}', variables: ['lastName'] });
      for (const url of ['https://{{domain}}/x', 'https://shop.example.com/{{first name}}', 'https://shop.example.com/{{firstName}']) {
        const r = await l.call('POST', '/offers', { token: A, body: { name: 'x', originalUrl: url } });
        expect({ url, status: r.status }).toEqual({ url, status: 400 });
      }
    });

    it('moves an offer to about to expire at ttlDays minus 3 days and to expired at ttlDays (frozen clock)', async () => {
      const start = l.clock.now().getTime();
      const o = (await l.call('POST', '/offers', { token: A, body: { name: 'Ten days', originalUrl: 'https://shop.example.com/ten', expireInDays: 10 } })).body;
      expect(o).toMatchObject({ expireMethod: 'offer_creation', state: 'active', expiresAt: new Date(start + 10 * DAY).toISOString() });
      const link = (await l.call('POST', '/offers', { token: A, body: { name: 'Per link', originalUrl: 'https://shop.example.com/link', expireInDays: 10, expireMethod: 'link_creation' } })).body;
      const off = (await l.call('POST', '/offers', { token: A, body: { name: 'Off', originalUrl: 'https://shop.example.com/off', expireInDays: 10, disabled: true } })).body;
      const stateAt = async (ms: number) => {
        l.clock.set(start + ms);
        const one = (await l.call('GET', `/offers/${o.id}`, { token: A })).body.state;
        const listed = (await l.call('GET', `/offers?state=${one}`, { token: A })).body.items.map((x: Json) => x.id);
        expect({ ms, listedUnderItsState: listed.includes(o.id) }).toEqual({ ms, listedUnderItsState: true });
        return one;
      };
      expect(await stateAt(7 * DAY - 1)).toBe('active');
      expect(await stateAt(7 * DAY)).toBe('about_to_expire');
      expect(await stateAt(10 * DAY - 1)).toBe('about_to_expire');
      expect(await stateAt(10 * DAY)).toBe('expired');
      // expiring per link and disabled offers never take the offer's own expiry states
      expect((await l.call('GET', `/offers/${link.id}`, { token: A })).body.state).toBe('active');
      expect((await l.call('GET', `/offers/${off.id}`, { token: A })).body.state).toBe('disabled');
      // the dropdown offers neither the expired nor the disabled one
      const dropdown = (await l.call('GET', '/offers/dropdown', { token: A })).body.items.map((x: Json) => x.id);
      expect(dropdown).toContain(link.id);
      expect(dropdown).not.toContain(o.id);
      expect(dropdown).not.toContain(off.id);
      // re-enabled and given more days: active again
      expect((await l.call('PUT', `/offers/${o.id}`, { token: A, body: { expireInDays: 30 } })).body.state).toBe('active');
      expect((await l.call('PUT', `/offers/${off.id}`, { token: A, body: { state: 'active' } })).body.state).toBe('expired');
      l.clock.set(start);
      await l.flush();
      const changes = l.published.filter((e) => e.type === OfferChangedV1.type && (e.data as Json).offerId === String(o.id)).map((e) => (e.data as Json).expireInDays);
      expect(changes).toEqual([10, 30]);
    });
  });

  // `GET /campaign_domain_statistics` is answered by stats from the link events (docs/decisions/0046); a domain's own
  // clicks still come from the redirect role's click rollup
  describe("a domain's clicks", () => {
    it("come from the redirect role's click rollup once its tables exist", async () => {
      const acc = '302';
      const B = l.token(acc);
      const [d1, d2] = (await l.call('POST', '/domains/bulk', { token: B, body: { domains: ['s1.example.com', 's2.example.com'] } })).body.data as Json[];
      await l.sql(`UPDATE links.domain SET total_usages = 40, total_clicks = 2 WHERE id = $1`, [d1.id]);
      // the redirect role's tables (docs/decisions/0034), as its migration makes them
      await l.sql(`CREATE TABLE IF NOT EXISTS links.link (domain_id bigint NOT NULL, code bigint NOT NULL, account_id bigint NOT NULL, target_id bigint NOT NULL, campaign_id bigint, created_at timestamptz NOT NULL, PRIMARY KEY (domain_id, code))`);
      await l.sql(`CREATE TABLE IF NOT EXISTS links.click_stats (account_id bigint NOT NULL, campaign_id bigint NOT NULL, variant_id bigint NOT NULL, domain_id bigint NOT NULL,
        clicks bigint NOT NULL DEFAULT 0, first_clicks bigint NOT NULL DEFAULT 0, first_click_delay_ms bigint NOT NULL DEFAULT 0, preview_clicks bigint NOT NULL DEFAULT 0, PRIMARY KEY (account_id, campaign_id, variant_id, domain_id))`);
      // campaign 7: 30 links on s1, 10 on s2; campaign 8: 5 on s1; another account's campaign 7 on its own domain
      await l.sql(
        `INSERT INTO links.link (domain_id, code, account_id, target_id, campaign_id, created_at)
         SELECT d, 1000000 + row_number() OVER (), $4, 1, c, now() FROM (SELECT $1::bigint AS d, 7 AS c FROM generate_series(1, 30) UNION ALL SELECT $2, 7 FROM generate_series(1, 10) UNION ALL SELECT $1, 8 FROM generate_series(1, 5)) x
         UNION ALL SELECT $3, 2000000, 301, 1, 7, now()`,
        [d1.id, d2.id, (await l.sql<{ id: string }>(`SELECT id::text FROM links.domain WHERE account_id = 301 LIMIT 1`))[0].id, acc],
      );
      await l.sql(
        `INSERT INTO links.click_stats (account_id, campaign_id, variant_id, domain_id, clicks, first_clicks) VALUES
         ($3, 7, 1, $1, 5, 3), ($3, 7, 2, $1, 2, 2), ($3, 7, 0, $2, 1, 1), ($3, 0, 0, $2, 9, 9), (301, 7, 0, $1, 50, 50)`,
        [d1.id, d2.id, acc],
      );
      // the domains' clicks (and CTR) now come from the click rollup: s2 has 10 counted clicks over no usages of its own counter
      expect((await l.call('GET', `/domains/${d2.id}`, { token: B })).body).toMatchObject({ totalClicks: 10 });
    });
  });
});
