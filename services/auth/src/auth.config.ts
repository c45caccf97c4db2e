import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { AuthModuleOptions } from './auth.options';

/**
 * The standalone auth process's environment (distributed mode). Shared names (DATABASE_URL, JWT_*, KAFKA_*, NATS_URL,
 * SMTP_URL, MAIL_FROM, CAPTCHA, RECAPTCHA_SECRET, TRUST_PROXY, MIGRATIONS_RUN) are those of deploy/ and k8s/.
 */
export const authConfigSchema = z
  .object({
    PORT: env.port(3001),
    HOST: z.string().default('127.0.0.1'),
    DATABASE_URL: z.string().url(),
    /** ES256 private key: PEM, or base64 of it. */
    JWT_PRIVATE_KEY: z.string().min(1, 'the ES256 private key (PEM or base64 PEM) is required').transform(pemFromEnv),
    KAFKA_BROKERS: env.list().refine((l) => l.length > 0, 'at least one Kafka broker'),
    KAFKA_CREATE_TOPICS: env.bool(false),
    KAFKA_IDEMPOTENT_PRODUCER: env.bool(false),
    /** Compression of produced record batches (docs/decisions/0085). */
    KAFKA_COMPRESSION: z.enum(['gzip', 'none']).default('gzip'),
    NATS_URL: env.list(['nats://127.0.0.1:4222']),
    SMTP_URL: z.string().min(1, 'an SMTP URL (smtp://user:pass@host:587) is required to send sign-in codes'),
    MAIL_FROM: z.string().min(1).default('Switchboard <no-reply@switchboard.local>'),
    CAPTCHA: z.enum(['none', 'recaptcha']).default('recaptcha'),
    RECAPTCHA_SECRET: z.string().optional(),
    RECAPTCHA_VERIFY_URL: z.string().url().default('https://www.google.com/recaptcha/api/siteverify'),
    RECAPTCHA_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5),
    AUTH_ACCESS_TOKEN_TTL: env.int(900, 60),
    AUTH_REFRESH_TOKEN_TTL: env.int(30 * 24 * 3600, 300),
    AUTH_PIN_TTL: env.int(600, 60),
    AUTH_LOGIN_FAILURES_PER_EMAIL: env.int(10, 1),
    AUTH_LOGIN_FAILURES_PER_IP: env.int(30, 1),
    AUTH_LOGIN_FAILURE_WINDOW: env.int(900, 1),
    /** Public URL of the console, for links in invite and password reset emails. */
    APP_URL: z.string().url().default('http://127.0.0.1:3000'),
    AUTH_INVITE_TTL: env.int(7 * 24 * 3600, 3600),
    AUTH_PASSWORD_RESET_TTL: env.int(3600, 300),
    AUTH_API_KEY_TOKEN_TTL: env.int(300, 30),
    AUTH_REALTIME_TOKEN_TTL: env.int(300, 30),
    /** Zoho Inbox single sign-on (docs/decisions/0042): the OAuth client from Zoho's API console; unset = off. */
    ZOHO_CLIENT_ID: z.string().optional(),
    ZOHO_CLIENT_SECRET: z.string().optional(),
    /** The accounts server of the client's data centre (https://accounts.zoho.eu, ...). */
    ZOHO_ACCOUNTS_URL: z.string().url().default('https://accounts.zoho.com'),
    /** The redirect URI registered with Zoho; default `<APP_URL>/api/sso/zohoinbox/callback`. */
    ZOHO_REDIRECT_URI: z.string().url().optional(),
    /** Distributed mode migrates in a Job (`migrate.js`); set true to migrate at start instead. */
    MIGRATIONS_RUN: env.bool(false),
    /** `false`, or Express's trust proxy value for the load balancer in front; X-Forwarded-For is ignored otherwise. */
    TRUST_PROXY: z.string().default('false'),
    /** First super administrator of a new deployment, created at start when both are set (idempotent). */
    SWITCHBOARD_ADMIN_EMAIL: z.string().email().optional(),
    SWITCHBOARD_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
    SWITCHBOARD_DEMO_ACCOUNT: z.string().min(1).default('Demo account'),
  })
  .superRefine((c, ctx) => {
    if (!!c.ZOHO_CLIENT_ID !== !!c.ZOHO_CLIENT_SECRET) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: [c.ZOHO_CLIENT_ID ? 'ZOHO_CLIENT_SECRET' : 'ZOHO_CLIENT_ID'], message: 'ZOHO_CLIENT_ID and ZOHO_CLIENT_SECRET are set together' });
    }
    if (c.CAPTCHA === 'recaptcha' && !c.RECAPTCHA_SECRET) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['RECAPTCHA_SECRET'], message: 'required when CAPTCHA=recaptcha' });
    }
  });

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const loadAuthConfig = (e: NodeJS.ProcessEnv = process.env): AuthConfig => loadConfig('auth', authConfigSchema, e);

/** What the migration Job needs. */
export const authMigrateConfigSchema = z.object({ DATABASE_URL: z.string().url() });
export const loadAuthMigrateConfig = (e: NodeJS.ProcessEnv = process.env) => loadConfig('auth-migrate', authMigrateConfigSchema, e);

export function authModuleOptionsFromConfig(c: AuthConfig): AuthModuleOptions {
  const window = c.AUTH_LOGIN_FAILURE_WINDOW;
  return {
    privateKey: c.JWT_PRIVATE_KEY,
    accessTokenTtlSeconds: c.AUTH_ACCESS_TOKEN_TTL,
    refreshTokenTtlSeconds: c.AUTH_REFRESH_TOKEN_TTL,
    pinTtlSeconds: c.AUTH_PIN_TTL,
    captcha:
      c.CAPTCHA === 'none'
        ? 'none'
        : { kind: 'recaptcha', secret: c.RECAPTCHA_SECRET ?? '', siteverifyUrl: c.RECAPTCHA_VERIFY_URL, minScore: c.RECAPTCHA_MIN_SCORE, expectedAction: 'submit' },
    throttle: {
      perEmail: { limit: c.AUTH_LOGIN_FAILURES_PER_EMAIL, windowSeconds: window },
      perIp: { limit: c.AUTH_LOGIN_FAILURES_PER_IP, windowSeconds: window },
    },
    migrationsRun: c.MIGRATIONS_RUN,
    appUrl: c.APP_URL,
    inviteTtlSeconds: c.AUTH_INVITE_TTL,
    passwordResetTtlSeconds: c.AUTH_PASSWORD_RESET_TTL,
    apiKeyTokenTtlSeconds: c.AUTH_API_KEY_TOKEN_TTL,
    realtimeTokenTtlSeconds: c.AUTH_REALTIME_TOKEN_TTL,
    zoho: c.ZOHO_CLIENT_ID && c.ZOHO_CLIENT_SECRET ? { clientId: c.ZOHO_CLIENT_ID, clientSecret: c.ZOHO_CLIENT_SECRET, accountsUrl: c.ZOHO_ACCOUNTS_URL, redirectUri: c.ZOHO_REDIRECT_URI } : null,
  };
}
