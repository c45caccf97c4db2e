import { createHmac, generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as jwt from 'jsonwebtoken';
import { AppError } from '../errors/app-error';
import { generateSigningKeys, loadOrCreateSigningKeys, pemFromEnv, TokenSigner, TokenVerifier, type AccessClaims } from './tokens';

const keys = generateSigningKeys();
const other = generateSigningKeys();
const claims: Omit<AccessClaims, 'typ'> = {
  sub: '42',
  email: 'ada@example.com',
  acc: '7',
  perms: ['STREAM_VIEW', 'CAMPAIGN_VIEW'],
  roles: ['ROLE_ADMIN'],
  sa: false,
  sid: 'family-1',
};

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = (): number => Math.floor(Date.now() / 1000);
const validPayload = () => ({ ...claims, typ: 'access', iss: 'switchboard', iat: now(), exp: now() + 600, jti: 'j1' });

/** The verifier's refusal: 401, code 0x14. */
function refusal(token: string): AppError {
  try {
    new TokenVerifier(keys.publicKey).verifyAccess(token);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('token was accepted');
}

function expectRefused(token: string, message = 'invalid token'): void {
  const e = refusal(token);
  expect(e.status).toBe(401);
  expect(e.code).toBe('0x14');
  expect(e.message).toBe(message);
  expect(e.toBody()).toEqual({ code: '0x14', message, status: 401 });
}

describe('access tokens', () => {
  it('round-trips the claims through sign and verify', () => {
    const token = new TokenSigner(keys.privateKey).signAccess(claims, 900);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ alg: 'ES256', typ: 'JWT' });
    const v = new TokenVerifier(keys.publicKey).verifyAccess(token);
    expect(v).toMatchObject({ ...claims, typ: 'access', iss: 'switchboard' });
    expect(v.exp - v.iat).toBeCloseTo(900, 3);
    expect(typeof v.jti).toBe('string');
  });

  it('re-signs verified claims (account switch) with a fresh expiry instead of failing on exp/iat/jti', () => {
    const signer = new TokenSigner(keys.privateKey);
    const verifier = new TokenVerifier(keys.publicKey);
    const first = verifier.verifyAccess(signer.signAccess(claims, 60));
    const second = verifier.verifyAccess(signer.signAccess({ ...first, acc: '8' }, 900));
    expect(second.acc).toBe('8');
    expect(second.exp - second.iat).toBeCloseTo(900, 3);
    expect(second.jti).not.toBe(first.jti);
  });

  it('refuses alg: none', () => {
    expectRefused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(validPayload())}.`);
    expectRefused(jwt.sign(validPayload(), null as unknown as string, { algorithm: 'none' }));
  });

  it('refuses a token signed by another key', () => {
    expectRefused(new TokenSigner(other.privateKey).signAccess(claims, 900));
  });

  it('refuses an HS256 token signed with the public key PEM as the HMAC secret (key confusion)', () => {
    const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(validPayload())}`;
    const sig = createHmac('sha256', keys.publicKey).update(input).digest('base64url');
    expectRefused(`${input}.${sig}`);
  });

  it('refuses an expired token with its own message', () => {
    const expired = jwt.sign({ ...claims, typ: 'access', iat: now() - 120, exp: now() - 60 }, keys.privateKey, { algorithm: 'ES256', issuer: 'switchboard' });
    expectRefused(expired, 'token expired');
  });

  it('remembers a verified token yet refuses it from its expiry on, and never takes a forged signature or changed claims for it', () => {
    const verifier = new TokenVerifier(keys.publicKey);
    const exp = now() + 600;
    const token = jwt.sign({ ...claims, typ: 'access', iat: now(), exp }, keys.privateKey, { algorithm: 'ES256', issuer: 'switchboard' });
    const first = verifier.verifyAccess(token);
    expect(verifier.verifyAccess(token)).toEqual(first);
    // the remembered claims are shared by every request with this token: nobody can change them for the next one
    expect(() => (first.perms as string[]).push('ACCOUNT_ADMIN')).toThrow(TypeError);
    expect(() => Object.assign(first, { sa: true })).toThrow(TypeError);
    const [head, body, sig] = token.split('.');
    const forgedSig = `${head}.${body}.${Buffer.from(sig, 'base64url').reverse().toString('base64url')}`;
    const raised = `${head}.${b64({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), sa: true })}.${sig}`;
    for (const t of [forgedSig, raised]) expect(() => verifier.verifyAccess(t)).toThrow(AppError);
    jest.useFakeTimers({ now: exp * 1000 });
    try {
      expect(() => verifier.verifyAccess(token)).toThrow('token expired');
      expect(() => verifier.verifyAccess(token)).toThrow('token expired');
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses a token without an expiry', () => {
    expectRefused(jwt.sign({ ...claims, typ: 'access' }, keys.privateKey, { algorithm: 'ES256', issuer: 'switchboard' }));
  });

  it('refuses a token whose typ is not access (pre-PIN and refresh tokens open nothing)', () => {
    for (const typ of ['pre_pin', 'refresh', undefined]) {
      expectRefused(jwt.sign({ ...claims, typ }, keys.privateKey, { algorithm: 'ES256', issuer: 'switchboard', expiresIn: 60 }));
    }
  });

  it('refuses a token of another issuer', () => {
    expectRefused(jwt.sign({ ...claims, typ: 'access' }, keys.privateKey, { algorithm: 'ES256', issuer: 'elsewhere', expiresIn: 60 }));
  });

  it('refuses a signed token whose claims are malformed', () => {
    for (const bad of [{ perms: 'STREAM_VIEW' }, { sa: 'true' }, { roles: null }, { acc: 7 }, { sub: '' }]) {
      expectRefused(jwt.sign({ ...claims, ...bad, typ: 'access' }, keys.privateKey, { algorithm: 'ES256', issuer: 'switchboard', expiresIn: 60 }));
    }
  });

  it('refuses garbage', () => {
    for (const t of ['', 'abc', 'a.b.c', `${'x'.repeat(9000)}`]) expectRefused(t);
  });

  it('fails at construction on a key that is not EC P-256', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    expect(() => new TokenVerifier(rsa.publicKey)).toThrow(/EC P-256/);
    expect(() => new TokenSigner(rsa.privateKey)).toThrow(/EC P-256/);
    expect(() => new TokenVerifier('a shared secret')).toThrow(/not a valid PEM key/);
  });

  it('refuses a non-positive TTL', () => {
    expect(() => new TokenSigner(keys.privateKey).signAccess(claims, 0)).toThrow(/TTL/);
  });
});

describe('signing keys', () => {
  it('are generated once and then reused from the directory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-keys-'));
    try {
      const a = loadOrCreateSigningKeys(path.join(dir, 'keys'));
      const b = loadOrCreateSigningKeys(path.join(dir, 'keys'));
      expect(b).toEqual(a);
      expect(fs.statSync(path.join(dir, 'keys', 'jwt-private.pem')).mode & 0o077).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('read from env as literal PEM with escaped newlines or as base64', () => {
    const pem = keys.publicKey;
    expect(pemFromEnv(pem.replace(/\n/g, '\\n'))).toBe(pem);
    expect(pemFromEnv(Buffer.from(pem).toString('base64'))).toBe(pem);
  });
});
