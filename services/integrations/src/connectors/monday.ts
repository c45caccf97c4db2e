import type { ContactFieldType } from '@switchboard/contracts';
import { firstText, type Connector, type ConnectorContext, type CrmContact } from './connector';
import { VendorRateLimited, VendorRefused } from './http';
import { standardAuthorizeUrl } from './oauth';

/**
 * monday.com (developer.monday.com, GraphQL API v2 at api.monday.com/v2): OAuth (auth.monday.com/oauth2; tokens
 * that do not expire) or a personal API token, both in the `Authorization` header without a scheme; the contacts are
 * a board's items (the integration's domain is the board id), paged with `items_page` / `next_items_page` cursors,
 * their columns the fields; users with `is_admin` and their kind; an update on an item. GraphQL errors come with
 * HTTP 200: complexity and rate limits (`ComplexityException`, `RATE_LIMIT_EXCEEDED`) are rate limits with their
 * `retry_in_seconds`. Changes: the board's items whose `updated_at` is after the watermark (the API has no change
 * feed by time; the cursor pages the board). Deletions: the known items asked for by id (`items(ids:)`), their `state`
 * (`deleted`, `archived`) and board.
 */
interface MdItem {
  id: string;
  name: string;
  updated_at?: string;
  column_values?: Array<{ id: string; type: string; text: string | null }>;
}
interface MdPage {
  cursor: string | null;
  items: MdItem[];
}

async function gql<T>(ctx: ConnectorContext, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const r = await ctx.http.json<{ data?: T; errors?: Array<{ message: string; extensions?: { code?: string; retry_in_seconds?: number } }>; error_code?: string; error_data?: { retry_in_seconds?: number } }>({
    method: 'POST',
    url: ctx.endpoints.apiUrl,
    headers: { authorization: ctx.credentials.accessToken ?? ctx.credentials.apiKey ?? '', 'api-version': '2024-01' },
    json: { query, variables },
  });
  const code = r.error_code ?? r.errors?.[0]?.extensions?.code;
  if (code === 'ComplexityException' || code === 'RATE_LIMIT_EXCEEDED' || code === 'COMPLEXITY_BUDGET_EXHAUSTED') {
    const s = r.error_data?.retry_in_seconds ?? r.errors?.[0]?.extensions?.retry_in_seconds ?? 10;
    throw new VendorRateLimited(`POST ${ctx.endpoints.apiUrl} answered ${code} (rate limited)`, 429, s * 1000);
  }
  if (r.errors?.length || !r.data) throw new VendorRefused(`POST ${ctx.endpoints.apiUrl} answered a GraphQL error`, 400);
  return r.data;
}

const ITEM = 'id name updated_at column_values { id type text }';

function item(i: MdItem): CrmContact {
  const cols = i.column_values ?? [];
  const fields: CrmContact['fields'] = {};
  for (const c of cols) fields[c.id] = c.text ?? null;
  const [first, ...rest] = i.name.trim().split(/\s+/);
  return {
    externalId: i.id,
    phone: firstText(cols.find((c) => c.type === 'phone')?.text),
    firstName: first || null,
    lastName: rest.join(' ') || null,
    email: firstText(cols.find((c) => c.type === 'email')?.text),
    fields,
    updatedAt: i.updated_at ? new Date(i.updated_at).toISOString() : null,
  };
}

function typeOf(t: string): ContactFieldType {
  if (t === 'numbers') return 'number';
  if (t === 'date') return 'date';
  if (t === 'status' || t === 'dropdown') return 'enum';
  if (t === 'checkbox') return 'boolean';
  if (t === 'phone') return 'phone';
  if (t === 'email') return 'email';
  return 'string';
}

async function board(ctx: ConnectorContext): Promise<string> {
  if (!ctx.domain) throw new VendorRefused('monday.com needs the contacts board id (domain)', 400);
  return ctx.domain;
}

async function itemsPage(ctx: ConnectorContext, cursor: string | null, limit: number): Promise<MdPage> {
  if (cursor) return (await gql<{ next_items_page: MdPage }>(ctx, `query ($cursor: String!, $limit: Int!) { next_items_page(cursor: $cursor, limit: $limit) { cursor items { ${ITEM} } } }`, { cursor, limit })).next_items_page;
  const r = await gql<{ boards: Array<{ items_page: MdPage }> }>(ctx, `query ($board: [ID!], $limit: Int!) { boards(ids: $board) { items_page(limit: $limit) { cursor items { ${ITEM} } } } }`, { board: [await board(ctx)], limit });
  return r.boards?.[0]?.items_page ?? { cursor: null, items: [] };
}

async function account(ctx: ConnectorContext): Promise<{ companyName: string | null }> {
  const r = await gql<{ account?: { name?: string } }>(ctx, 'query { account { name } }');
  return { companyName: r.account?.name ?? null };
}

export const monday: Connector = {
  type: 'monday',
  name: 'Monday',
  authMode: 'oauth',
  adminOnly: false,
  defaults: { apiUrl: 'https://api.monday.com/v2', authorizeUrl: 'https://auth.monday.com/oauth2/authorize', tokenUrl: 'https://auth.monday.com/oauth2/token' },
  domain: { required: false, pattern: /^\d{1,20}$/ },
  contactUrl: () => null,
  oauth: {
    authorizeUrl: ({ endpoints, clientId, redirectUri, state }) => standardAuthorizeUrl(endpoints.authorizeUrl as string, { clientId, redirectUri, state }),
    exchangeCode: async (ctx, a) => {
      const t = await ctx.http.json<{ access_token?: string }>({ method: 'POST', url: ctx.endpoints.tokenUrl as string, form: { client_id: a.clientId, client_secret: a.clientSecret, code: a.code, redirect_uri: a.redirectUri } });
      if (!t?.access_token) throw new VendorRefused('monday.com answered no access token', 400);
      return { accessToken: t.access_token };
    },
  },
  apiKey: { verifyKey: (ctx) => account(ctx) },
  company: { company: (ctx) => account(ctx) },
  users: {
    profiles: async () => [
      { id: 'admin', name: 'Admins' },
      { id: 'member', name: 'Members' },
      { id: 'guest', name: 'Guests' },
    ],
    listUsers: async (ctx) =>
      ((await gql<{ users?: Array<{ id: string; name: string; email: string; is_admin: boolean; is_guest: boolean; enabled: boolean }> }>(ctx, 'query { users(limit: 500) { id name email is_admin is_guest enabled } }')).users ?? []).map((u) => {
        const [first, ...rest] = u.name.split(' ');
        return { externalId: String(u.id), email: u.email, firstName: first || null, lastName: rest.join(' ') || null, admin: u.is_admin, profile: u.is_admin ? 'admin' : u.is_guest ? 'guest' : 'member', active: u.enabled };
      }),
  },
  contacts: {
    contactFields: async (ctx) => {
      const r = await gql<{ boards: Array<{ columns: Array<{ id: string; title: string; type: string; settings_str?: string }> }> }>(ctx, 'query ($board: [ID!]) { boards(ids: $board) { columns { id title type settings_str } } }', { board: [await board(ctx)] });
      return (r.boards?.[0]?.columns ?? [])
        .filter((c) => c.id !== 'name')
        .map((c) => {
          let labels: string[] = [];
          try {
            labels = Object.values((JSON.parse(c.settings_str ?? '{}') as { labels?: Record<string, string> }).labels ?? {});
          } catch {
            labels = [];
          }
          return { name: c.id, label: c.title, type: typeOf(c.type), options: labels.map((l) => ({ value: l, label: l })) };
        });
    },
    listContacts: async (ctx, { cursor, limit }) => {
      const p = await itemsPage(ctx, cursor, Math.min(limit, 500));
      return { items: p.items.map(item), next: p.cursor, total: null };
    },
  },
  changes: {
    listChanges: async (ctx, { since, cursor, limit }) => {
      const p = await itemsPage(ctx, cursor, Math.min(limit, 500));
      const items = p.items.map(item).filter((c) => c.updatedAt && c.updatedAt > since);
      const watermark = [since, ...items.map((c) => c.updatedAt)].filter((x): x is string => !!x).sort().at(-1) as string;
      return { items, deleted: [], next: p.cursor, watermark };
    },
  },
  deletions: {
    // items are never dropped from the API at once: a deleted or archived item answers with its `state`; an item
    // moved to another board is no longer a contact; one not answered at all is gone for good
    goneOf: async (ctx, { ids }) => {
      const boardId = await board(ctx);
      const live = new Set<string>();
      for (let i = 0; i < ids.length; i += 100) {
        const part = ids.slice(i, i + 100);
        const r = await gql<{ items?: Array<{ id: string; state?: string; board?: { id: string } | null }> }>(ctx, 'query ($ids: [ID!], $limit: Int!) { items(ids: $ids, limit: $limit) { id state board { id } } }', { ids: part, limit: part.length });
        for (const it of r.items ?? []) if (it.state === 'active' && String(it.board?.id) === boardId) live.add(String(it.id));
      }
      return ids.filter((id) => !live.has(id));
    },
  },
  activity: {
    pushNote: async (ctx, { externalId, text }) => {
      await gql(ctx, 'mutation ($item: ID!, $body: String!) { create_update(item_id: $item, body: $body) { id } }', { item: externalId, body: text });
    },
  },
};
