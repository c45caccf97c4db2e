import { generateSigningKeys } from '@switchboard/platform';
import { authModuleOptionsFromConfig, loadAuthConfig } from './auth.config';

describe('standalone auth configuration', () => {
  const { privateKey } = generateSigningKeys();
  const base = { DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/sb', AUTH_JWT_PRIVATE_KEY: Buffer.from(privateKey).toString('base64') };

  it('reads a base64 PEM and defaults to reCAPTCHA, 15 min access and 30 day refresh tokens', () => {
    const c = loadAuthConfig({ ...base, AUTH_RECAPTCHA_SECRET: 'shh' });
    expect(c.AUTH_JWT_PRIVATE_KEY).toBe(privateKey);
    const o = authModuleOptionsFromConfig(c);
    expect(o).toMatchObject({ accessTokenTtlSeconds: 900, refreshTokenTtlSeconds: 2592000, pinTtlSeconds: 600, migrationsRun: false });
    expect(o.captcha).toMatchObject({ kind: 'recaptcha', secret: 'shh', expectedAction: 'submit' });
  });

  it('names the missing reCAPTCHA secret without echoing secrets', () => {
    expect(() => loadAuthConfig(base)).toThrow(/AUTH_RECAPTCHA_SECRET: required when AUTH_CAPTCHA=recaptcha/);
  });

  it('turns the captcha off on request', () => {
    expect(authModuleOptionsFromConfig(loadAuthConfig({ ...base, AUTH_CAPTCHA: 'none' })).captcha).toBe('none');
  });
});
