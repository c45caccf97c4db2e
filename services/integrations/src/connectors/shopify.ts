import { fieldValue, firstText, type Connector, type ConnectorContext, type CrmContact } from './connector';
import { joinUrl, VendorRefused } from './http';
import { standardAuthorizeUrl } from './oauth';

/**
 * Shopify Admin REST API 2024-01 (shopify.dev/docs/api/admin-rest): OAuth per shop (`{shop}/admin/oauth/authorize`,
 * the code exchanged at `{shop}/admin/oauth/access_token` for an offline token that does not expire) or a custom
 * app's Admin API token, both sent as `X-Shopify-Access-Token`; customers paged by cursor in the `Link` header
 * (`page_info`), changes by `updated_at_min`, deletions from the Events API (`filter=Customer&verb=destroy`), the count from `customers/count.json`; staff from `users.json`
 * (Shopify Plus); a note on the customer.
 */
const SCOPES = 'read_customers,write_customers,read_users';
const head = (ctx: ConnectorContext) => ({ 'x-shopify-access-token': ctx.credentials.accessToken ?? ctx.credentials.apiKey ?? '' });

interface ShCustomer {
  id: number;
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  phone?: string | null;
  updated_at?: string;
  tags?: string;
  orders_count?: number;
  total_spent?: string;
  state?: string;
  verified_email?: boolean;
  currency?: string;
  default_address?: { phone?: string | null; country_code?: string | null; city?: string | null } | null;
}

const FIELDS: Array<{ name: string; label: string; type: 'string' | 'number' | 'boolean' | 'enum'; options?: string[] }> = [
  { name: 'tags', label: 'Tags', type: 'string' },
  { name: 'orders_count', label: 'Orders', type: 'number' },
  { name: 'total_spent', label: 'Total spent', type: 'number' },
  { name: 'state', label: 'Account state', type: 'enum', options: ['disabled', 'invited', 'enabled', 'declined'] },
  { name: 'verified_email', label: 'Verified email', type: 'boolean' },
  { name: 'currency', label: 'Currency', type: 'string' },
  { name: 'country', label: 'Country', type: 'string' },
  { name: 'city', label: 'City', type: 'string' },
];

function customer(c: ShCustomer): CrmContact {
  return {
    externalId: String(c.id),
    phone: firstText(c.phone, c.default_address?.phone),
    firstName: firstText(c.first_name),
    lastName: firstText(c.last_name),
    email: firstText(c.email),
    fields: {
      tags: fieldValue(c.tags ?? null),
      orders_count: fieldValue(c.orders_count ?? null),
      total_spent: c.total_spent === undefined ? null : Number(c.total_spent),
      state: fieldValue(c.state ?? null),
      verified_email: fieldValue(c.verified_email ?? null),
      currency: fieldValue(c.currency ?? null),
      country: fieldValue(c.default_address?.country_code ?? null),
      city: fieldValue(c.default_address?.city ?? null),
    },
    updatedAt: c.updated_at ? new Date(c.updated_at).toISOString() : null,
  };
}

/** The `page_info` of the Link header's rel="next" URL (RFC 8288), or null. */
export function nextPageInfo(link: string | null): string | null {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return new URL(m[1]).searchParams.get('page_info');
  }
  return null;
}

async function page(ctx: ConnectorContext, query: Record<string, string | number | undefined>): Promise<{ items: CrmContact[]; next: string | null }> {
  const r = await ctx.http.request<{ customers?: ShCustomer[] }>({ url: joinUrl(ctx.endpoints.apiUrl, '/customers.json'), query, headers: head(ctx) });
  return { items: (r.body?.customers ?? []).map(customer), next: nextPageInfo(r.headers.get('link')) };
}

async function shop(ctx: ConnectorContext): Promise<{ companyName: string | null }> {
  const r = await ctx.http.json<{ shop?: { name?: string } }>({ url: joinUrl(ctx.endpoints.apiUrl, '/shop.json'), headers: head(ctx) });
  return { companyName: r.shop?.name ?? null };
}

export const shopify: Connector = {
  type: 'shopify',
  name: 'Shopify',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://{domain}/admin/api/2024-01', authorizeUrl: 'https://{domain}/admin/oauth/authorize', tokenUrl: 'https://{domain}/admin/oauth/access_token' },
  domain: { required: true, pattern: /^[a-z0-9][a-z0-9-]{0,62}\.myshopify\.com$/ },
  contactUrl: (ctx, id) => (ctx.domain ? `https://${ctx.domain}/admin/customers/${encodeURIComponent(id)}` : null),
  oauth: {
    authorizeUrl: ({ endpoints, clientId, redirectUri, state }) => standardAuthorizeUrl(endpoints.authorizeUrl as string, { clientId, redirectUri, state, scope: SCOPES }),
    exchangeCode: async (ctx, a) => {
      const t = await ctx.http.json<{ access_token?: string; scope?: string }>({ method: 'POST', url: ctx.endpoints.tokenUrl as string, json: { client_id: a.clientId, client_secret: a.clientSecret, code: a.code } });
      if (!t?.access_token) throw new VendorRefused('Shopify answered no access token', 400);
      return { accessToken: t.access_token };
    },
  },
  apiKey: { verifyKey: (ctx) => shop(ctx) },
  company: { company: (ctx) => shop(ctx) },
  users: {
    profiles: async () => [
      { id: 'owner', name: 'Store owner' },
      { id: 'staff', name: 'Staff' },
    ],
    listUsers: async (ctx) =>
      ((await ctx.http.json<{ users?: Array<{ id: number; email: string; first_name?: string; last_name?: string; account_owner?: boolean; user_type?: string; locked?: boolean }> }>({ url: joinUrl(ctx.endpoints.apiUrl, '/users.json'), headers: head(ctx) })).users ?? []).map((u) => ({
        externalId: String(u.id),
        email: u.email,
        firstName: u.first_name ?? null,
        lastName: u.last_name ?? null,
        admin: !!u.account_owner,
        profile: u.account_owner ? 'owner' : 'staff',
        active: !u.locked,
      })),
  },
  contacts: {
    contactFields: async () => FIELDS.map((f) => ({ name: f.name, label: f.label, type: f.type, options: (f.options ?? []).map((o) => ({ value: o, label: o })) })),
    countContacts: async (ctx) => (await ctx.http.json<{ count?: number }>({ url: joinUrl(ctx.endpoints.apiUrl, '/customers/count.json'), headers: head(ctx) })).count ?? null,
    listContacts: async (ctx, { cursor, limit }) => ({ ...(await page(ctx, { limit: Math.min(limit, 250), page_info: cursor ?? undefined })), total: null }),
  },
  changes: {
    listChanges: async (ctx, { since, cursor, limit }) => {
      // with page_info Shopify takes no other filter: the cursor carries it
      const r = await page(ctx, cursor ? { limit: Math.min(limit, 250), page_info: cursor } : { limit: Math.min(limit, 250), updated_at_min: since, order: 'updated_at asc' });
      const watermark = [since, ...r.items.map((c) => c.updatedAt)].filter((x): x is string => !!x).sort().at(-1) as string;
      return { items: r.items, deleted: [], next: r.next, watermark };
    },
  },
  deletions: {
    // a deleted customer leaves an Event (subject_type Customer, verb destroy); with page_info the Events API takes no
    // other filter, so the cursor carries them
    listDeleted: async (ctx, { since, cursor, limit }) => {
      const query = cursor ? { limit: Math.min(limit, 250), page_info: cursor } : { limit: Math.min(limit, 250), filter: 'Customer', verb: 'destroy', created_at_min: since };
      const r = await ctx.http.request<{ events?: Array<{ id: number; subject_id: number; subject_type?: string; verb?: string; created_at?: string }> }>({ url: joinUrl(ctx.endpoints.apiUrl, '/events.json'), query, headers: head(ctx) });
      const events = (r.body?.events ?? []).filter((e) => e.subject_type === 'Customer' && e.verb === 'destroy' && e.subject_id !== undefined && e.subject_id !== null);
      const watermark = [since, ...events.map((e) => (e.created_at ? new Date(e.created_at).toISOString() : null))].filter((x): x is string => !!x).sort().at(-1) as string;
      return { deleted: events.map((e) => String(e.subject_id)), next: nextPageInfo(r.headers.get('link')), watermark };
    },
  },
  activity: {
    pushNote: async (ctx, { externalId, text }) => {
      await ctx.http.json({ method: 'PUT', url: joinUrl(ctx.endpoints.apiUrl, `/customers/${encodeURIComponent(externalId)}.json`), headers: head(ctx), json: { customer: { id: Number(externalId), note: text } } });
    },
  },
};
