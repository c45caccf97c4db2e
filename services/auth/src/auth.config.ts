import { z } from 'zod';
import { env, loadConfig, pemFromEnv } from '@switchboard/platform';
import type { AuthModuleOptions } from './auth.options';

/** The standalone auth process's environment (distributed mode). */
export const authConfigSchema = z
  .object({
    PORT: env.port(3001),
    DATABASE_URL: z.string().url(),
    /** ES256 private key: PEM, or base64 of it. */
    AUTH_JWT_PRIVATE_KEY: z.string().min(1).transform(pemFromEnv),
    AUTH_ACCESS_TOKEN_TTL: env.int(900, 60),
    AUTH_REFRESH_TOKEN_TTL: env.int(30 * 24 * 3600, 300),
    AUTH_PIN_TTL: env.int(600, 60),
    AUTH_CAPTCHA: z.enum(['none', 'recaptcha']).default('recaptcha'),
    AUTH_RECAPTCHA_SECRET: z.string().optional(),
    AUTH_RECAPTCHA_VERIFY_URL: z.string().url().default('https://www.google.com/recaptcha/api/siteverify'),
    AUTH_RECAPTCHA_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.5),
    AUTH_LOGIN_FAILURES_PER_EMAIL: env.int(10, 1),
    AUTH_LOGIN_FAILURES_PER_IP: env.int(30, 1),
    AUTH_LOGIN_FAILURE_WINDOW: env.int(900, 1),
    /** Distributed mode migrates in a Job; set true to migrate at start instead. */
    AUTH_MIGRATIONS_RUN: env.bool(false),
    TRUST_PROXY: z.string().default('false'),
  })
  .superRefine((c, ctx) => {
    if (c.AUTH_CAPTCHA === 'recaptcha' && !c.AUTH_RECAPTCHA_SECRET) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['AUTH_RECAPTCHA_SECRET'], message: 'required when AUTH_CAPTCHA=recaptcha' });
    }
  });

export type AuthConfig = z.infer<typeof authConfigSchema>;

export const loadAuthConfig = (e: NodeJS.ProcessEnv = process.env): AuthConfig => loadConfig('auth', authConfigSchema, e);

export function authModuleOptionsFromConfig(c: AuthConfig): AuthModuleOptions {
  const window = c.AUTH_LOGIN_FAILURE_WINDOW;
  return {
    privateKey: c.AUTH_JWT_PRIVATE_KEY,
    accessTokenTtlSeconds: c.AUTH_ACCESS_TOKEN_TTL,
    refreshTokenTtlSeconds: c.AUTH_REFRESH_TOKEN_TTL,
    pinTtlSeconds: c.AUTH_PIN_TTL,
    captcha:
      c.AUTH_CAPTCHA === 'none'
        ? 'none'
        : { kind: 'recaptcha', secret: c.AUTH_RECAPTCHA_SECRET ?? '', siteverifyUrl: c.AUTH_RECAPTCHA_VERIFY_URL, minScore: c.AUTH_RECAPTCHA_MIN_SCORE, expectedAction: 'submit' },
    throttle: {
      perEmail: { limit: c.AUTH_LOGIN_FAILURES_PER_EMAIL, windowSeconds: window },
      perIp: { limit: c.AUTH_LOGIN_FAILURES_PER_IP, windowSeconds: window },
    },
    migrationsRun: c.AUTH_MIGRATIONS_RUN,
  };
}
