import type { ContactFieldType } from '@switchboard/contracts';
import { fieldValue, firstText, type Connector, type ConnectorContext, type CrmContact } from './connector';
import { joinUrl } from './http';
import { standardAuthorizeUrl, tokenRequest } from './oauth';

/**
 * Pipedrive (developers.pipedrive.com, API v1): OAuth 2 (oauth.pipedrive.com; the token request authenticates the
 * app with HTTP Basic; the answer's `api_domain` is the company's API host) or an API token (`api_token` query
 * parameter); `start`/`limit` paging (`additional_data.pagination.next_start`); persons and their fields
 * (`personFields`, custom fields by their hash key); changes from `/recents`; users and roles; notes on a person.
 * Admin-only (spec 6).
 */
type Pd<T> = { success: boolean; data: T; additional_data?: { pagination?: { more_items_in_collection?: boolean; next_start?: number }; last_timestamp_on_page?: string } };
interface PdPerson {
  id: number;
  name?: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: Array<{ value: string; primary?: boolean; label?: string }>;
  email?: Array<{ value: string; primary?: boolean }>;
  update_time?: string;
  active_flag?: boolean;
  [k: string]: unknown;
}

const auth = (ctx: ConnectorContext): { headers: Record<string, string>; query: Record<string, string> } =>
  ctx.credentials.accessToken ? { headers: { authorization: `Bearer ${ctx.credentials.accessToken}` }, query: {} } : { headers: {}, query: { api_token: ctx.credentials.apiKey ?? '' } };

async function get<T>(ctx: ConnectorContext, path: string, query: Record<string, string | number | undefined> = {}): Promise<Pd<T>> {
  const a = auth(ctx);
  return ctx.http.json<Pd<T>>({ url: joinUrl(ctx.endpoints.apiUrl, path), query: { ...query, ...a.query }, headers: a.headers });
}

const SKIP = new Set(['id', 'phone', 'email', 'first_name', 'last_name', 'name', 'update_time', 'add_time', 'owner_id', 'org_id', 'picture_id', 'related_closed_deals_count']);
/** Pipedrive's times are UTC `YYYY-MM-DD HH:MM:SS`. */
const pdTime = (t: string | undefined) => (t ? new Date(`${t.replace(' ', 'T')}Z`).toISOString() : null);
const toPdTime = (iso: string) => new Date(iso).toISOString().slice(0, 19).replace('T', ' ');

function person(p: PdPerson): CrmContact {
  const primary = <T extends { primary?: boolean; value: string }>(l: T[] | undefined) => (l ?? []).find((x) => x.primary && x.value)?.value ?? (l ?? []).find((x) => x.value)?.value;
  const fields: CrmContact['fields'] = {};
  for (const [k, v] of Object.entries(p)) if (!SKIP.has(k) && (typeof v !== 'object' || v === null || Array.isArray(v))) fields[k] = fieldValue(v);
  return { externalId: String(p.id), phone: firstText(primary(p.phone)), firstName: firstText(p.first_name, p.name), lastName: firstText(p.last_name), email: firstText(primary(p.email)), fields, updatedAt: pdTime(p.update_time) };
}

function typeOf(t: string): ContactFieldType {
  if (['double', 'int', 'monetary'].includes(t)) return 'number';
  if (['date', 'daterange', 'time'].includes(t)) return 'date';
  if (['enum', 'set', 'status'].includes(t)) return 'enum';
  if (t === 'phone') return 'phone';
  return 'string';
}

export const pipedrive: Connector = {
  type: 'pipedrive',
  name: 'Pipedrive',
  authMode: 'oauth',
  adminOnly: true,
  defaults: { apiUrl: 'https://api.pipedrive.com/v1', authorizeUrl: 'https://oauth.pipedrive.com/oauth/authorize', tokenUrl: 'https://oauth.pipedrive.com/oauth/token' },
  domain: { required: false, pattern: /^[a-z0-9][a-z0-9-]{0,62}$/ },
  contactUrl: (ctx, id) => (ctx.domain ? `https://${ctx.domain}.pipedrive.com/person/${encodeURIComponent(id)}` : null),
  oauth: {
    authorizeUrl: ({ endpoints, clientId, redirectUri, state }) => standardAuthorizeUrl(endpoints.authorizeUrl as string, { clientId, redirectUri, state }),
    exchangeCode: (ctx, a) => tokenRequest(ctx, { grant_type: 'authorization_code', code: a.code, redirect_uri: a.redirectUri }, { ...a, auth: 'basic' }),
    refresh: (ctx, a) => tokenRequest(ctx, { grant_type: 'refresh_token', refresh_token: a.refreshToken }, { ...a, auth: 'basic' }),
  },
  apiKey: { verifyKey: async (ctx) => company(ctx) },
  company: { company: (ctx) => company(ctx) },
  users: {
    profiles: async (ctx) => (await get<Array<{ id: number; name: string }>>(ctx, '/roles')).data?.map((r) => ({ id: String(r.id), name: r.name })) ?? [],
    listUsers: async (ctx) =>
      ((await get<Array<{ id: number; name: string; email: string; active_flag: boolean; is_admin: number; role_id: number | null }>>(ctx, '/users')).data ?? []).map((u) => {
        const [first, ...rest] = (u.name ?? '').split(' ');
        return { externalId: String(u.id), email: u.email, firstName: first || null, lastName: rest.join(' ') || null, admin: u.is_admin === 1, profile: u.role_id ? String(u.role_id) : null, active: u.active_flag };
      }),
  },
  contacts: {
    contactFields: async (ctx) =>
      ((await get<Array<{ key: string; name: string; field_type: string; options?: Array<{ id: number | string; label: string }> }>>(ctx, '/personFields')).data ?? []).map((f) => ({
        name: f.key,
        label: f.name,
        type: typeOf(f.field_type),
        options: (f.options ?? []).map((o) => ({ value: String(o.id), label: o.label })),
      })),
    listContacts: async (ctx, { cursor, limit }) => {
      const r = await get<PdPerson[] | null>(ctx, '/persons', { start: Number(cursor ?? 0), limit: Math.min(limit, 500) });
      const p = r.additional_data?.pagination;
      return { items: (r.data ?? []).map(person), next: p?.more_items_in_collection && p.next_start !== undefined ? String(p.next_start) : null, total: null };
    },
  },
  changes: {
    listChanges: async (ctx, { since, cursor, limit }) => {
      const r = await get<Array<{ item: string; id: number; data: PdPerson | null }> | null>(ctx, '/recents', { since_timestamp: toPdTime(since), items: 'person', start: Number(cursor ?? 0), limit: Math.min(limit, 500) });
      const rows = (r.data ?? []).filter((x) => x.item === 'person');
      const items = rows.filter((x) => x.data && x.data.active_flag !== false).map((x) => person(x.data as PdPerson));
      const deleted = rows.filter((x) => !x.data || x.data.active_flag === false).map((x) => String(x.id));
      const p = r.additional_data?.pagination;
      const last = pdTime(r.additional_data?.last_timestamp_on_page);
      const watermark = [since, last, ...items.map((c) => c.updatedAt)].filter((x): x is string => !!x).sort().at(-1) as string;
      return { items, deleted, next: p?.more_items_in_collection && p.next_start !== undefined ? String(p.next_start) : null, watermark };
    },
  },
  activity: {
    pushNote: async (ctx, { externalId, text }) => {
      const a = auth(ctx);
      await ctx.http.json({ method: 'POST', url: joinUrl(ctx.endpoints.apiUrl, '/notes'), query: a.query, headers: a.headers, json: { content: text, person_id: Number(externalId) } });
    },
  },
};

async function company(ctx: ConnectorContext): Promise<{ companyName: string | null }> {
  const me = await get<{ company_name?: string }>(ctx, '/users/me');
  return { companyName: me.data?.company_name ?? null };
}
