import type { ContactFieldType, IntegrationContactFieldDto } from '@switchboard/contracts';
import { fieldValue, firstText, type Connector, type ConnectorContext, type CrmContact } from './connector';
import { joinUrl } from './http';
import { bearer, standardAuthorizeUrl, tokenRequest } from './oauth';

/**
 * HubSpot CRM (developers.hubspot.com/docs/api): OAuth 2 (app.hubspot.com/oauth/authorize, api.hubapi.com/oauth/v1/token,
 * access tokens live 30 minutes) or a private app token (Bearer); CRM v3 objects paged by `after`
 * (`paging.next.after`), the contacts' properties (`/crm/v3/properties/contacts`), changes by the search API on
 * `lastmodifieddate`, deletions from the archived contacts (`archived=true`, `archivedAt`), users and roles from `/settings/v3/users`, notes associated to a contact (type 202).
 */
const SCOPES = 'crm.objects.contacts.read crm.objects.contacts.write crm.schemas.contacts.read settings.users.read oauth';
const BASE_PROPS = ['firstname', 'lastname', 'email', 'phone', 'mobilephone', 'lastmodifieddate'];

interface HsObject {
  id: string;
  properties: Record<string, string | null>;
  updatedAt?: string;
  archived?: boolean;
  archivedAt?: string;
}
interface HsPage<T> {
  results: T[];
  total?: number;
  paging?: { next?: { after?: string } };
}

function typeOf(p: { type?: string; fieldType?: string }): ContactFieldType {
  if (p.fieldType === 'phonenumber') return 'phone';
  switch (p.type) {
    case 'number':
      return 'number';
    case 'date':
    case 'datetime':
      return 'date';
    case 'enumeration':
      return p.fieldType === 'booleancheckbox' ? 'boolean' : 'enum';
    case 'bool':
      return 'boolean';
    default:
      return 'string';
  }
}

function contact(o: HsObject): CrmContact {
  const p = o.properties ?? {};
  const fields: CrmContact['fields'] = {};
  for (const [k, v] of Object.entries(p)) if (k !== 'hs_object_id') fields[k] = fieldValue(v);
  return {
    externalId: String(o.id),
    phone: firstText(p.mobilephone, p.phone),
    firstName: firstText(p.firstname),
    lastName: firstText(p.lastname),
    email: firstText(p.email),
    fields,
    updatedAt: firstText(p.lastmodifieddate, o.updatedAt),
  };
}

const props = (fields: string[]) => [...new Set([...BASE_PROPS, ...fields])].join(',');

export const hubspot: Connector = {
  type: 'hubspot',
  name: 'HubSpot',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://api.hubapi.com', authorizeUrl: 'https://app.hubspot.com/oauth/authorize', tokenUrl: 'https://api.hubapi.com/oauth/v1/token' },
  domain: null,
  contactUrl: () => null,
  oauth: {
    authorizeUrl: ({ endpoints, clientId, redirectUri, state }) => standardAuthorizeUrl(endpoints.authorizeUrl as string, { clientId, redirectUri, state, scope: SCOPES }),
    exchangeCode: (ctx, a) => tokenRequest(ctx, { grant_type: 'authorization_code', code: a.code, redirect_uri: a.redirectUri }, a),
    refresh: (ctx, a) => tokenRequest(ctx, { grant_type: 'refresh_token', refresh_token: a.refreshToken }, a),
  },
  apiKey: {
    verifyKey: async (ctx) => company(ctx),
  },
  company: { company: (ctx) => company(ctx) },
  users: {
    profiles: async (ctx) => {
      const r = await ctx.http.json<HsPage<{ id: string | number; name: string }>>({ url: joinUrl(ctx.endpoints.apiUrl, '/settings/v3/users/roles'), headers: bearer(ctx) });
      return (r.results ?? []).map((x) => ({ id: String(x.id), name: x.name }));
    },
    listUsers: async (ctx) => {
      const out = [];
      let after: string | undefined;
      do {
        const r = await ctx.http.json<HsPage<{ id: string; email: string; firstName?: string; lastName?: string; roleId?: string | number | null; superAdmin?: boolean }>>({
          url: joinUrl(ctx.endpoints.apiUrl, '/settings/v3/users'),
          query: { limit: 100, after },
          headers: bearer(ctx),
        });
        for (const u of r.results ?? []) {
          out.push({ externalId: String(u.id), email: u.email, firstName: u.firstName ?? null, lastName: u.lastName ?? null, admin: !!u.superAdmin, profile: u.roleId === null || u.roleId === undefined ? null : String(u.roleId), active: true });
        }
        after = r.paging?.next?.after;
      } while (after);
      return out;
    },
  },
  contacts: {
    contactFields: async (ctx): Promise<IntegrationContactFieldDto[]> => {
      const r = await ctx.http.json<HsPage<{ name: string; label: string; type: string; fieldType: string; hidden?: boolean; options?: Array<{ label: string; value: string; hidden?: boolean }> }>>({
        url: joinUrl(ctx.endpoints.apiUrl, '/crm/v3/properties/contacts'),
        headers: bearer(ctx),
      });
      return (r.results ?? [])
        .filter((p) => !p.hidden)
        .map((p) => ({ name: p.name, label: p.label, type: typeOf(p), options: (p.options ?? []).filter((o) => !o.hidden).map((o) => ({ value: o.value, label: o.label })) }));
    },
    listContacts: async (ctx, { cursor, limit, fields }) => {
      const r = await ctx.http.json<HsPage<HsObject>>({
        url: joinUrl(ctx.endpoints.apiUrl, '/crm/v3/objects/contacts'),
        query: { limit: Math.min(limit, 100), after: cursor ?? undefined, properties: props(fields), archived: false },
        headers: bearer(ctx),
      });
      return { items: (r.results ?? []).map(contact), next: r.paging?.next?.after ?? null, total: r.total ?? null };
    },
  },
  changes: {
    listChanges: async (ctx, { since, cursor, limit, fields }) => {
      const r = await ctx.http.json<HsPage<HsObject>>({
        method: 'POST',
        url: joinUrl(ctx.endpoints.apiUrl, '/crm/v3/objects/contacts/search'),
        headers: bearer(ctx),
        json: {
          filterGroups: [{ filters: [{ propertyName: 'lastmodifieddate', operator: 'GT', value: String(Date.parse(since)) }] }],
          sorts: [{ propertyName: 'lastmodifieddate', direction: 'ASCENDING' }],
          properties: props(fields).split(','),
          limit: Math.min(limit, 100),
          after: cursor ?? undefined,
        },
      });
      const items = (r.results ?? []).map(contact);
      const latest = items.reduce((m, c) => (c.updatedAt && Date.parse(c.updatedAt) > Date.parse(m) ? new Date(Date.parse(c.updatedAt)).toISOString() : m), since);
      return { items, deleted: [], next: r.paging?.next?.after ?? null, watermark: latest };
    },
  },
  deletions: {
    // deleted contacts are archived (restorable for 90 days): the objects API lists them with `archived=true` and
    // their `archivedAt`; it has no time filter, so the archived list is paged and filtered here
    listDeleted: async (ctx, { since, cursor, limit }) => {
      const r = await ctx.http.json<HsPage<HsObject>>({
        url: joinUrl(ctx.endpoints.apiUrl, '/crm/v3/objects/contacts'),
        query: { limit: Math.min(limit, 100), after: cursor ?? undefined, archived: true, properties: 'hs_object_id' },
        headers: bearer(ctx),
      });
      const t = Date.parse(since);
      const gone = (r.results ?? []).filter((o) => o.archived !== false && o.archivedAt && Date.parse(o.archivedAt) > t);
      const watermark = gone.reduce((m, o) => (Date.parse(o.archivedAt as string) > Date.parse(m) ? new Date(Date.parse(o.archivedAt as string)).toISOString() : m), since);
      return { deleted: gone.map((o) => String(o.id)), next: r.paging?.next?.after ?? null, watermark };
    },
  },
  activity: {
    pushNote: async (ctx, { externalId, text, occurredAt }) => {
      await ctx.http.json({
        method: 'POST',
        url: joinUrl(ctx.endpoints.apiUrl, '/crm/v3/objects/notes'),
        headers: bearer(ctx),
        json: {
          properties: { hs_note_body: text, hs_timestamp: occurredAt },
          associations: [{ to: { id: externalId }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 202 }] }],
        },
      });
    },
  },
};

async function company(ctx: ConnectorContext): Promise<{ companyName: string | null }> {
  const r = await ctx.http.json<{ portalId?: number; companyName?: string; uiDomain?: string }>({ url: joinUrl(ctx.endpoints.apiUrl, '/account-info/v3/details'), headers: bearer(ctx) });
  return { companyName: r.companyName ?? (r.portalId ? `HubSpot ${r.portalId}` : null) };
}
