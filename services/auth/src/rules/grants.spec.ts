import { missingGrants } from './grants';

describe('grants', () => {
  it('lists what is requested and not held, once and sorted', () => {
    expect(missingGrants(['STREAM_VIEW', 'CAMPAIGN_VIEW', 'CAMPAIGN_VIEW', 'DOMAIN_VIEW'], ['STREAM_VIEW'])).toEqual(['CAMPAIGN_VIEW', 'DOMAIN_VIEW']);
    expect(missingGrants(['STREAM_VIEW'], ['STREAM_VIEW', 'X'])).toEqual([]);
  });
});
