import type { ContactFieldType } from '@switchboard/contracts';
import { fieldValue, firstText, type Connector, type ConnectorContext, type CrmContact } from './connector';
import { joinUrl, VendorRefused } from './http';
import { bearer, standardAuthorizeUrl } from './oauth';

/**
 * Intercom (developers.intercom.com, API 2.x): OAuth (app.intercom.com/oauth, the code exchanged at
 * api.intercom.io/auth/eagle/token for a token that does not expire) or an access token, both Bearer; contacts paged
 * by cursor (`pages.next.starting_after`), changes by the search API on `updated_at` (Unix seconds), deletions by
 * searching the known ids (deleted and archived contacts are not searchable) and a 404 on the contact, the contact
 * data attributes, admins and teams (the profiles), notes on a contact.
 */
interface IcContact {
  id: string;
  role?: string;
  email?: string | null;
  phone?: string | null;
  name?: string | null;
  updated_at?: number;
  custom_attributes?: Record<string, unknown>;
  [k: string]: unknown;
}
interface IcList {
  data?: IcContact[];
  total_count?: number;
  pages?: { next?: { starting_after?: string } | null };
}
const H = (ctx: ConnectorContext) => ({ ...bearer(ctx), 'intercom-version': '2.10' });
const STANDARD = ['role', 'external_id', 'owner_id', 'language_override', 'browser', 'os', 'unsubscribed_from_emails', 'signed_up_at', 'last_seen_at'];

function contact(c: IcContact): CrmContact {
  const [first, ...rest] = (c.name ?? '').trim().split(/\s+/);
  const fields: CrmContact['fields'] = {};
  for (const k of STANDARD) if (k in c) fields[k] = fieldValue(c[k]);
  for (const [k, v] of Object.entries(c.custom_attributes ?? {})) fields[k] = fieldValue(v);
  return { externalId: c.id, phone: firstText(c.phone), firstName: first || null, lastName: rest.join(' ') || null, email: firstText(c.email), fields, updatedAt: c.updated_at ? new Date(c.updated_at * 1000).toISOString() : null };
}

function typeOf(t: string, options: unknown[]): ContactFieldType {
  if (options.length) return 'enum';
  if (t === 'integer' || t === 'float') return 'number';
  if (t === 'boolean') return 'boolean';
  if (t === 'date') return 'date';
  return 'string';
}

async function me(ctx: ConnectorContext): Promise<{ companyName: string | null }> {
  const r = await ctx.http.json<{ app?: { name?: string } }>({ url: joinUrl(ctx.endpoints.apiUrl, '/me'), headers: H(ctx) });
  return { companyName: r.app?.name ?? null };
}

export const intercom: Connector = {
  type: 'intercom',
  name: 'Intercom',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://api.intercom.io', authorizeUrl: 'https://app.intercom.com/oauth', tokenUrl: 'https://api.intercom.io/auth/eagle/token' },
  domain: null,
  contactUrl: () => null,
  oauth: {
    authorizeUrl: ({ endpoints, clientId, redirectUri, state }) => standardAuthorizeUrl(endpoints.authorizeUrl as string, { clientId, redirectUri, state }),
    exchangeCode: async (ctx, a) => {
      const t = await ctx.http.json<{ token?: string; access_token?: string }>({ method: 'POST', url: ctx.endpoints.tokenUrl as string, json: { code: a.code, client_id: a.clientId, client_secret: a.clientSecret } });
      const token = t?.access_token ?? t?.token;
      if (!token) throw new VendorRefused('Intercom answered no access token', 400);
      return { accessToken: token };
    },
  },
  apiKey: { verifyKey: (ctx) => me(ctx) },
  company: { company: (ctx) => me(ctx) },
  users: {
    profiles: async (ctx) => ((await ctx.http.json<{ teams?: Array<{ id: string | number; name: string }> }>({ url: joinUrl(ctx.endpoints.apiUrl, '/teams'), headers: H(ctx) })).teams ?? []).map((t) => ({ id: String(t.id), name: t.name })),
    listUsers: async (ctx) =>
      ((await ctx.http.json<{ admins?: Array<{ id: string | number; name?: string; email: string; type?: string; team_ids?: Array<string | number>; has_inbox_seat?: boolean }> }>({ url: joinUrl(ctx.endpoints.apiUrl, '/admins'), headers: H(ctx) })).admins ?? [])
        .filter((a) => a.type !== 'team')
        .map((a) => {
          const [first, ...rest] = (a.name ?? '').split(' ');
          return { externalId: String(a.id), email: a.email, firstName: first || null, lastName: rest.join(' ') || null, admin: true, profile: a.team_ids?.length ? String(a.team_ids[0]) : null, active: a.has_inbox_seat !== false };
        }),
  },
  contacts: {
    contactFields: async (ctx) =>
      ((await ctx.http.json<{ data?: Array<{ name: string; label?: string; data_type: string; options?: Array<{ value: string }>; full_name?: string }> }>({ url: joinUrl(ctx.endpoints.apiUrl, '/data_attributes'), query: { model: 'contact' }, headers: H(ctx) })).data ?? [])
        .filter((a) => !['name', 'email', 'phone', 'id'].includes(a.name))
        .map((a) => ({ name: a.name, label: a.label ?? a.name, type: typeOf(a.data_type, a.options ?? []), options: (a.options ?? []).map((o) => ({ value: o.value, label: o.value })) })),
    listContacts: async (ctx, { cursor, limit }) => {
      const r = await ctx.http.json<IcList>({ url: joinUrl(ctx.endpoints.apiUrl, '/contacts'), query: { per_page: Math.min(limit, 150), starting_after: cursor ?? undefined }, headers: H(ctx) });
      return { items: (r.data ?? []).map(contact), next: r.pages?.next?.starting_after ?? null, total: r.total_count ?? null };
    },
  },
  changes: {
    listChanges: async (ctx, { since, cursor, limit }) => {
      const r = await ctx.http.json<IcList>({
        method: 'POST',
        url: joinUrl(ctx.endpoints.apiUrl, '/contacts/search'),
        headers: H(ctx),
        json: { query: { field: 'updated_at', operator: '>', value: Math.floor(Date.parse(since) / 1000) }, pagination: { per_page: Math.min(limit, 150), ...(cursor ? { starting_after: cursor } : {}) }, sort: { field: 'updated_at', order: 'ascending' } },
      });
      const items = (r.data ?? []).map(contact);
      const watermark = [since, ...items.map((c) => c.updatedAt)].filter((x): x is string => !!x).sort().at(-1) as string;
      return { items, deleted: [], next: r.pages?.next?.starting_after ?? null, watermark };
    },
  },
  deletions: {
    // the REST API has no feed of deleted contacts (webhooks push contact.deleted / contact.archived): deleted and
    // archived contacts are left out of search, so the known ids are searched (`id IN`); one not found is looked up
    // by id, and only a 404 (or an archived answer) counts: a contact created minutes ago may not be searchable yet
    goneOf: async (ctx, { ids }) => {
      const found = new Set<string>();
      let after: string | undefined;
      do {
        const r = await ctx.http.json<IcList>({
          method: 'POST',
          url: joinUrl(ctx.endpoints.apiUrl, '/contacts/search'),
          headers: H(ctx),
          json: { query: { field: 'id', operator: 'IN', value: ids }, pagination: { per_page: 150, ...(after ? { starting_after: after } : {}) } },
        });
        for (const c of r.data ?? []) found.add(String(c.id));
        after = r.pages?.next?.starting_after ?? undefined;
      } while (after);
      const gone: string[] = [];
      for (const id of ids.filter((x) => !found.has(x))) {
        try {
          const c = await ctx.http.json<IcContact & { archived?: boolean }>({ url: joinUrl(ctx.endpoints.apiUrl, `/contacts/${encodeURIComponent(id)}`), headers: H(ctx) });
          if (c?.archived === true) gone.push(id);
        } catch (e) {
          if (e instanceof VendorRefused && e.status === 404) gone.push(id);
          else throw e;
        }
      }
      return gone;
    },
  },
  activity: {
    pushNote: async (ctx, { externalId, text }) => {
      await ctx.http.json({ method: 'POST', url: joinUrl(ctx.endpoints.apiUrl, `/contacts/${encodeURIComponent(externalId)}/notes`), headers: H(ctx), json: { body: text } });
    },
  },
};
