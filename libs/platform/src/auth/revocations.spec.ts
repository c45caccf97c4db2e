import { ApiKeyDeletedV1, SessionRevokedV1, UserAccessRevokedV1 } from '@switchboard/contracts';
import { InMemoryRealtime } from '../realtime/in-memory-realtime';
import { followRealtimeRevocations, MAX_ACCESS_TOKEN_LIFETIME_MS, publishRevocation, revocationFromEvent, RevocationList, type Revocation } from './revocations';
import { generateSigningKeys, TokenSigner, TokenVerifier } from './tokens';

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const claims = (o: Partial<{ sub: string; acc: string | null; sid: string; iat: number }> = {}) => ({ sub: '42', acc: '7', sid: 'sid-1', iat: T0 / 1000 - 1, ...o });
const event = (type: string, data: unknown, occurredAt = new Date(T0).toISOString()) => ({ type, version: 1, occurredAt, data });

describe('the revocation deny list', () => {
  let now: number;
  let list: RevocationList;
  beforeEach(() => {
    now = T0;
    list = new RevocationList(MAX_ACCESS_TOKEN_LIFETIME_MS, () => now);
  });

  it('refuses every token of a revoked session with 401 INVALID_JWT, and no other session', () => {
    list.apply({ kind: 'session', sid: 'sid-1', at: T0 });
    expect(() => list.assertNotRevoked(claims())).toThrow(expect.objectContaining({ status: 401, code: '0x14' }));
    expect(list.reason(claims({ sid: 'sid-2' }))).toBeNull();
  });

  it("refuses a user's tokens issued before notBefore in the named account only (tenant safety)", () => {
    list.apply({ kind: 'subject', sub: '42', accountId: '7', notBefore: T0 });
    expect(list.reason(claims({ acc: '7' }))).not.toBeNull();
    expect(list.reason(claims({ acc: '8' }))).toBeNull();
    expect(list.reason(claims({ acc: null }))).toBeNull();
    expect(list.reason(claims({ sub: '43' }))).toBeNull();
    // a token issued after the revocation, even within the same second, is accepted
    expect(list.reason(claims({ iat: (T0 + 1) / 1000 }))).toBeNull();
    expect(list.reason(claims({ iat: (T0 - 1) / 1000 }))).not.toBeNull();
  });

  it('refuses the user everywhere when the revocation names no account (disabled globally)', () => {
    list.apply({ kind: 'subject', sub: '42', accountId: null, notBefore: T0 });
    expect(list.reason(claims({ acc: '7' }))).not.toBeNull();
    expect(list.reason(claims({ acc: '8' }))).not.toBeNull();
    expect(list.reason(claims({ acc: null }))).not.toBeNull();
  });

  it('keeps the later notBefore when revocations of one user arrive out of order', () => {
    list.apply({ kind: 'subject', sub: '42', accountId: '7', notBefore: T0 });
    list.apply({ kind: 'subject', sub: '42', accountId: '7', notBefore: T0 - 60_000 });
    expect(list.reason(claims({ iat: (T0 - 30_000) / 1000 }))).not.toBeNull();
  });

  it('forgets entries once no token they concern can be alive, so memory stays bounded', () => {
    list.apply({ kind: 'session', sid: 'sid-1', at: T0 });
    list.apply({ kind: 'subject', sub: '42', accountId: '7', notBefore: T0 });
    expect(list.size).toBe(2);
    now = T0 + MAX_ACCESS_TOKEN_LIFETIME_MS + 1;
    list.prune();
    expect(list.size).toBe(0);
    // and a replayed event that old is not taken in
    expect(list.apply({ kind: 'session', sid: 'sid-9', at: T0 })).toBe(false);
    expect(list.size).toBe(0);
  });

  it('tells listeners (the gateway) which open connections a revocation concerns', () => {
    const seen: Revocation[] = [];
    list.onRevoked((r) => seen.push(r));
    list.apply({ kind: 'subject', sub: '42', accountId: '7', notBefore: T0 });
    expect(RevocationList.concerns(seen[0], claims())).toBe(true);
    expect(RevocationList.concerns(seen[0], claims({ acc: '8' }))).toBe(false);
    expect(RevocationList.concerns(seen[0], claims({ iat: (T0 + 5) / 1000 }))).toBe(false);
  });

  it("maps auth's events, ignoring malformed ones and other types", () => {
    const sid = '0b7c4a52-4a57-4d3a-9f57-0c6a2c1b2f11';
    expect(revocationFromEvent(event(SessionRevokedV1.type, { familyId: sid, userId: '42', reason: 'logout' }))).toEqual({ kind: 'session', sid, at: T0 });
    expect(revocationFromEvent(event(UserAccessRevokedV1.type, { userId: '42', accountId: '7', notBefore: new Date(T0).toISOString(), reason: 'roles_changed' }))).toEqual({
      kind: 'subject',
      sub: '42',
      accountId: '7',
      notBefore: T0,
    });
    expect(revocationFromEvent(event(ApiKeyDeletedV1.type, { apiKeyId: '5', accountId: '7', deletedAt: new Date(T0).toISOString() }))).toEqual({
      kind: 'subject',
      sub: 'apikey:5',
      accountId: null,
      notBefore: T0,
    });
    expect(revocationFromEvent(event(SessionRevokedV1.type, { familyId: 'not-a-uuid' }))).toBeNull();
    expect(revocationFromEvent(event('auth.user.signed_in', {}))).toBeNull();
  });

  it('reaches a process without a bus through the realtime mirror', async () => {
    const realtime = new InMemoryRealtime();
    const far = new RevocationList();
    const stop = await followRealtimeRevocations(realtime, far);
    await publishRevocation(realtime, event(UserAccessRevokedV1.type, { userId: '42', accountId: '7', notBefore: new Date().toISOString(), reason: 'disabled' }));
    await new Promise((r) => setTimeout(r, 10));
    expect(far.reason(claims({ iat: Date.now() / 1000 - 5 }))).not.toBeNull();
    await stop();
    await realtime.close();
  });

  it('compares against the millisecond issue time the signer writes', () => {
    const keys = generateSigningKeys();
    const token = new TokenSigner(keys.privateKey).signAccess({ sub: '42', email: '', acc: '7', perms: [], roles: [], sa: false, sid: 's' }, 900);
    const verified = new TokenVerifier(keys.publicKey).verifyAccess(token);
    const real = new RevocationList();
    real.apply({ kind: 'subject', sub: '42', accountId: '7', notBefore: verified.iat * 1000 + 1 });
    expect(real.reason(verified)).not.toBeNull();
    const after = new RevocationList();
    after.apply({ kind: 'subject', sub: '42', accountId: '7', notBefore: verified.iat * 1000 - 1 });
    expect(after.reason(verified)).toBeNull();
  });
});
