import { bearerOf, FakeVendor, TokenIssuer, type Answer, type VendorCall } from './fake-vendor';

export interface HsContact {
  id: string;
  properties: Record<string, string | null>;
}

/**
 * HubSpot as developers.hubspot.com documents it: OAuth token endpoint (form, access tokens of `expires_in` seconds,
 * refresh tokens that do not rotate), CRM v3 contacts paged by `after`, the search API over `lastmodifieddate`,
 * contact properties, settings users and roles, notes, account details, and private app tokens.
 */
export class HubSpotServer extends FakeVendor {
  contacts: HsContact[] = [];
  /** Deleted contacts: HubSpot archives them (restorable for 90 days) and lists them with `archived=true`. */
  archived: Array<HsContact & { archivedAt: string }> = [];
  users = [
    { id: '11', email: 'ann@acme.test', firstName: 'Ann', lastName: 'Admin', roleId: null, superAdmin: true },
    { id: '12', email: 'bob@acme.test', firstName: 'Bob', lastName: 'Sales', roleId: '100', superAdmin: false },
    { id: '13', email: 'cid@acme.test', firstName: 'Cid', lastName: 'Support', roleId: '200', superAdmin: false },
  ];
  roles = [
    { id: '100', name: 'Sales' },
    { id: '200', name: 'Support' },
  ];
  properties = [
    { name: 'firstname', label: 'First Name', type: 'string', fieldType: 'text' },
    { name: 'lastname', label: 'Last Name', type: 'string', fieldType: 'text' },
    { name: 'email', label: 'Email', type: 'string', fieldType: 'text' },
    { name: 'phone', label: 'Phone Number', type: 'string', fieldType: 'phonenumber' },
    { name: 'mobilephone', label: 'Mobile Phone Number', type: 'string', fieldType: 'phonenumber' },
    { name: 'lifecyclestage', label: 'Lifecycle Stage', type: 'enumeration', fieldType: 'radio', options: [{ label: 'Lead', value: 'lead' }, { label: 'Customer', value: 'customer' }] },
    { name: 'lastmodifieddate', label: 'Last Modified Date', type: 'datetime', fieldType: 'date' },
    { name: 'hs_secret_internal', label: 'Hidden', type: 'string', fieldType: 'text', hidden: true },
  ];
  notes: Array<{ properties: Record<string, string>; associations: unknown; token: string }> = [];
  privateAppTokens = new Set<string>(['pat-na1-valid']);
  readonly tokens: TokenIssuer;

  constructor(
    readonly clientId = 'hs-client',
    readonly clientSecret = 'hs-secret-value',
    now: () => number = () => Date.now(),
  ) {
    super();
    this.tokens = new TokenIssuer({ clientId, clientSecret, ttlSeconds: 1800, rotateRefresh: false, now, prefix: 'hs' });
  }

  addContacts(n: number, at = '2026-03-01T00:00:00.000Z', extra: (i: number) => Record<string, string | null> = () => ({})): void {
    const start = this.contacts.length;
    for (let i = start; i < start + n; i++) {
      this.contacts.push({ id: String(1000 + i), properties: { firstname: `First${i}`, lastname: `Last${i}`, email: `c${i}@example.com`, phone: `+4479${String(11000000 + i).padStart(8, '0')}`, mobilephone: null, lifecyclestage: i % 2 ? 'customer' : 'lead', lastmodifieddate: at, ...extra(i) } });
    }
  }

  /** Deletes a contact in the CRM: it leaves the live list and the search, and joins the archived list. */
  archive(id: string, at: string): void {
    const c = this.contacts.find((x) => x.id === id);
    if (!c) return;
    this.contacts = this.contacts.filter((x) => x !== c);
    this.archived.push({ ...c, archivedAt: at });
  }

  protected override exempt(call: VendorCall): boolean {
    return call.path === '/oauth/v1/token';
  }

  protected handle(call: VendorCall): Answer {
    if (call.path === '/oauth/v1/token' && call.method === 'POST') {
      const f = this.form(call);
      const t = this.tokens.grant({ grantType: f.get('grant_type'), code: f.get('code'), refreshToken: f.get('refresh_token'), clientId: f.get('client_id'), clientSecret: f.get('client_secret') });
      if (!t) return { status: 400, body: { status: 'BAD_AUTH_CODE', message: 'missing or invalid auth code' } };
      return { status: 200, body: { token_type: 'bearer', ...t } };
    }
    const token = bearerOf(call);
    if (!this.tokens.valid(token) && !this.privateAppTokens.has(token ?? '')) return { status: 401, body: { status: 'error', message: 'Authentication credentials not found.', category: 'INVALID_AUTHENTICATION' } };

    if (call.path === '/account-info/v3/details') return { status: 200, body: { portalId: 4242, accountType: 'STANDARD', timeZone: 'Europe/London', companyCurrency: 'GBP', uiDomain: 'app.hubspot.com' } };
    if (call.path === '/settings/v3/users/roles') return { status: 200, body: { results: this.roles } };
    if (call.path === '/settings/v3/users') return this.page(this.users, call);
    if (call.path === '/crm/v3/properties/contacts') return { status: 200, body: { results: this.properties } };
    if (call.path === '/crm/v3/objects/contacts' && call.method === 'GET') {
      const wanted = (call.query.get('properties') ?? '').split(',').filter(Boolean);
      // archived=true lists only the archived ones, with archivedAt; there is no time filter on this endpoint
      if (call.query.get('archived') === 'true') return this.page(this.archived.map((c) => ({ ...this.view(c, wanted), archived: true, archivedAt: c.archivedAt })), call);
      return this.page(this.contacts.map((c) => this.view(c, wanted)), call);
    }
    if (call.path === '/crm/v3/objects/contacts/search' && call.method === 'POST') {
      const b = this.json(call) as { filterGroups: Array<{ filters: Array<{ propertyName: string; operator: string; value: string }> }>; limit: number; after?: string; properties: string[] };
      const f = b.filterGroups?.[0]?.filters?.[0];
      let rows = this.contacts;
      if (f?.propertyName === 'lastmodifieddate' && f.operator === 'GT') rows = rows.filter((c) => Date.parse(c.properties.lastmodifieddate ?? '') > Number(f.value));
      rows = [...rows].sort((a, z) => Date.parse(a.properties.lastmodifieddate ?? '') - Date.parse(z.properties.lastmodifieddate ?? ''));
      const start = Number(b.after ?? 0);
      const slice = rows.slice(start, start + (b.limit ?? 10));
      return { status: 200, body: { total: rows.length, results: slice.map((c) => this.view(c, b.properties ?? [])), ...(start + slice.length < rows.length ? { paging: { next: { after: String(start + slice.length) } } } : {}) } };
    }
    if (call.path === '/crm/v3/objects/notes' && call.method === 'POST') {
      // developers.hubspot.com "Notes": hs_timestamp and hs_note_body required; a contact association is type 202
      const b = this.json(call) as { properties?: Record<string, unknown>; associations?: Array<{ to?: { id?: unknown }; types?: Array<{ associationCategory?: unknown; associationTypeId?: unknown }> }> };
      const p = b.properties ?? {};
      const bad = (message: string): Answer => ({ status: 400, body: { status: 'error', message, category: 'VALIDATION_ERROR' } });
      if (typeof p.hs_note_body !== 'string' || !p.hs_note_body) return bad('Property values were not valid: hs_note_body');
      if (typeof p.hs_timestamp !== 'string' || Number.isNaN(Date.parse(p.hs_timestamp))) return bad('Property values were not valid: hs_timestamp');
      for (const a of b.associations ?? []) {
        const t = a.types?.[0];
        if (a.types?.length !== 1 || t?.associationCategory !== 'HUBSPOT_DEFINED' || t.associationTypeId !== 202) return bad('invalid association type for note to contact');
        if (!this.contacts.some((c) => c.id === a.to?.id)) return bad(`No contact with id ${String(a.to?.id)} exists`);
      }
      this.notes.push({ properties: p as Record<string, string>, associations: b.associations, token: token ?? '' });
      return { status: 201, body: { id: String(this.notes.length), properties: p, createdAt: p.hs_timestamp, archived: false } };
    }
    return { status: 404, body: { status: 'error', message: 'not found' } };
  }

  private view(c: HsContact, wanted: string[]): { id: string; properties: Record<string, string | null>; updatedAt: string | null; archived: boolean } {
    const props: Record<string, string | null> = { hs_object_id: c.id };
    for (const k of wanted) props[k] = c.properties[k] ?? null;
    return { id: c.id, properties: props, updatedAt: c.properties.lastmodifieddate ?? null, archived: false };
  }

  private page<T>(rows: T[], call: VendorCall): Answer {
    const limit = Math.min(Number(call.query.get('limit') ?? 10), 100);
    const start = Number(call.query.get('after') ?? 0);
    const slice = rows.slice(start, start + limit);
    return { status: 200, body: { results: slice, ...(start + slice.length < rows.length ? { paging: { next: { after: String(start + slice.length), link: '' } } } : {}) } };
  }
}
