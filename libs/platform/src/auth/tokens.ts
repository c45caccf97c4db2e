import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jwt from 'jsonwebtoken';
import { ErrorCode } from '@switchboard/contracts';
import { AppError } from '../errors/app-error';

/** The only algorithm accepted: asymmetric, so services verify with the public key and only auth can sign. */
export const JWT_ALGORITHM = 'ES256' as const;

export interface AccessClaims {
  sub: string;
  email: string;
  /** Current account; null until one is chosen. */
  acc: string | null;
  perms: string[];
  roles: string[];
  sa: boolean;
  /** Session family id: refresh tokens of one login share it; revoking it ends the session. */
  sid: string;
  /** Impersonator's user id while logged in as someone else. */
  imp?: string | null;
  /** `apiKey` for the tokens an API key is exchanged for (sub `apikey:<id>`); absent for people. */
  kind?: 'user' | 'apiKey';
  typ: 'access';
}

export interface VerifiedAccess extends AccessClaims {
  iat: number;
  exp: number;
  jti: string;
}

/** Registered claims the signer sets itself; a caller re-signing verified claims (account switch) must not pass them. */
const REGISTERED_CLAIMS = ['iat', 'exp', 'nbf', 'jti', 'iss', 'aud', 'typ'] as const;

function ecKey(pem: string, kind: 'private' | 'public'): KeyObject {
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch {
    throw new Error(`the JWT ${kind} key is not a valid PEM key`);
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error(`the JWT ${kind} key must be an EC P-256 key (ES256)`);
  }
  return key;
}

export class TokenSigner {
  private readonly key: KeyObject;

  constructor(
    privateKeyPem: string,
    private readonly issuer = 'switchboard',
  ) {
    this.key = ecKey(privateKeyPem, 'private');
  }

  signAccess(claims: Omit<AccessClaims, 'typ'>, ttlSeconds: number): string {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new Error(`access token TTL must be a positive number of seconds, got ${ttlSeconds}`);
    const payload: Record<string, unknown> = { ...claims };
    for (const k of REGISTERED_CLAIMS) delete payload[k];
    // `iat` with millisecond precision (RFC 7519 allows a non-integer NumericDate): the deny list compares it with a
    // revocation's `notBefore`, and a token issued in the same second as a role change must not be confused with one
    // issued before it. `exp` follows from it.
    return jwt.sign({ ...payload, typ: 'access', iat: Date.now() / 1000 }, this.key, {
      algorithm: JWT_ALGORITHM,
      expiresIn: ttlSeconds,
      issuer: this.issuer,
      jwtid: randomUUID(),
    });
  }
}

const invalid = (message = 'invalid token'): AppError => AppError.unauthorized(message, ErrorCode.InvalidJwt);

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** How many verified access tokens a verifier remembers (docs/decisions/0068). */
const VERIFIED_TOKENS_KEPT = 10_000;

export class TokenVerifier {
  private readonly key: KeyObject;
  /**
   * The claims of access tokens already verified, by the whole token (its signature included): a console sends the same
   * token with every request for its lifetime, and the ES256 check was the largest part of node's CPU per inbox read
   * (docs/decisions/0068). Only tokens that passed every check are kept; expiry is checked again at each use; the
   * deny list (revocations) is the caller's and still checked per request. The oldest go first past the bound.
   */
  private readonly verified = new Map<string, VerifiedAccess>();

  constructor(
    publicKeyPem: string,
    private readonly issuer = 'switchboard',
  ) {
    // A bad key fails at boot, not as a 401 on every request; a private key PEM is accepted (its public half is used).
    this.key = ecKey(publicKeyPem, 'public');
  }

  /**
   * Verifies signature, algorithm (ES256 only: `alg: none` and HS256-with-the-public-key are refused), issuer,
   * expiry (required) and token type, and the shape of the claims the guard relies on. Anything else is 401 with
   * code 0x14 (invalid JWT).
   */
  verifyAccess(token: string): VerifiedAccess {
    if (typeof token !== 'string' || token.length > 8192) throw invalid();
    const known = this.verified.get(token);
    if (known) {
      // as jsonwebtoken decides expiry: expired from the second `exp` names
      if (Math.floor(Date.now() / 1000) < known.exp) return known;
      this.verified.delete(token);
      throw invalid('token expired');
    }
    const claims = this.check(token);
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, claims);
    return claims;
  }

  private check(token: string): VerifiedAccess {
    let payload: string | jwt.JwtPayload;
    try {
      payload = jwt.verify(token, this.key, { algorithms: [JWT_ALGORITHM], issuer: this.issuer });
    } catch (e) {
      throw invalid(e instanceof jwt.TokenExpiredError ? 'token expired' : 'invalid token');
    }
    if (
      typeof payload !== 'object' ||
      payload === null ||
      payload.typ !== 'access' ||
      typeof payload.sub !== 'string' ||
      !payload.sub ||
      typeof payload.exp !== 'number' ||
      typeof payload.iat !== 'number' ||
      typeof payload.email !== 'string' ||
      !(payload.acc === null || (typeof payload.acc === 'string' && payload.acc !== '')) ||
      !isStringArray(payload.perms) ||
      !isStringArray(payload.roles) ||
      typeof payload.sa !== 'boolean' ||
      typeof payload.sid !== 'string' ||
      !(payload.imp === undefined || payload.imp === null || typeof payload.imp === 'string') ||
      !(payload.kind === undefined || payload.kind === 'user' || payload.kind === 'apiKey')
    ) {
      throw invalid();
    }
    // shared by every request that sends this token: nobody may change it
    Object.freeze(payload.perms);
    Object.freeze(payload.roles);
    return Object.freeze(payload) as VerifiedAccess;
  }
}

export interface KeyPair {
  privateKey: string;
  publicKey: string;
}

export function generateSigningKeys(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKey, publicKey };
}

/** Embedded mode: keys generated on first start and kept in the data directory. */
export function loadOrCreateSigningKeys(dir: string): KeyPair {
  const priv = path.join(dir, 'jwt-private.pem');
  const pub = path.join(dir, 'jwt-public.pem');
  if (fs.existsSync(priv) && fs.existsSync(pub)) {
    return { privateKey: fs.readFileSync(priv, 'utf8'), publicKey: fs.readFileSync(pub, 'utf8') };
  }
  fs.mkdirSync(dir, { recursive: true });
  const keys = generateSigningKeys();
  fs.writeFileSync(priv, keys.privateKey, { mode: 0o600 });
  fs.writeFileSync(pub, keys.publicKey);
  return keys;
}

/** PEM from env: literal PEM or base64 of it (easier in k8s secrets and compose files). */
export function pemFromEnv(value: string): string {
  return value.includes('-----BEGIN') ? value.replace(/\\n/g, '\n') : Buffer.from(value, 'base64').toString('utf8');
}
