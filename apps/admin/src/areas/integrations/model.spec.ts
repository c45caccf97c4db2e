import { describe, expect, it } from '@jest/globals';
import { completionBody, completionErrors } from './model';

describe('integration completion form (spec 5)', () => {
  it('requires an import mode, and profiles when the mode is selected profiles', () => {
    expect(completionErrors({ companyName: '', mode: '', profiles: [], noteOnClose: true })).toEqual({ mode: true, profiles: false });
    expect(completionErrors({ companyName: '', mode: 'profiles', profiles: [], noteOnClose: true })).toEqual({ mode: false, profiles: true });
    expect(completionErrors({ companyName: '', mode: 'profiles', profiles: ['p1'], noteOnClose: true })).toEqual({ mode: false, profiles: false });
    expect(completionErrors({ companyName: '', mode: 'all', profiles: [], noteOnClose: true })).toEqual({ mode: false, profiles: false });
  });

  it('sends the profiles only with the selected-profiles mode, and the company name only when given', () => {
    expect(completionBody({ companyName: ' Acme ', mode: 'profiles', profiles: ['p1', 'p2'], noteOnClose: true })).toEqual({ company_name: 'Acme', import_users: { type: 'profiles', profiles: ['p1', 'p2'] }, note_on_close: true });
    expect(completionBody({ companyName: '', mode: 'admins', profiles: ['p1'], noteOnClose: false })).toEqual({ import_users: { type: 'admins' }, note_on_close: false });
  });
});
