import { randomUUID } from 'node:crypto';
import { BlacklistChangedV1, InboundOptedInV1, InboundOptedOutV1, type OptOutData } from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { gb, startContacts, type ContactsTestApp } from './support';

/** STOP and START replies (dispatch's opt-out events) on the account's blacklist (docs/decisions/0021). */
describe('contacts: opt-out replies and the blacklist', () => {
  let a: ContactsTestApp;

  beforeAll(async () => {
    a = await startContacts();
  });
  afterAll(async () => a?.close());

  const reply = async (optedOut: boolean, data: Partial<OptOutData> & { phone: string }, id = randomUUID()) => {
    const d: OptOutData = { accountId: '1', channel: 'sms', sender: '+4930111111', streamId: '11', keyword: optedOut ? 'STOP' : 'START', messageUuid: randomUUID(), at: new Date().toISOString(), ...data };
    await a.t.bus.publish([createEnvelope(optedOut ? InboundOptedOutV1 : InboundOptedInV1, d, { accountId: d.accountId, source: 'dispatch', id })]);
    await (a.t.bus as InMemoryEventBus).drain();
  };
  const blacklist = async (account = '1') => (await a.call<{ items: Array<{ normalizedPhone: string }> }>('GET', '/black_lists', { token: a.token(account) })).body.items.map((i) => i.normalizedPhone).sort();

  it('blacklists a number that replied STOP in its account only, once however often the event comes, and blocks its contact', async () => {
    const contact = await a.call<{ id: number }>('POST', '/contacts', { token: a.token('1'), body: { phone: gb(1) } });
    const id = randomUUID();
    await reply(true, { phone: gb(1) }, id);
    await reply(true, { phone: gb(1) }, id);
    expect(await blacklist()).toEqual([gb(1)]);
    expect(await blacklist('2')).toEqual([]);
    expect(await a.sql(`SELECT blocked FROM contacts.contact WHERE id = $1`, [contact.body.id])).toEqual([{ blocked: true }]);
    const changed = (await a.events()).filter((e) => e.type === BlacklistChangedV1.type).map((e) => e.data);
    expect(changed).toEqual([expect.objectContaining({ accountId: '1', added: [gb(1)], removed: [] })]);
  });

  it('takes the number off again on START, but never an entry an operator added', async () => {
    await reply(false, { phone: gb(1) });
    expect(await blacklist()).toEqual([]);
    expect((await a.call('POST', '/black_lists', { token: a.token('1'), body: { phone: gb(2) } })).status).toBe(201);
    await reply(false, { phone: gb(2) });
    expect(await blacklist()).toEqual([gb(2)]);
  });

  it('leaves Telegram chat ids to dispatch', async () => {
    await reply(true, { phone: '555000', channel: 'telegram', sender: 'acme_bot' });
    expect(await blacklist()).toEqual([gb(2)]);
  });
});
