import { ALL_PERMISSIONS, Permission } from '@switchboard/contracts';
import { DnsZone } from '@switchboard/platform/testing';
import { startLinks, type Json, type LinksTestApp } from './support';

const P = Permission;
type Ids = { domain: number; pool: number; offer: number; member: number };
interface Row {
  method: string;
  path: (ids: Ids) => string;
  perm: string;
  /** Further rights the route needs besides `perm` (all of them). */
  also?: string[];
  body?: (ids: Ids) => unknown;
  /** The route reads or changes one resource by id: another account's id is a 404. */
  item?: boolean;
}

let n = 0;
const uniq = () => `d${++n}-${Date.now().toString(36)}.example.com`;

/** Every links route: who may call it (spec 6: DOMAIN_* and URL_OFFER_* rights), and that accounts never see each other. */
const ROUTES: Row[] = [
  { method: 'GET', path: () => '/domains', perm: P.DomainView },
  { method: 'GET', path: () => '/domains/dropdown', perm: P.DomainView },
  { method: 'GET', path: () => '/domains/dashboard', perm: P.DomainView },
  { method: 'GET', path: () => '/domains/messages_limit', perm: P.DomainView },
  { method: 'POST', path: () => '/domains/messages_limit', perm: P.DomainAddEdit, body: () => ({ limit: 1000 }) },
  { method: 'POST', path: () => '/domains/bulk', perm: P.DomainAddEdit, body: () => ({ domains: [uniq()] }) },
  { method: 'POST', path: () => '/domains/bulk_action', perm: P.DomainAddEdit, body: (i) => ({ action: 'set_limit', ids: [i.domain], messagesLimit: 5 }) },
  { method: 'POST', path: (i) => `/domains/archive/${i.domain}`, perm: P.DomainAddEdit, body: () => ({}), item: true },
  { method: 'POST', path: (i) => `/domains/${i.domain}/check`, perm: P.DomainAddEdit, item: true },
  { method: 'GET', path: (i) => `/domains/${i.domain}`, perm: P.DomainView, item: true },
  { method: 'POST', path: () => '/domains', perm: P.DomainAddEdit, body: () => ({ name: uniq() }) },
  { method: 'PUT', path: (i) => `/domains/${i.domain}`, perm: P.DomainAddEdit, body: () => ({ messagesLimit: 7 }), item: true },
  { method: 'DELETE', path: (i) => `/domains/${i.domain}`, perm: P.DomainRemove, item: true },
  { method: 'GET', path: () => '/domain_pools', perm: P.DomainView },
  { method: 'GET', path: () => '/domain_pools/dropdown', perm: P.DomainView },
  { method: 'GET', path: () => '/domain_pools/dashboard', perm: P.DomainView },
  { method: 'GET', path: () => '/domain_pools/settings', perm: P.DomainView },
  { method: 'PUT', path: () => '/domain_pools/settings', perm: P.DomainAddEdit, body: () => ({ maxDomainsPerPool: 50 }) },
  { method: 'GET', path: (i) => `/domain_pools/${i.pool}/domains`, perm: P.DomainView, item: true },
  { method: 'POST', path: (i) => `/domain_pools/${i.pool}/domains`, perm: P.DomainAddEdit, body: (i) => ({ domains: [i.domain] }), item: true },
  { method: 'DELETE', path: (i) => `/domain_pools/${i.pool}/domains/${i.member}`, perm: P.DomainAddEdit, item: true },
  { method: 'GET', path: (i) => `/domain_pools/${i.pool}`, perm: P.DomainView, item: true },
  { method: 'POST', path: () => '/domain_pools', perm: P.DomainAddEdit, body: () => ({ name: 'pool', distribution: 1 }) },
  { method: 'PUT', path: (i) => `/domain_pools/${i.pool}`, perm: P.DomainAddEdit, body: () => ({ name: 'renamed' }), item: true },
  { method: 'DELETE', path: (i) => `/domain_pools/${i.pool}`, perm: P.DomainRemove, item: true },
  { method: 'GET', path: () => '/offers', perm: P.UrlOfferView },
  { method: 'GET', path: () => '/offers/dropdown', perm: P.UrlOfferView },
  { method: 'GET', path: (i) => `/offers/${i.offer}`, perm: P.UrlOfferView, item: true },
  { method: 'POST', path: () => '/offers', perm: P.UrlOfferAddEdit, body: () => ({ name: 'o', originalUrl: 'https://shop.example.com/?n={firstName}', expireInDays: 10 }) },
  { method: 'PUT', path: (i) => `/offers/${i.offer}`, perm: P.UrlOfferAddEdit, body: () => ({ name: 'renamed' }), item: true },
  { method: 'DELETE', path: (i) => `/offers/${i.offer}`, perm: P.UrlOfferRemove, item: true },
  // the campaign wizard's add domain into a pool: both the campaign and the domain rights
  { method: 'POST', path: () => '/campaigns/add/domain', perm: P.CampaignAddEdit, also: [P.DomainAddEdit], body: (i) => ({ domains: [uniq()], pool: i.pool }), item: true },
  { method: 'POST', path: () => '/campaigns/add/domain', perm: P.DomainAddEdit, also: [P.CampaignAddEdit], body: (i) => ({ domains: [uniq()], pool: i.pool }), item: true },
];

describe('links access: permissions and tenant isolation on every route', () => {
  let zone: DnsZone;
  let l: LinksTestApp;

  /** Fresh resources of `account` for one call (so a DELETE or archive never changes what the next row uses). */
  const fresh = async (account: string): Promise<Ids> => {
    const all = l.token(account);
    const bulk = await l.call('POST', '/domains/bulk', { token: all, body: { domains: [uniq(), uniq()] } });
    const [d, m] = bulk.body.data as Json[];
    const pool = await l.call('POST', '/domain_pools', { token: all, body: { name: 'p', domains: [m.id] } });
    const offer = await l.call('POST', '/offers', { token: all, body: { name: 'o', originalUrl: 'https://shop.example.com/x' } });
    return { domain: d.id, member: m.id, pool: pool.body.id, offer: offer.body.id };
  };

  beforeAll(async () => {
    zone = await new DnsZone().start();
    l = await startLinks({ dnsServers: [zone.address], dnsTimeoutMs: 300 });
  });

  afterAll(async () => {
    await l?.close();
    await zone?.stop();
  });

  it('refuses every route without a token (401) and without its permission (403), changing nothing', async () => {
    const ids = await fresh('201');
    const before = await l.sql(`SELECT id, state, messages_limit FROM links.domain ORDER BY id`);
    for (const r of ROUTES) {
      const noToken = await l.call(r.method, r.path(ids), { body: r.body?.(ids) });
      expect({ route: `${r.method} ${r.path(ids)}`, status: noToken.status }).toEqual({ route: `${r.method} ${r.path(ids)}`, status: 401 });
      // every other right of the product, but not this one
      const without = await l.call(r.method, r.path(ids), { token: l.token('201', ALL_PERMISSIONS.filter((x) => x !== r.perm)), body: r.body?.(ids) });
      expect({ route: `${r.method} ${r.path(ids)}`, status: without.status, code: without.body.code }).toEqual({ route: `${r.method} ${r.path(ids)}`, status: 403, code: 'NO_PERMISSIONS' });
    }
    expect(await l.sql(`SELECT id, state, messages_limit FROM links.domain ORDER BY id`)).toEqual(before);
  });

  it('serves every route with exactly its permission', async () => {
    for (const r of ROUTES) {
      const ids = await fresh('202');
      const res = await l.call(r.method, r.path(ids), { token: l.token('202', [r.perm, ...(r.also ?? [])]), body: r.body?.(ids) });
      expect({ route: `${r.method} ${r.path(ids)}`, ok: res.status >= 200 && res.status < 300, body: res.status < 300 ? null : res.body }).toEqual({ route: `${r.method} ${r.path(ids)}`, ok: true, body: null });
    }
  });

  it("answers 404 for another account's domains, pools and offers, and never changes them", async () => {
    const ids = await fresh('203');
    const snapshot = async () => ({
      domains: await l.sql(`SELECT id, state, messages_limit, state_before_archive FROM links.domain WHERE account_id = 203 ORDER BY id`),
      pools: await l.sql(`SELECT id, name, distribution FROM links.domain_pool WHERE account_id = 203 ORDER BY id`),
      members: await l.sql(`SELECT pool_id, domain_id FROM links.domain_pool_member WHERE account_id = 203 ORDER BY 1, 2`),
      offers: await l.sql(`SELECT id, name FROM links.offer WHERE account_id = 203 ORDER BY id`),
    });
    const before = await snapshot();
    const other = l.token('204');
    for (const r of ROUTES.filter((x) => x.item)) {
      const res = await l.call(r.method, r.path(ids), { token: other, body: r.body?.(ids) });
      expect({ route: `${r.method} ${r.path(ids)}`, status: res.status }).toEqual({ route: `${r.method} ${r.path(ids)}`, status: 404 });
    }
    // bulk actions and pool membership only ever reach the caller's own domains
    expect((await l.call('POST', '/domains/bulk_action', { token: other, body: { action: 'archive', ids: [ids.domain] } })).body).toMatchObject({ affected: 0 });
    const own = await fresh('204');
    expect((await l.call('POST', `/domain_pools/${own.pool}/domains`, { token: other, body: { domains: [ids.domain] } })).status).toBe(404);
    expect((await l.call('POST', '/domain_pools', { token: other, body: { name: 'steal', domains: [ids.domain] } })).status).toBe(404);
    expect(await snapshot()).toEqual(before);

    // lists, dropdowns and dashboards hold the caller's own rows only
    const ofA = async (table: string) => (await l.sql<{ id: string }>(`SELECT id::text FROM links.${table} WHERE account_id = 203`)).map((r) => Number(r.id));
    const lists: Array<[string, string]> = [['/domains', 'domain'], ['/domains/dropdown', 'domain'], ['/domain_pools', 'domain_pool'], ['/domain_pools/dropdown', 'domain_pool'], ['/offers', 'offer'], ['/offers/dropdown', 'offer']];
    for (const [path, table] of lists) {
      const theirs = await ofA(table);
      const items = (await l.call('GET', path, { token: other })).body.items as Json[];
      expect(items.length).toBeGreaterThan(0);
      expect({ path, leaked: items.filter((x) => theirs.includes(x.id)) }).toEqual({ path, leaked: [] });
    }
    const dash = (await l.call('GET', '/domains/dashboard', { token: l.token('205') })).body;
    expect(dash.total).toBe(0);
  });
});
