import { generateKeyPairSync, randomUUID } from 'node:crypto';
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
  typ: 'access';
}

export interface VerifiedAccess extends AccessClaims {
  iat: number;
  exp: number;
  jti: string;
}

export class TokenSigner {
  constructor(
    private readonly privateKeyPem: string,
    private readonly issuer = 'switchboard',
  ) {}

  signAccess(claims: Omit<AccessClaims, 'typ'>, ttlSeconds: number): string {
    return jwt.sign({ ...claims, typ: 'access' }, this.privateKeyPem, {
      algorithm: JWT_ALGORITHM,
      expiresIn: ttlSeconds,
      issuer: this.issuer,
      jwtid: randomUUID(),
    });
  }
}

export class TokenVerifier {
  constructor(
    private readonly publicKeyPem: string,
    private readonly issuer = 'switchboard',
  ) {}

  /**
   * Verifies signature, algorithm (ES256 only: `alg: none` and HS256-with-the-public-key are refused), issuer,
   * expiry and token type. Anything else is 401 with code 0x14 (invalid JWT).
   */
  verifyAccess(token: string): VerifiedAccess {
    let payload: string | jwt.JwtPayload;
    try {
      payload = jwt.verify(token, this.publicKeyPem, { algorithms: [JWT_ALGORITHM], issuer: this.issuer });
    } catch (e) {
      const expired = e instanceof jwt.TokenExpiredError;
      throw AppError.unauthorized(expired ? 'token expired' : 'invalid token', ErrorCode.InvalidJwt);
    }
    if (typeof payload !== 'object' || payload.typ !== 'access' || typeof payload.sub !== 'string') {
      throw AppError.unauthorized('invalid token', ErrorCode.InvalidJwt);
    }
    return payload as VerifiedAccess;
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
