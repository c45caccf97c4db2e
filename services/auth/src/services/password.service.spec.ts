import { resolveAuthOptions } from '../auth.options';
import { PasswordService } from './password.service';

const key = `-----BEGIN PRIVATE KEY-----\nunused\n-----END PRIVATE KEY-----`;

describe('PasswordService', () => {
  const service = new PasswordService(resolveAuthOptions({ privateKey: key, captcha: 'none' }));
  beforeAll(() => service.onModuleInit());

  it('hashes with bcrypt at cost 10 and verifies', async () => {
    const hash = await service.hash('correct horse battery');
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(await service.verify('correct horse battery', hash)).toBe(true);
    expect(await service.verify('Correct horse battery', hash)).toBe(false);
  });

  it('never accepts a password for a missing user (the dummy hash is compared instead)', async () => {
    expect(await service.verify('', null)).toBe(false);
    expect(await service.verify('anything', null)).toBe(false);
  });

  it('refuses a cost below 10', () => {
    expect(() => resolveAuthOptions({ privateKey: key, captcha: 'none', passwordHashCost: 8 })).toThrow(/passwordHashCost/);
  });
});
