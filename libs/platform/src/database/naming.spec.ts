import { SnakeNamingStrategy } from './naming';

const n = new SnakeNamingStrategy();

describe('SnakeNamingStrategy', () => {
  it('snake_cases class names into table names', () => {
    expect(n.tableName('ContactList', undefined)).toBe('contact_list');
    expect(n.tableName('UserSession', undefined)).toBe('user_session');
    expect(n.tableName('SMSVendor', undefined)).toBe('sms_vendor');
    expect(n.tableName('ContactList', 'lists')).toBe('lists');
  });

  it('snake_cases property names into column names', () => {
    expect(n.columnName('accountId', undefined, [])).toBe('account_id');
    expect(n.columnName('createdAt', undefined, [])).toBe('created_at');
    expect(n.columnName('userID', undefined, [])).toBe('user_id');
    expect(n.columnName('line2Text', undefined, [])).toBe('line2_text');
  });

  it('keeps an explicit column name as written', () => {
    expect(n.columnName('accountId', 'tenant', [])).toBe('tenant');
    expect(n.columnName('payload', 'rawJSON', [])).toBe('rawJSON');
  });

  it('prefixes embedded columns in snake_case', () => {
    expect(n.columnName('countryCode', undefined, ['billingAddress'])).toBe('billing_address_country_code');
    expect(n.columnName('code', 'iso', ['billingAddress'])).toBe('billing_address_iso');
  });

  it('names join columns and join tables in snake_case', () => {
    expect(n.joinColumnName('contactList', 'id')).toBe('contact_list_id');
    expect(n.joinTableName('contact_list', 'contact', 'contacts')).toBe('contact_list_contacts_contact');
    expect(n.joinTableColumnName('contact_list', 'id')).toBe('contact_list_id');
    expect(n.relationName('ownerTeam')).toBe('owner_team');
  });
});
