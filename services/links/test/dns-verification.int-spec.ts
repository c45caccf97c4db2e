import { DomainChangedV1, DomainState } from '@switchboard/contracts';
import { DomainVerifier } from '../src/services/domain-verifier';
import { DnsZone } from '@switchboard/platform/testing';
import { startLinks, type Json, type LinksTestApp } from './support';

const TARGET = 'r.links.test';
const A_TARGET = '203.0.113.10';

/** DNS verification against a real DNS server started here (dns2 over UDP on 127.0.0.1), through node's resolver. */
describe('domain verification in DNS', () => {
  let zone: DnsZone;
  let l: LinksTestApp;
  let A: string;
  let B: string;

  const txt = (d: Json) => (d.dns as Json[]).find((r) => r.type === 'TXT') as Json;
  const add = async (token: string, names: string[]) => {
    const r = await l.call('POST', '/domains/bulk', { token, body: { domains: names } });
    expect(r.status).toBe(200);
    return r.body.data as Json[];
  };
  const check = async (token: string, id: number) => (await l.call('POST', `/domains/${id}/check`, { token })).body;

  beforeAll(async () => {
    zone = await new DnsZone().start();
    zone.set(TARGET, { a: [A_TARGET] });
    l = await startLinks({ dnsServers: [zone.address], dns: { cnameTarget: TARGET, aTarget: A_TARGET }, dnsTimeoutMs: 500 });
    A = l.token('101');
    B = l.token('102');
  });

  afterAll(async () => {
    await l?.close();
    await zone?.stop();
  });

  it('answers the DNS instructions: a CNAME (or A) to the configured target and the ownership TXT', async () => {
    const [d] = await add(A, ['Instructions.Example.com']);
    expect(d.name).toBe('instructions.example.com');
    expect(d.dns).toEqual([
      { type: 'CNAME', host: 'instructions.example.com', value: TARGET, purpose: 'routing' },
      { type: 'A', host: 'instructions.example.com', value: A_TARGET, purpose: 'routing' },
      { type: 'TXT', host: '_switchboard.instructions.example.com', value: expect.stringMatching(/^switchboard-verify=[0-9a-f]{32}$/), purpose: 'ownership' },
    ]);
    // no record at all yet: not configured
    expect(d.state).toBe(DomainState.NotConfigured);
    expect(zone.queries.some((q) => q.name === 'instructions.example.com')).toBe(true);
  });

  it('reaches every DNS state: not configured, valid-pending, configured, declined, pending on a failing server', async () => {
    zone.set('vp.example.com', { cname: TARGET });
    zone.set('elsewhere.example.com', { cname: 'other-shortener.example.net' });
    zone.set('broken.example.com', { servfail: true });
    const [vp, elsewhere, broken] = await add(A, ['vp.example.com', 'elsewhere.example.com', 'broken.example.com']);
    expect(vp.state).toBe(DomainState.ValidPending);
    expect(elsewhere).toMatchObject({ state: DomainState.Declined, declinedReason: 'dns_points_elsewhere: CNAME other-shortener.example.net' });
    // a lookup that fails says nothing: the new domain stays pending and is asked again
    expect(broken.state).toBe(DomainState.Pending);

    zone.set('_switchboard.vp.example.com', { txt: [txt(vp).value as string] });
    expect(await check(A, vp.id)).toMatchObject({ state: DomainState.Configured, type: 'CNAME', declinedReason: null });

    // an apex name with an A record to the configured address
    zone.set('apex.example.org', { a: [A_TARGET] });
    const [apex] = await add(A, ['apex.example.org']);
    expect(apex.state).toBe(DomainState.ValidPending);
    zone.set('_switchboard.apex.example.org', { txt: ['v=spf1 -all', txt(apex).value as string] });
    expect(await check(A, apex.id)).toMatchObject({ state: DomainState.Configured, type: 'A', ip: A_TARGET });
    // an A record to another address is declined
    zone.set('apex.example.org', { a: ['198.51.100.7'] });
    expect(await check(A, apex.id)).toMatchObject({ state: DomainState.Declined, declinedReason: 'dns_points_elsewhere: A 198.51.100.7' });
  });

  it('moves a verified domain when its records change, on the scheduled re-check', async () => {
    zone.set('moves.example.com', { cname: TARGET });
    const [d] = await add(A, ['moves.example.com']);
    zone.set('_switchboard.moves.example.com', { txt: [txt(d).value as string] });
    expect((await check(A, d.id)).state).toBe(DomainState.Configured);
    const verifier = l.t.app.get(DomainVerifier);
    const state = async () => (await l.call('GET', `/domains/${d.id}`, { token: A })).body.state as number;

    // not due yet: nothing is asked
    zone.set('moves.example.com', { cname: 'elsewhere.example.net' });
    await verifier.checkDue();
    expect(await state()).toBe(DomainState.Configured);

    // ten minutes later the re-check sees the CNAME pointing elsewhere
    l.clock.advance(600_000);
    await verifier.checkDue();
    expect(await state()).toBe(DomainState.Declined);

    // fixed, but the ownership TXT removed: valid-pending; then gone altogether: not configured
    zone.set('moves.example.com', { cname: TARGET });
    zone.set('_switchboard.moves.example.com', null);
    l.clock.advance(600_000);
    await verifier.checkDue();
    expect(await state()).toBe(DomainState.ValidPending);
    zone.set('moves.example.com', null);
    l.clock.advance(600_000);
    await verifier.checkDue();
    expect(await state()).toBe(DomainState.NotConfigured);

    await l.flush();
    const states = l.published.filter((e) => e.type === DomainChangedV1.type && (e.data as Json).domainId === String(d.id)).map((e) => (e.data as Json).state);
    expect(states).toEqual([DomainState.Pending, DomainState.ValidPending, DomainState.Configured, DomainState.Declined, DomainState.ValidPending, DomainState.NotConfigured]);
  });

  it('checks each due domain once when schedulers run side by side', async () => {
    zone.set('once.example.com', { cname: TARGET });
    const [d] = await add(A, ['once.example.com']);
    l.clock.advance(3_600_000);
    const asked = () => zone.queries.filter((q) => q.name === 'once.example.com' && q.type === 5).length;
    const before = asked();
    const verifier = l.t.app.get(DomainVerifier);
    await Promise.all([verifier.checkDue(500), verifier.checkDue(500), verifier.checkDue(500)]);
    expect(asked() - before).toBe(1);
    expect((await l.call('GET', `/domains/${d.id}`, { token: A })).body.checkedAt).toBe(l.clock.now().toISOString());
  });

  it('lets one account at a time hold a name: the second claimant is declined until the first loses its proof', async () => {
    zone.set('shared.example.com', { cname: TARGET });
    const [a] = await add(A, ['shared.example.com']);
    const [b] = await add(B, ['shared.example.com']);
    // both tokens published (a DNS owner who tried both accounts): the first verified holds the name
    zone.set('_switchboard.shared.example.com', { txt: [txt(a).value as string, txt(b).value as string] });
    expect((await check(A, a.id)).state).toBe(DomainState.Configured);
    expect(await check(B, b.id)).toMatchObject({ state: DomainState.Declined, declinedReason: 'claimed_by_another_account' });
    const holders = await l.sql<{ account_id: string }>(`SELECT account_id::text FROM links.domain WHERE name = 'shared.example.com' AND claimed`);
    expect(holders).toEqual([{ account_id: '101' }]);

    // the owner keeps only B's token: A loses the claim at its re-check, B takes it at its own
    zone.set('_switchboard.shared.example.com', { txt: [txt(b).value as string] });
    expect((await check(A, a.id)).state).toBe(DomainState.ValidPending);
    expect((await check(B, b.id)).state).toBe(DomainState.Configured);
    expect((await check(A, a.id)).state).toBe(DomainState.ValidPending);
    expect(await l.sql(`SELECT account_id::text FROM links.domain WHERE name = 'shared.example.com' AND claimed`)).toEqual([{ account_id: '102' }]);
  });

  it('archives and restores, reaches its limit and comes back under it, and is blocked by a super administrator', async () => {
    zone.set('life.example.com', { cname: TARGET });
    const [d] = await add(A, ['life.example.com']);
    zone.set('_switchboard.life.example.com', { txt: [txt(d).value as string] });
    expect((await check(A, d.id)).state).toBe(DomainState.Configured);

    expect((await l.call('POST', `/domains/archive/${d.id}`, { token: A, body: {} })).body).toMatchObject({ state: DomainState.Archived, archived: true });
    const archivedList = await l.call('GET', '/domains?archived=1', { token: A });
    expect(archivedList.body.items.map((x: Json) => x.name)).toContain('life.example.com');
    expect((await l.call('GET', '/domains', { token: A })).body.items.map((x: Json) => x.name)).not.toContain('life.example.com');
    expect((await l.call('POST', `/domains/archive/${d.id}`, { token: A, body: { archived: false } })).body.state).toBe(DomainState.Configured);

    // the per-domain limit: usages at or over it is "reached limit", raised above them configured again
    await l.sql(`UPDATE links.domain SET total_usages = 5 WHERE id = $1`, [d.id]);
    expect((await l.call('PUT', `/domains/${d.id}`, { token: A, body: { messagesLimit: 5 } })).body.state).toBe(DomainState.ReachedLimit);
    expect((await l.call('PUT', `/domains/${d.id}`, { token: A, body: { messagesLimit: 6 } })).body.state).toBe(DomainState.Configured);
    // the counter moved by the redirect role's minting is enough (the database applies the same rule)
    await l.sql(`UPDATE links.domain SET total_usages = total_usages + 1, updated_at = now() WHERE id = $1`, [d.id]);
    expect((await l.call('GET', `/domains/${d.id}`, { token: A })).body.state).toBe(DomainState.ReachedLimit);
    // ... and published once, for the read models (the database writes the event with the counter's change)
    await l.flush();
    const reached = l.published.filter((e) => e.type === DomainChangedV1.type && (e.data as Json).domainId === String(d.id) && (e.data as Json).state === DomainState.ReachedLimit);
    expect(reached.map((e) => DomainChangedV1.schema.safeParse(e.data).success)).toEqual([true, true]);
    expect(reached[1]).toMatchObject({ accountId: '101', key: String(d.id), data: { usable: false, messagesLimit: 6, deleted: false } });
    // the global limit modal sets every domain's limit
    expect((await l.call('POST', '/domains/messages_limit', { token: A, body: { limit: null } })).body).toMatchObject({ limit: null });
    expect((await l.call('GET', `/domains/${d.id}`, { token: A })).body).toMatchObject({ state: DomainState.Configured, messagesLimit: null });

    const sa = l.token('999', [], { sa: true });
    expect((await l.call('POST', `/domains/${d.id}/block`, { token: A, body: { blocked: true } })).status).toBe(403);
    expect((await l.call('POST', `/domains/${d.id}/block`, { token: sa, body: { blocked: true } })).body.state).toBe(DomainState.Blocked);
    // a blocked domain is not re-checked into another state
    expect((await l.call('POST', `/domains/${d.id}/check`, { token: A })).status).toBe(409);
    expect((await l.call('POST', `/domains/${d.id}/block`, { token: sa, body: { blocked: false } })).body.state).toBe(DomainState.Pending);
    expect((await check(A, d.id)).state).toBe(DomainState.Configured);
  });
});
