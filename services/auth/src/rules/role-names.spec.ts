import { copyName, DEFAULT_ROLE_NAME, uniqueRoleName } from './role-names';

describe('role names', () => {
  it('keeps a free name as it is', () => {
    expect(uniqueRoleName('Support', ['Sales'])).toBe('Support');
  });

  it('appends " - N" with the first free N, comparing without case', () => {
    expect(uniqueRoleName(DEFAULT_ROLE_NAME, ['custom role name'])).toBe('Custom role name - 1');
    expect(uniqueRoleName(DEFAULT_ROLE_NAME, ['Custom role name', 'Custom role name - 1', 'Custom role name - 3'])).toBe('Custom role name - 2');
  });

  it('names a copy "Copy of X", made unique the same way', () => {
    expect(copyName('Support')).toBe('Copy of Support');
    expect(uniqueRoleName(copyName('Support'), ['Copy of Support'])).toBe('Copy of Support - 1');
  });
});
