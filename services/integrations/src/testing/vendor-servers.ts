import { bearerOf, FakeVendor, TokenIssuer, type Answer, type VendorCall } from './fake-vendor';

/** A CRM contact as the local vendors keep it; each server answers it in its vendor's own shape. */
export interface PlainContact {
  id: string;
  first: string;
  last: string;
  email: string;
  phone: string;
  stage: 'lead' | 'customer';
  /** ISO time of the last change. */
  updatedAt: string;
}

export function plainContacts(n: number, at: string, from = 0): PlainContact[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return { id: String(5000 + i), first: `First${i}`, last: `Last${i}`, email: `p${i}@example.com`, phone: `+4479${String(22000000 + i).padStart(8, '0')}`, stage: i % 2 ? 'customer' : 'lead', updatedAt: at };
  });
}

/** What every local CRM has in common: contacts, an OAuth issuer, a key that works, and paging helpers. */
export abstract class LocalCrm extends FakeVendor {
  contacts: PlainContact[] = [];
  deleted: Array<{ id: string; at: string }> = [];
  readonly tokens: TokenIssuer;
  apiKeys = new Set<string>(['valid-key']);
  /** The notes the CRM accepted, as `{ contactId, text, token }` (the credential the call came with, to check tenancy). */
  notes: Array<{ contactId: string; text: string; token: string }> = [];

  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
    now: () => number,
    o: { ttlSeconds: number; rotateRefresh: boolean; prefix: string },
  ) {
    super();
    this.tokens = new TokenIssuer({ clientId, clientSecret, ...o, now });
  }

  /** Deletes a contact in the CRM at `at` (Pipedrive and Zoho list it as deleted, Shopify logs a destroy event...). */
  remove(id: string, at: string): void {
    const c = this.contacts.find((x) => x.id === id);
    if (!c) return;
    this.contacts = this.contacts.filter((x) => x !== c);
    this.deleted.push({ id, at });
    this.removed(c, at);
  }

  /** What a vendor keeps of a deleted contact (its own trace). */
  protected removed(_c: PlainContact, _at: string): void {}

  /** Changes a contact's stage now (its updatedAt moves). */
  touch(id: string, at: string, patch: Partial<PlainContact>): void {
    const c = this.contacts.find((x) => x.id === id);
    if (c) Object.assign(c, patch, { updatedAt: at });
  }

  protected has(id: unknown): boolean {
    return this.contacts.some((c) => c.id === String(id));
  }

  protected authorised(token: string | undefined): boolean {
    return this.tokens.valid(token) || this.apiKeys.has(token ?? '');
  }

  protected slice<T>(rows: T[], start: number, limit: number): { rows: T[]; next: number | null } {
    const part = rows.slice(start, start + limit);
    return { rows: part, next: start + part.length < rows.length ? start + part.length : null };
  }

  protected after(since: string | number): PlainContact[] {
    const t = typeof since === 'number' ? since : Date.parse(since);
    return [...this.contacts].filter((c) => Date.parse(c.updatedAt) > t).sort((a, z) => Date.parse(a.updatedAt) - Date.parse(z.updatedAt));
  }
}

const unauthorised: Answer = { status: 401, body: { errors: [{ code: 'unauthorized', message: 'Access Token Invalid' }] } };

/** Pipedrive API v1: Basic-authenticated token endpoint, `api_token` or Bearer, start/limit paging, /recents. */
export class PipedriveServer extends LocalCrm {
  constructor(clientId: string, clientSecret: string, now: () => number) {
    super(clientId, clientSecret, now, { ttlSeconds: 3599, rotateRefresh: true, prefix: 'pd' });
  }

  protected override exempt(c: VendorCall): boolean {
    return c.path === '/oauth/token';
  }

  private person(c: PlainContact): Record<string, unknown> {
    return { id: Number(c.id), name: `${c.first} ${c.last}`, first_name: c.first, last_name: c.last, phone: [{ value: c.phone, primary: true, label: 'mobile' }], email: [{ value: c.email, primary: true }], update_time: c.updatedAt.slice(0, 19).replace('T', ' '), active_flag: true, a1b2c3_stage: c.stage };
  }

  protected handle(c: VendorCall): Answer {
    if (c.path === '/oauth/token') {
      const basic = Buffer.from(String(c.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString().split(':');
      const f = this.form(c);
      const t = this.tokens.grant({ grantType: f.get('grant_type'), code: f.get('code'), refreshToken: f.get('refresh_token'), clientId: basic[0], clientSecret: basic[1] });
      return t ? { status: 200, body: { ...t, token_type: 'Bearer', scope: 'base', api_domain: 'https://acme.pipedrive.com' } } : { status: 401, body: { success: false, message: 'Invalid grant' } };
    }
    if (!this.authorised(bearerOf(c) ?? c.query.get('api_token') ?? undefined)) return { status: 401, body: { success: false, error: 'unauthorized access', errorCode: 401 } };
    const ok = (data: unknown, extra: Record<string, unknown> = {}) => ({ status: 200, body: { success: true, data, ...extra } });
    if (c.path === '/users/me') return ok({ id: 1, company_name: 'Acme Pipedrive', company_domain: 'acme' });
    if (c.path === '/roles') return ok([{ id: 7, name: 'Sales' }]);
    if (c.path === '/users') return ok([{ id: 1, name: 'Ann Admin', email: 'ann@pd.test', active_flag: true, is_admin: 1, role_id: null }, { id: 2, name: 'Bob Seller', email: 'bob@pd.test', active_flag: true, is_admin: 0, role_id: 7 }]);
    if (c.path === '/personFields') return ok([{ key: 'name', name: 'Name', field_type: 'varchar' }, { key: 'phone', name: 'Phone', field_type: 'phone' }, { key: 'a1b2c3_stage', name: 'Stage', field_type: 'enum', options: [{ id: 'lead', label: 'Lead' }, { id: 'customer', label: 'Customer' }] }]);
    if (c.path === '/persons') {
      const s = this.slice(this.contacts, Number(c.query.get('start') ?? 0), Number(c.query.get('limit') ?? 100));
      return ok(s.rows.map((x) => this.person(x)), { additional_data: { pagination: { start: Number(c.query.get('start') ?? 0), limit: 100, more_items_in_collection: s.next !== null, ...(s.next !== null ? { next_start: s.next } : {}) } } });
    }
    if (c.path === '/recents') {
      const since = `${(c.query.get('since_timestamp') ?? '').replace(' ', 'T')}Z`;
      const rows = [...this.after(since).map((x) => ({ item: 'person', id: Number(x.id), data: this.person(x) })), ...this.deleted.filter((d) => d.at > since).map((d) => ({ item: 'person', id: Number(d.id), data: null }))];
      const s = this.slice(rows, Number(c.query.get('start') ?? 0), Number(c.query.get('limit') ?? 100));
      return ok(s.rows, { additional_data: { pagination: { more_items_in_collection: s.next !== null, ...(s.next !== null ? { next_start: s.next } : {}) } } });
    }
    if (c.path === '/notes' && c.method === 'POST') {
      // developers.pipedrive.com "Add a note": content required, and one of deal_id, person_id, org_id or lead_id
      const b = this.json(c) as { content?: unknown; person_id?: unknown };
      if (typeof b.content !== 'string' || !b.content) return { status: 400, body: { success: false, error: 'Note content is required', errorCode: 400 } };
      if (typeof b.person_id !== 'number' || !this.has(b.person_id)) return { status: 400, body: { success: false, error: 'Person not found', errorCode: 400 } };
      this.notes.push({ contactId: String(b.person_id), text: b.content, token: bearerOf(c) ?? c.query.get('api_token') ?? '' });
      return { status: 201, body: { success: true, data: { id: this.notes.length, content: b.content, person_id: b.person_id } } };
    }
    return { status: 404, body: { success: false, error: 'Unknown method' } };
  }
}

/** Zoho CRM v2: `Zoho-oauthtoken` header, page/per_page with info.more_records, If-Modified-Since (304), deleted list. */
export class ZohoServer extends LocalCrm {
  constructor(clientId: string, clientSecret: string, now: () => number) {
    super(clientId, clientSecret, now, { ttlSeconds: 3600, rotateRefresh: false, prefix: 'zo' });
    this.apiKeys.clear();
  }

  protected override exempt(c: VendorCall): boolean {
    return c.path === '/oauth/v2/token';
  }

  private record(c: PlainContact): Record<string, unknown> {
    return { id: c.id, First_Name: c.first, Last_Name: c.last, Email: c.email, Phone: null, Mobile: c.phone, Lead_Source: c.stage, Modified_Time: c.updatedAt.replace(/\.\d{3}Z$/, '+00:00'), Owner: { id: '1' }, $editable: true };
  }

  protected handle(c: VendorCall): Answer {
    if (c.path === '/oauth/v2/token') {
      const f = this.form(c);
      const t = this.tokens.grant({ grantType: f.get('grant_type'), code: f.get('code'), refreshToken: f.get('refresh_token'), clientId: f.get('client_id'), clientSecret: f.get('client_secret') });
      if (!t) return { status: 200, body: { error: 'invalid_code' } };
      const body: Record<string, unknown> = { access_token: t.access_token, api_domain: 'https://www.zohoapis.eu', token_type: 'Bearer', expires_in: t.expires_in };
      if (f.get('grant_type') === 'authorization_code') body.refresh_token = t.refresh_token;
      return { status: 200, body };
    }
    const tok = /^Zoho-oauthtoken (.+)$/.exec(String(c.headers.authorization ?? ''))?.[1];
    if (!this.tokens.valid(tok)) return { status: 401, body: { code: 'INVALID_TOKEN', details: {}, message: 'invalid oauth token', status: 'error' } };
    if (c.path === '/org') return { status: 200, body: { org: [{ company_name: 'Acme Zoho' }] } };
    if (c.path === '/settings/profiles') return { status: 200, body: { profiles: [{ id: '900', name: 'Administrator' }, { id: '901', name: 'Standard' }] } };
    if (c.path === '/users') return { status: 200, body: { users: [{ id: '1', email: 'ann@zo.test', first_name: 'Ann', last_name: 'Admin', status: 'active', profile: { id: '900', name: 'Administrator' } }, { id: '2', email: 'bob@zo.test', first_name: 'Bob', last_name: 'Std', status: 'active', profile: { id: '901', name: 'Standard' } }], info: { more_records: false } } };
    if (c.path === '/settings/fields') return { status: 200, body: { fields: [{ api_name: 'First_Name', field_label: 'First Name', data_type: 'text' }, { api_name: 'Mobile', field_label: 'Mobile', data_type: 'phone' }, { api_name: 'Lead_Source', field_label: 'Lead Source', data_type: 'picklist', pick_list_values: [{ display_value: 'Lead', actual_value: 'lead' }, { display_value: 'Customer', actual_value: 'customer' }] }] } };
    const since = c.headers['if-modified-since'] ? Date.parse(String(c.headers['if-modified-since'])) : null;
    if (c.path === '/Contacts/deleted') {
      const rows = this.deleted.filter((d) => since === null || Date.parse(d.at) > since);
      return rows.length ? { status: 200, body: { data: rows.map((d) => ({ id: d.id, deleted_time: d.at })), info: { more_records: false } } } : { status: 204 };
    }
    if (c.path === '/Contacts') {
      const all = since === null ? this.contacts : this.after(since);
      if (since !== null && all.length === 0) return { status: 304 };
      const per = Number(c.query.get('per_page') ?? 200);
      const page = Number(c.query.get('page') ?? 1);
      const s = this.slice(all, (page - 1) * per, per);
      return s.rows.length ? { status: 200, body: { data: s.rows.map((x) => this.record(x)), info: { page, per_page: per, count: s.rows.length, more_records: s.next !== null } } } : { status: 204 };
    }
    if (c.path === '/Notes' && c.method === 'POST') {
      // Zoho CRM v2 "Create Notes": data[] of Note_Content, Parent_Id and se_module
      const d = (this.json(c) as { data?: Array<Record<string, unknown>> }).data?.[0] ?? {};
      if (typeof d.Note_Content !== 'string' || !d.Note_Content || d.se_module !== 'Contacts' || !this.has(d.Parent_Id)) {
        return { status: 400, body: { data: [{ code: 'INVALID_DATA', details: {}, message: 'invalid data', status: 'error' }] } };
      }
      this.notes.push({ contactId: String(d.Parent_Id), text: d.Note_Content, token: tok ?? '' });
      return { status: 201, body: { data: [{ code: 'SUCCESS', details: { id: String(this.notes.length) }, message: 'record added', status: 'success' }] } };
    }
    return { status: 404, body: { code: 'INVALID_URL_PATTERN', status: 'error' } };
  }
}

/** Shopify Admin REST 2024-01: JSON token exchange, X-Shopify-Access-Token, Link-header cursors, updated_at_min. */
export class ShopifyServer extends LocalCrm {
  private cursors = new Map<string, { rows: PlainContact[]; start: number }>();
  private eventCursors = new Map<string, { rows: Array<Record<string, unknown>>; start: number }>();
  private n = 0;
  /** The shop's event log (Events API): customer destroys, and other subjects' events a filter must leave out. */
  events: Array<{ id: number; subject_id: number; subject_type: string; verb: string; created_at: string }> = [];

  protected override removed(c: PlainContact, at: string): void {
    this.events.push({ id: 900000 + this.events.length, subject_id: Number(c.id), subject_type: 'Customer', verb: 'destroy', created_at: at });
  }

  constructor(clientId: string, clientSecret: string, now: () => number) {
    super(clientId, clientSecret, now, { ttlSeconds: 10 * 365 * 86400, rotateRefresh: false, prefix: 'shpat' });
  }

  protected override exempt(c: VendorCall): boolean {
    return c.path === '/admin/oauth/access_token';
  }

  private customer(c: PlainContact): Record<string, unknown> {
    return { id: Number(c.id), first_name: c.first, last_name: c.last, email: c.email, phone: c.phone, updated_at: c.updatedAt, tags: c.stage, orders_count: c.stage === 'customer' ? 3 : 0, total_spent: c.stage === 'customer' ? '120.50' : '0.00', state: 'enabled', verified_email: true, currency: 'GBP', default_address: { country_code: 'GB', city: 'London', phone: null } };
  }

  protected handle(c: VendorCall): Answer {
    if (c.path === '/admin/oauth/access_token') {
      const b = this.json(c) as { client_id?: string; client_secret?: string; code?: string };
      const t = this.tokens.grant({ grantType: 'authorization_code', code: b.code, clientId: b.client_id, clientSecret: b.client_secret });
      return t ? { status: 200, body: { access_token: t.access_token, scope: 'read_customers,write_customers' } } : { status: 400, body: { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' } };
    }
    if (!this.authorised(String(c.headers['x-shopify-access-token'] ?? ''))) return { status: 401, body: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    const base = '/admin/api/2024-01';
    if (c.path === `${base}/shop.json`) return { status: 200, body: { shop: { id: 1, name: 'Acme Shop', myshopify_domain: 'acme.myshopify.com' } } };
    if (c.path === `${base}/users.json`) return { status: 200, body: { users: [{ id: 1, email: 'owner@shop.test', first_name: 'Olive', last_name: 'Owner', account_owner: true }, { id: 2, email: 'staff@shop.test', first_name: 'Sam', last_name: 'Staff', account_owner: false }] } };
    if (c.path === `${base}/customers/count.json`) return { status: 200, body: { count: this.contacts.length } };
    if (c.path === `${base}/customers.json`) {
      const limit = Number(c.query.get('limit') ?? 50);
      let state: { rows: PlainContact[]; start: number };
      const info = c.query.get('page_info');
      if (info) {
        // with page_info Shopify refuses any other filter
        if (c.query.get('updated_at_min')) return { status: 400, body: { errors: { page_info: ['Invalid value.'] } } };
        const s = this.cursors.get(info);
        if (!s) return { status: 400, body: { errors: { page_info: ['Invalid value.'] } } };
        state = s;
      } else {
        const min = c.query.get('updated_at_min');
        state = { rows: min ? [...this.contacts].filter((x) => Date.parse(x.updatedAt) >= Date.parse(min)).sort((a, z) => Date.parse(a.updatedAt) - Date.parse(z.updatedAt)) : this.contacts, start: 0 };
      }
      const s = this.slice(state.rows, state.start, limit);
      const headers: Record<string, string> = {};
      if (s.next !== null) {
        const token = `pi${++this.n}`;
        this.cursors.set(token, { rows: state.rows, start: s.next });
        headers.link = `<${this.url}${base}/customers.json?limit=${limit}&page_info=${token}>; rel="next"`;
      }
      return { status: 200, body: { customers: s.rows.map((x) => this.customer(x)) }, headers };
    }
    if (c.path === `${base}/events.json`) {
      // Admin REST "Event": filter (subject types), verb, created_at_min; paged by the Link header, and with page_info
      // no other parameter is accepted
      const limit = Math.min(Number(c.query.get('limit') ?? 50), 250);
      const info = c.query.get('page_info');
      let state: { rows: Array<Record<string, unknown>>; start: number };
      if (info) {
        if (c.query.get('filter') || c.query.get('verb') || c.query.get('created_at_min')) return { status: 400, body: { errors: { page_info: ['Invalid value.'] } } };
        const s = this.eventCursors.get(info);
        if (!s) return { status: 400, body: { errors: { page_info: ['Invalid value.'] } } };
        state = s;
      } else {
        const filter = (c.query.get('filter') ?? '').split(',').filter(Boolean);
        const verb = c.query.get('verb');
        const min = c.query.get('created_at_min');
        const rows = this.events.filter((e) => (!filter.length || filter.includes(e.subject_type)) && (!verb || e.verb === verb) && (!min || Date.parse(e.created_at) >= Date.parse(min)));
        state = { rows: rows.map((e) => ({ ...e, arguments: [], body: null, message: `Customer was ${e.verb}ed.`, author: 'Shopify', path: `/admin/customers/${e.subject_id}` })), start: 0 };
      }
      const s = this.slice(state.rows, state.start, limit);
      const headers: Record<string, string> = {};
      if (s.next !== null) {
        const token = `ev${++this.n}`;
        this.eventCursors.set(token, { rows: state.rows, start: s.next });
        headers.link = `<${this.url}${base}/events.json?limit=${limit}&page_info=${token}>; rel="next"`;
      }
      return { status: 200, body: { events: s.rows }, headers };
    }
    const put = new RegExp(`^${base}/customers/(\\d+)\\.json$`).exec(c.path);
    if (put && c.method === 'PUT') {
      // Shopify Admin REST "Update a customer": { customer: { id, note } }, the id matching the path
      const b = (this.json(c) as { customer?: { id?: unknown; note?: unknown } }).customer;
      if (!this.has(put[1])) return { status: 404, body: { errors: 'Not Found' } };
      if (!b || b.id !== Number(put[1]) || typeof b.note !== 'string') return { status: 422, body: { errors: { customer: ['Required parameter missing or invalid'] } } };
      this.notes.push({ contactId: put[1], text: b.note, token: String(c.headers['x-shopify-access-token'] ?? '') });
      const x = this.contacts.find((y) => y.id === put[1]) as PlainContact;
      return { status: 200, body: { customer: { ...this.customer(x), note: b.note } } };
    }
    return { status: 404, body: { errors: 'Not Found' } };
  }
}

/** Intercom API 2.x: JSON eagle token exchange, Bearer, starting_after cursors, POST /contacts/search. */
export class IntercomServer extends LocalCrm {
  /** Contacts created minutes ago: listed, but not searchable yet (Intercom's documented search delay). */
  unindexed = new Set<string>();

  constructor(clientId: string, clientSecret: string, now: () => number) {
    super(clientId, clientSecret, now, { ttlSeconds: 10 * 365 * 86400, rotateRefresh: false, prefix: 'ic' });
  }

  protected override exempt(c: VendorCall): boolean {
    return c.path === '/auth/eagle/token';
  }

  private contact(c: PlainContact): Record<string, unknown> {
    return { type: 'contact', id: `ic${c.id}`, role: 'user', email: c.email, phone: c.phone, name: `${c.first} ${c.last}`, updated_at: Math.floor(Date.parse(c.updatedAt) / 1000), custom_attributes: { stage: c.stage } };
  }

  private list(rows: PlainContact[], after: string | null, per: number): Answer {
    const start = after ? rows.findIndex((x) => `ic${x.id}` === after) + 1 : 0;
    const s = this.slice(rows, start, per);
    return { status: 200, body: { type: 'list', data: s.rows.map((x) => this.contact(x)), total_count: rows.length, pages: { type: 'pages', per_page: per, next: s.next !== null ? { starting_after: `ic${s.rows[s.rows.length - 1].id}` } : null } } };
  }

  protected handle(c: VendorCall): Answer {
    if (c.path === '/auth/eagle/token') {
      const b = this.json(c) as { client_id?: string; client_secret?: string; code?: string };
      const t = this.tokens.grant({ grantType: 'authorization_code', code: b.code, clientId: b.client_id, clientSecret: b.client_secret });
      return t ? { status: 200, body: { token: t.access_token, access_token: t.access_token, token_type: 'Bearer' } } : { status: 400, body: { type: 'error.list', errors: [{ code: 'parameter_invalid', message: 'invalid code' }] } };
    }
    if (!this.authorised(bearerOf(c))) return unauthorised;
    if (c.path === '/me') return { status: 200, body: { type: 'admin', id: '1', email: 'ann@ic.test', app: { name: 'Acme Intercom', id_code: 'abc123' } } };
    if (c.path === '/teams') return { status: 200, body: { type: 'team.list', teams: [{ type: 'team', id: '814', name: 'Support', admin_ids: [2] }] } };
    if (c.path === '/admins') return { status: 200, body: { type: 'admin.list', admins: [{ type: 'admin', id: '1', name: 'Ann Admin', email: 'ann@ic.test', team_ids: [], has_inbox_seat: true }, { type: 'admin', id: '2', name: 'Sue Support', email: 'sue@ic.test', team_ids: [814], has_inbox_seat: true }] } };
    if (c.path === '/data_attributes') return { status: 200, body: { type: 'list', data: [{ name: 'email', label: 'Email', data_type: 'string' }, { name: 'stage', label: 'Stage', data_type: 'string', options: [{ value: 'lead' }, { value: 'customer' }], custom: true }] } };
    if (c.path === '/contacts' && c.method === 'GET') return this.list(this.contacts, c.query.get('starting_after'), Number(c.query.get('per_page') ?? 50));
    if (c.path === '/contacts/search' && c.method === 'POST') {
      const b = this.json(c) as { query: { field: string; operator: string; value: number | string[] }; pagination?: { per_page?: number; starting_after?: string } };
      const per = Math.min(b.pagination?.per_page ?? 50, 150);
      const searchable = (x: PlainContact) => !this.unindexed.has(x.id);
      if (b.query.field === 'id') {
        // deleted and archived contacts are not searchable
        if (b.query.operator !== 'IN' || !Array.isArray(b.query.value)) return { status: 400, body: { type: 'error.list', errors: [{ code: 'parameter_invalid', message: 'id takes IN with a list' }] } };
        const wanted = new Set(b.query.value);
        return this.list(this.contacts.filter((x) => wanted.has(`ic${x.id}`) && searchable(x)), b.pagination?.starting_after ?? null, per);
      }
      return this.list(this.after(Number(b.query.value) * 1000).filter(searchable), b.pagination?.starting_after ?? null, per);
    }
    const one = /^\/contacts\/ic(\d+)$/.exec(c.path);
    if (one && c.method === 'GET') {
      const x = this.contacts.find((y) => y.id === one[1]);
      return x ? { status: 200, body: this.contact(x) } : { status: 404, body: { type: 'error.list', errors: [{ code: 'not_found', message: 'User Not Found' }] } };
    }
    const note = /^\/contacts\/ic(\d+)\/notes$/.exec(c.path);
    if (note && c.method === 'POST') {
      // Intercom "Create a note": POST /contacts/{id}/notes with { body }
      const b = this.json(c) as { body?: unknown };
      if (!this.has(note[1])) return { status: 404, body: { type: 'error.list', errors: [{ code: 'not_found', message: 'User Not Found' }] } };
      if (typeof b.body !== 'string' || !b.body) return { status: 400, body: { type: 'error.list', errors: [{ code: 'parameter_not_found', message: 'body is required' }] } };
      this.notes.push({ contactId: `ic${note[1]}`, text: b.body, token: bearerOf(c) ?? '' });
      return { status: 200, body: { type: 'note', id: String(this.notes.length), body: b.body, contact: { type: 'contact', id: `ic${note[1]}` } } };
    }
    return { status: 404, body: { type: 'error.list', errors: [{ code: 'not_found' }] } };
  }
}

/** monday.com GraphQL v2: form token exchange, the token as the Authorization header, items_page cursors. */
export class MondayServer extends LocalCrm {
  private cursors = new Map<string, number>();
  private n = 0;
  readonly boardId = '4242';
  /** Deleted and archived items answer by id with their state (monday keeps them 30 days); purged ones not at all. */
  inactive = new Map<string, { item: PlainContact; state: 'deleted' | 'archived' }>();

  protected override removed(c: PlainContact): void {
    this.inactive.set(c.id, { item: c, state: 'deleted' });
  }

  /** Archives an item: gone from the board's pages, answered by id with state archived. */
  archive(id: string): void {
    const c = this.contacts.find((x) => x.id === id);
    if (!c) return;
    this.contacts = this.contacts.filter((x) => x !== c);
    this.inactive.set(id, { item: c, state: 'archived' });
  }

  constructor(clientId: string, clientSecret: string, now: () => number) {
    super(clientId, clientSecret, now, { ttlSeconds: 10 * 365 * 86400, rotateRefresh: false, prefix: 'md' });
  }

  protected override exempt(c: VendorCall): boolean {
    return c.path === '/oauth2/token';
  }

  private item(c: PlainContact): Record<string, unknown> {
    return { id: c.id, name: `${c.first} ${c.last}`, updated_at: c.updatedAt, column_values: [{ id: 'phone', type: 'phone', text: c.phone }, { id: 'email', type: 'email', text: c.email }, { id: 'status', type: 'status', text: c.stage }] };
  }

  private page(start: number, limit: number): { cursor: string | null; items: unknown[] } {
    const s = this.slice(this.contacts, start, limit);
    let cursor: string | null = null;
    if (s.next !== null) {
      cursor = `mc${++this.n}`;
      this.cursors.set(cursor, s.next);
    }
    return { cursor, items: s.rows.map((x) => this.item(x)) };
  }

  protected handle(c: VendorCall): Answer {
    if (c.path === '/oauth2/token') {
      const f = this.form(c);
      const t = this.tokens.grant({ grantType: 'authorization_code', code: f.get('code'), clientId: f.get('client_id'), clientSecret: f.get('client_secret') });
      return t ? { status: 200, body: { access_token: t.access_token, token_type: 'Bearer', scope: 'boards:read users:read' } } : { status: 400, body: { error: 'invalid_grant' } };
    }
    if (!this.authorised(String(c.headers.authorization ?? ''))) return { status: 401, body: { errors: [{ message: 'Not Authenticated' }], error_message: 'Not Authenticated', status_code: 401 } };
    const b = this.json(c) as { query: string; variables?: Record<string, unknown> };
    const q = b.query;
    if (q.includes('create_update')) {
      // monday.com API "Create an update": mutation create_update(item_id: ID!, body: String!)
      const item = b.variables?.item;
      const body = b.variables?.body;
      if (!/create_update\(item_id: \$item, body: \$body\)/.test(q) || typeof body !== 'string' || !body) return { status: 200, body: { errors: [{ message: 'Parse error on query', extensions: { code: 'argumentLiteralsIncompatible' } }] } };
      if (!this.has(item)) return { status: 200, body: { errors: [{ message: 'Item not found', extensions: { code: 'InvalidItemIdException' } }], data: { create_update: null } } };
      this.notes.push({ contactId: String(item), text: body, token: String(c.headers.authorization ?? '') });
      return { status: 200, body: { data: { create_update: { id: String(this.notes.length) } } } };
    }
    if (/\bitems\(ids: \$ids/.test(q)) {
      // monday API "items": by ids (at most 100), each with its state and board
      const ids = (b.variables?.ids as string[] | undefined) ?? [];
      if (ids.length > 100) return { status: 200, body: { errors: [{ message: 'Max 100 ids', extensions: { code: 'maxIdsExceeded' } }] } };
      const items = ids.flatMap((id) => {
        const live = this.contacts.find((x) => x.id === String(id));
        if (live) return [{ id: live.id, state: 'active', board: { id: this.boardId } }];
        const gone = this.inactive.get(String(id));
        return gone ? [{ id: gone.item.id, state: gone.state, board: { id: this.boardId } }] : [];
      });
      return { status: 200, body: { data: { items } } };
    }
    if (q.includes('account')) return { status: 200, body: { data: { account: { name: 'Acme Monday' } } } };
    if (q.includes('users')) return { status: 200, body: { data: { users: [{ id: '1', name: 'Ann Admin', email: 'ann@md.test', is_admin: true, is_guest: false, enabled: true }, { id: '2', name: 'Max Member', email: 'max@md.test', is_admin: false, is_guest: false, enabled: true }] } } };
    if (q.includes('columns')) return { status: 200, body: { data: { boards: [{ columns: [{ id: 'name', title: 'Name', type: 'name' }, { id: 'phone', title: 'Phone', type: 'phone' }, { id: 'email', title: 'Email', type: 'email' }, { id: 'status', title: 'Stage', type: 'status', settings_str: '{"labels":{"0":"lead","1":"customer"}}' }] }] } } };
    if (q.includes('next_items_page')) {
      const start = this.cursors.get(String(b.variables?.cursor));
      if (start === undefined) return { status: 200, body: { errors: [{ message: 'CursorExpiredError', extensions: { code: 'CursorExpiredError' } }] } };
      return { status: 200, body: { data: { next_items_page: this.page(start, Number(b.variables?.limit ?? 25)) } } };
    }
    if (q.includes('items_page')) {
      if ((b.variables?.board as string[] | undefined)?.[0] !== this.boardId) return { status: 200, body: { data: { boards: [] } } };
      return { status: 200, body: { data: { boards: [{ items_page: this.page(0, Number(b.variables?.limit ?? 25)) }] } } };
    }
    return { status: 200, body: { errors: [{ message: 'Parse error on query' }] } };
  }
}
