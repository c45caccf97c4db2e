import { ContactsSynced, isSyncedContact } from './integrations';

const contact = { externalId: '1001', phone: '+447911000001', firstName: 'Ann', lastName: null, email: 'ann@example.com', fields: { lifecyclestage: 'lead', score: 7, vip: true, city: null } };
const batch = (upserts: unknown[]) => ({ accountId: '1', integrationKey: 'k', listId: 5, syncId: 's', seq: 1, fullSync: true, last: false, upserts, deletes: ['9'] });

describe('integrations.contacts.synced', () => {
  it('accepts CRM contacts whose fields are strings, numbers, booleans or null', () => {
    expect(ContactsSynced.schema.safeParse(batch([contact, { ...contact, externalId: '1002', firstName: null, fields: {} }])).success).toBe(true);
    expect(isSyncedContact(contact)).toBe(true);
  });

  it.each([
    ['a missing phone', { ...contact, phone: undefined }],
    ['a numeric external id', { ...contact, externalId: 1001 }],
    ['a missing first name (null is the empty one)', { ...contact, firstName: undefined }],
    ['an object as a field value', { ...contact, fields: { address: { city: 'x' } } }],
    ['an array as a field value', { ...contact, fields: { tags: ['a'] } }],
    ['a field value that is not a finite number', { ...contact, fields: { score: Number.NaN } }],
    ['fields that are a list', { ...contact, fields: [] }],
    ['no object at all', 'contact'],
  ])('refuses a batch with %s', (_why, bad) => {
    const r = ContactsSynced.schema.safeParse(batch([contact, bad]));
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].path).toEqual(['upserts']);
  });
});
