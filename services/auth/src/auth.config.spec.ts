import { generateSigningKeys } from '@switchboard/platform';
import { authModuleOptionsFromConfig, loadAuthConfig } from './auth.config';

describe('standalone auth configuration', () => {
  const { privateKey } = generateSigningKeys();
  const base = {
    DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/sb',
    JWT_PRIVATE_KEY: Buffer.from(privateKey).toString('base64'),
    KAFKA_BROKERS: 'kafka:9092',
    SMTP_URL: 'smtp://127.0.0.1:2525',
  };

  it('reads a base64 PEM and defaults to reCAPTCHA, 15 min access and 30 day refresh tokens, no migration at start', () => {
    const c = loadAuthConfig({ ...base, RECAPTCHA_SECRET: 'shh' });
    expect(c.JWT_PRIVATE_KEY).toBe(privateKey);
    const o = authModuleOptionsFromConfig(c);
    expect(o).toMatchObject({ accessTokenTtlSeconds: 900, refreshTokenTtlSeconds: 2592000, pinTtlSeconds: 600, migrationsRun: false });
    expect(o.captcha).toMatchObject({ kind: 'recaptcha', secret: 'shh', expectedAction: 'submit' });
  });

  it('names the missing reCAPTCHA secret', () => {
    expect(() => loadAuthConfig(base)).toThrow(/RECAPTCHA_SECRET: required when CAPTCHA=recaptcha/);
  });

  it('names a missing private key and SMTP URL without echoing secrets', () => {
    const { JWT_PRIVATE_KEY: _k, SMTP_URL: _s, ...rest } = base;
    expect(() => loadAuthConfig({ ...rest, CAPTCHA: 'none' })).toThrow(/JWT_PRIVATE_KEY[\s\S]*SMTP_URL/);
  });

  it('turns the captcha off on request', () => {
    expect(authModuleOptionsFromConfig(loadAuthConfig({ ...base, CAPTCHA: 'none' })).captcha).toBe('none');
  });
});
