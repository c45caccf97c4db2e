import { z } from 'zod';
import { ConfigError, env, loadConfig } from './config';

const schema = z.object({
  PORT: env.port(3000),
  WORKERS: env.int(4, 1),
  LOG_SQL: env.bool(false),
  FEATURES: env.list(['a', 'b']),
  DATABASE_URL: env.url(),
  MODE: z.enum(['embedded', 'distributed']).default('embedded'),
  JWT_PRIVATE_KEY: z.string().min(32).optional(),
  API_TOKEN: z.enum(['x', 'y']).optional(),
});

const valid = { DATABASE_URL: 'postgres://app:pw@db:5432/switchboard' };

function problemsOf(e: NodeJS.ProcessEnv): string {
  try {
    loadConfig('auth', schema, e);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies defaults when variables are unset', () => {
    expect(loadConfig('auth', schema, valid)).toEqual({
      PORT: 3000,
      WORKERS: 4,
      LOG_SQL: false,
      FEATURES: ['a', 'b'],
      DATABASE_URL: valid.DATABASE_URL,
      MODE: 'embedded',
    });
  });

  it('coerces env strings to numbers, booleans and lists', () => {
    const c = loadConfig('auth', schema, { ...valid, PORT: '8080', WORKERS: ' 12 ', LOG_SQL: 'YES', FEATURES: ' x, y ,,z ', MODE: 'distributed' });
    expect(c).toMatchObject({ PORT: 8080, WORKERS: 12, LOG_SQL: true, FEATURES: ['x', 'y', 'z'], MODE: 'distributed' });
    expect(loadConfig('auth', schema, { ...valid, LOG_SQL: '0' }).LOG_SQL).toBe(false);
  });

  it('treats an empty variable as unset (the default), never as 0 or an empty list', () => {
    const c = loadConfig('auth', schema, { ...valid, PORT: '', WORKERS: '  ', LOG_SQL: '', FEATURES: '' });
    expect(c).toMatchObject({ PORT: 3000, WORKERS: 4, LOG_SQL: false, FEATURES: ['a', 'b'] });
  });

  it('names the variable, the problem and the value given', () => {
    const msg = problemsOf({ ...valid, PORT: 'eighty' });
    expect(msg).toMatch(/^auth: invalid configuration/);
    expect(msg).toContain('PORT: must be an integer (got "eighty")');
  });

  it('refuses numbers that only Number() would accept', () => {
    for (const bad of ['0x50', '1e3', '80.5', '-1', '70000']) {
      expect(problemsOf({ ...valid, PORT: bad })).toContain(`PORT:`);
    }
    expect(problemsOf({ ...valid, WORKERS: '0' })).toContain('WORKERS: Number must be greater than or equal to 1 (got "0")');
  });

  it('lists every bad variable at once and says which are unset', () => {
    const msg = problemsOf({ LOG_SQL: 'maybe', MODE: 'cluster' });
    expect(msg).toContain('LOG_SQL: must be one of true, false, 1, 0, yes, no (got "maybe")');
    expect(msg).toContain('MODE: Invalid enum value');
    expect(msg).toContain('(got "cluster")');
    expect(msg).toContain('DATABASE_URL: Required (got unset)');
  });

  it('never echoes a secret, even where zod quotes the received value', () => {
    const msg = problemsOf({ ...valid, JWT_PRIVATE_KEY: 'short-secret-value', API_TOKEN: 'tok-123456' });
    expect(msg).toContain('JWT_PRIVATE_KEY: String must contain at least 32 character(s) (got a hidden value)');
    expect(msg).toContain('API_TOKEN:');
    expect(msg).not.toContain('short-secret-value');
    expect(msg).not.toContain('tok-123456');
  });

  it('hides the password of a URL value', () => {
    const msg = problemsOf({ DATABASE_URL: 'postgres://app:s3cr3t@db:5432/x y z', PORT: 'no' });
    expect(msg).not.toContain('s3cr3t');
    const urlOnly = problemsOf({ DATABASE_URL: 'not a url', PORT: 'postgres://u:hunter2@h' });
    expect(urlOnly).toContain('DATABASE_URL: Invalid url (got "not a url")');
    expect(urlOnly).toContain('(got "postgres://u:***@h")');
    expect(urlOnly).not.toContain('hunter2');
  });
});
