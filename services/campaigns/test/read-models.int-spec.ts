import { CustomerUpdatedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { customer, keywords, listReady, sender, startCampaigns, stream, streamEvent, type CampaignsTestApp } from './support';

/** The read models campaigns keeps from accounts, streams and contacts events (docs/decisions/0031). */
describe('campaigns read models', () => {
  let app: CampaignsTestApp;

  beforeAll(async () => {
    app = await startCampaigns();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it('keeps the account settings the campaigns need, enable_spam_restriction among them, and applies a redelivered event once', async () => {
    const created = customer('501', { enable_spam_restriction: true, timezone: 'Asia/Kolkata' }, { allow_spintax: false });
    await app.publish([created, created]);
    expect(await app.sql(`SELECT enable_spam_restriction, allow_spintax, time_zone, currency FROM campaigns.account WHERE account_id = 501`)).toEqual([
      { enable_spam_restriction: true, allow_spintax: false, time_zone: 'Asia/Kolkata', currency: 'EUR' },
    ]);
    const c = created.data;
    await app.publish([createEnvelope(CustomerUpdatedV1, { ...c, customSettings: { enable_spam_restriction: false, timezone: 'Not/AZone' } }, { accountId: '501', source: 'accounts' })]);
    expect(await app.sql(`SELECT enable_spam_restriction, time_zone FROM campaigns.account WHERE account_id = 501`)).toEqual([{ enable_spam_restriction: false, time_zone: 'UTC' }]);
    expect(await app.sql(`SELECT count(*)::int AS n FROM campaigns.processed_events WHERE consumer = 'campaigns.accounts-projector'`)).toEqual([{ n: 2 }]);
  });

  it('keeps streams, senders, stream events, the malicious keyword list and ready contact lists', async () => {
    await app.publish([stream('502', '71', 'Marketing'), sender('502', '81', 'ACME'), streamEvent('502', '91', '71'), listReady('502', '61', 42), keywords(['casino', 'free money'])]);
    expect(await app.sql(`SELECT stream_id::text, account_id::text, name FROM campaigns.stream WHERE stream_id = 71`)).toEqual([{ stream_id: '71', account_id: '502', name: 'Marketing' }]);
    expect(await app.sql(`SELECT value, approved FROM campaigns.sender WHERE sender_id = 81`)).toEqual([{ value: 'ACME', approved: 1 }]);
    expect(await app.sql(`SELECT name, stream_id::text FROM campaigns.stream_event WHERE stream_event_id = 91`)).toEqual([{ name: 'order_shipped', stream_id: '71' }]);
    expect(await app.sql(`SELECT num_of_contacts FROM campaigns.contact_list WHERE contact_list_id = 61`)).toEqual([{ num_of_contacts: 42 }]);
    expect((await app.sql<{ word: string }>(`SELECT word FROM campaigns.malicious_keyword ORDER BY word`)).map((r) => r.word)).toEqual(['casino', 'free money']);
    // the list is replaced whole
    await app.publish([keywords(['lottery'])]);
    expect((await app.sql<{ word: string }>(`SELECT word FROM campaigns.malicious_keyword ORDER BY word`)).map((r) => r.word)).toEqual(['lottery']);
  });

  it('never lets an event of another account take over a stream or sender it does not own', async () => {
    await app.publish([stream('503', '72', 'Mine'), sender('503', '82', 'MINE')]);
    await app.publish([stream('504', '72', 'Hijack'), sender('504', '82', 'HIJACK')]);
    expect(await app.sql(`SELECT account_id::text, name FROM campaigns.stream WHERE stream_id = 72`)).toEqual([{ account_id: '503', name: 'Mine' }]);
    expect(await app.sql(`SELECT account_id::text, value FROM campaigns.sender WHERE sender_id = 82`)).toEqual([{ account_id: '503', value: 'MINE' }]);
  });
});
