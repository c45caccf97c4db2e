import type { ContactFieldType } from '@switchboard/contracts';
import { fieldValue, firstText, type Connector, type ConnectorContext, type CrmContact } from './connector';
import { joinUrl } from './http';
import { standardAuthorizeUrl, tokenRequest } from './oauth';

/**
 * Zoho CRM (zoho.com/crm/developer/docs/api/v2): OAuth 2 only (accounts.zoho.com; `access_type=offline` for a refresh
 * token; access tokens live an hour; the answer's `api_domain` is the account's data centre), the header
 * `Authorization: Zoho-oauthtoken <token>`; `page`/`per_page` paging with `info.more_records`; Contacts and their
 * fields (`settings/fields?module=Contacts`, `api_name`); changes by `If-Modified-Since` (304 when none) and the
 * deleted records' list; users with their profiles; notes on a contact.
 */
const SCOPES = 'ZohoCRM.modules.ALL,ZohoCRM.users.READ,ZohoCRM.settings.ALL,ZohoCRM.org.READ';
const head = (ctx: ConnectorContext) => ({ authorization: `Zoho-oauthtoken ${ctx.credentials.accessToken ?? ''}` });
const SKIP = new Set(['id', 'Owner', '$approval', '$currency_symbol', '$editable', '$process_flow', '$review', '$review_process', '$state', '$approved', '$followed', 'Tag']);

function contact(r: Record<string, unknown>): CrmContact {
  const fields: CrmContact['fields'] = {};
  for (const [k, v] of Object.entries(r)) if (!SKIP.has(k) && !k.startsWith('$')) fields[k] = fieldValue(v);
  return { externalId: String(r.id), phone: firstText(r.Mobile, r.Phone), firstName: firstText(r.First_Name), lastName: firstText(r.Last_Name), email: firstText(r.Email), fields, updatedAt: firstText(r.Modified_Time) };
}

function typeOf(t: string): ContactFieldType {
  if (['integer', 'double', 'currency', 'bigint', 'decimal'].includes(t)) return 'number';
  if (t === 'date' || t === 'datetime') return 'date';
  if (t === 'picklist' || t === 'multiselectpicklist') return 'enum';
  if (t === 'boolean') return 'boolean';
  if (t === 'phone') return 'phone';
  if (t === 'email') return 'email';
  return 'string';
}

export const zoho: Connector = {
  type: 'zoho',
  name: 'Zoho CRM',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://www.zohoapis.com/crm/v2', authorizeUrl: 'https://accounts.zoho.com/oauth/v2/auth', tokenUrl: 'https://accounts.zoho.com/oauth/v2/token' },
  domain: null,
  contactUrl: () => null,
  oauth: {
    authorizeUrl: ({ endpoints, clientId, redirectUri, state }) => standardAuthorizeUrl(endpoints.authorizeUrl as string, { clientId, redirectUri, state, scope: SCOPES, extra: { access_type: 'offline', prompt: 'consent' } }),
    exchangeCode: (ctx, a) => tokenRequest(ctx, { grant_type: 'authorization_code', code: a.code, redirect_uri: a.redirectUri }, a),
    refresh: (ctx, a) => tokenRequest(ctx, { grant_type: 'refresh_token', refresh_token: a.refreshToken }, a),
  },
  company: {
    company: async (ctx) => {
      const r = await ctx.http.json<{ org?: Array<{ company_name?: string }> }>({ url: joinUrl(ctx.endpoints.apiUrl, '/org'), headers: head(ctx) });
      return { companyName: r.org?.[0]?.company_name ?? null };
    },
  },
  users: {
    profiles: async (ctx) => ((await ctx.http.json<{ profiles?: Array<{ id: string; name: string }> }>({ url: joinUrl(ctx.endpoints.apiUrl, '/settings/profiles'), headers: head(ctx) })).profiles ?? []).map((p) => ({ id: String(p.id), name: p.name })),
    listUsers: async (ctx) => {
      const out = [];
      for (let page = 1; ; page++) {
        const r = await ctx.http.json<{ users?: Array<{ id: string; email: string; first_name?: string; last_name?: string; status: string; profile?: { id: string; name: string } }>; info?: { more_records?: boolean } } | null>({
          url: joinUrl(ctx.endpoints.apiUrl, '/users'),
          query: { type: 'AllUsers', page, per_page: 200 },
          headers: head(ctx),
        });
        for (const u of r?.users ?? []) out.push({ externalId: String(u.id), email: u.email, firstName: u.first_name ?? null, lastName: u.last_name ?? null, admin: u.profile?.name === 'Administrator', profile: u.profile ? String(u.profile.id) : null, active: u.status === 'active' });
        if (!r?.info?.more_records) return out;
      }
    },
  },
  contacts: {
    contactFields: async (ctx) => {
      const r = await ctx.http.json<{ fields?: Array<{ api_name: string; field_label: string; data_type: string; pick_list_values?: Array<{ display_value: string; actual_value: string }> }> }>({
        url: joinUrl(ctx.endpoints.apiUrl, '/settings/fields'),
        query: { module: 'Contacts' },
        headers: head(ctx),
      });
      return (r.fields ?? []).map((f) => ({ name: f.api_name, label: f.field_label, type: typeOf(f.data_type), options: (f.pick_list_values ?? []).map((o) => ({ value: o.actual_value, label: o.display_value })) }));
    },
    listContacts: async (ctx, { cursor, limit, fields }) => {
      const page = Number(cursor ?? 1);
      // 204 No Content when the module is empty
      const r = await ctx.http.json<{ data?: Array<Record<string, unknown>>; info?: { more_records?: boolean; count?: number } } | null>({
        url: joinUrl(ctx.endpoints.apiUrl, '/Contacts'),
        query: { page, per_page: Math.min(limit, 200), fields: fields.slice(0, 50).join(',') || undefined },
        headers: head(ctx),
      });
      return { items: (r?.data ?? []).map(contact), next: r?.info?.more_records ? String(page + 1) : null, total: null };
    },
  },
  changes: {
    listChanges: async (ctx, { since, cursor, limit, fields }) => {
      const page = Number(cursor ?? 1);
      const headers = { ...head(ctx), 'if-modified-since': new Date(since).toISOString().replace(/\.\d{3}Z$/, '+00:00') };
      const r = await ctx.http.json<{ data?: Array<Record<string, unknown>>; info?: { more_records?: boolean } } | null>({
        url: joinUrl(ctx.endpoints.apiUrl, '/Contacts'),
        query: { page, per_page: Math.min(limit, 200), fields: fields.slice(0, 50).join(',') || undefined, sort_by: 'Modified_Time', sort_order: 'asc' },
        headers,
      });
      const items = (r?.data ?? []).map(contact);
      let deleted: string[] = [];
      if (page === 1) {
        const d = await ctx.http.json<{ data?: Array<{ id: string }> } | null>({ url: joinUrl(ctx.endpoints.apiUrl, '/Contacts/deleted'), query: { type: 'all' }, headers });
        deleted = (d?.data ?? []).map((x) => String(x.id));
      }
      const watermark = [since, ...items.map((c) => (c.updatedAt ? new Date(c.updatedAt).toISOString() : null))].filter((x): x is string => !!x).sort().at(-1) as string;
      return { items, deleted, next: r?.info?.more_records ? String(page + 1) : null, watermark };
    },
  },
  activity: {
    pushNote: async (ctx, { externalId, text }) => {
      await ctx.http.json({ method: 'POST', url: joinUrl(ctx.endpoints.apiUrl, '/Notes'), headers: head(ctx), json: { data: [{ Note_Title: 'Switchboard', Note_Content: text, Parent_Id: externalId, se_module: 'Contacts' }] } });
    },
  },
};
