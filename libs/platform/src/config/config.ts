import { z } from 'zod';

export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Variables whose value is never echoed in an error message. */
const SECRET_NAME = /SECRET|PASSW|PASSPHRASE|PWD|KEY|TOKEN|CREDENTIAL|PRIVATE|AUTH|SALT|COOKIE|SESSION|DSN/i;

/** `postgres://user:pass@host/db` -> `postgres://user:***@host/db`: a URL's credentials are secret wherever they appear. */
function redactUrlCredentials(value: string): string {
  return value.replace(/([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*):[^@\s/]*@/gi, '$1:***@');
}

function describeValue(name: string, raw: string | undefined): string {
  if (raw === undefined) return 'unset';
  if (SECRET_NAME.test(name)) return 'a hidden value';
  return JSON.stringify(redactUrlCredentials(raw));
}

/** Some zod messages quote the received value (enums, literals): never let them quote a secret. */
function describeProblem(name: string, message: string, raw: string | undefined): string {
  if (raw === undefined || raw === '') return message;
  if (SECRET_NAME.test(name)) return message.split(raw).join('***');
  return redactUrlCredentials(message);
}

/**
 * Validates a service's environment against its schema at boot. The message names every bad variable,
 * what was expected and what was given (secrets are not echoed).
 */
export function loadConfig<S extends z.ZodTypeAny>(service: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.length ? issue.path.join('.') : '(configuration)';
    const raw = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
    return `${name}: ${describeProblem(name, issue.message, raw)} (got ${describeValue(name, raw)})`;
  });
  throw new ConfigError(service, problems);
}

/** An empty variable (`PORT=` in a compose file) means "use the default", never 0 or "". */
const blankAsUnset = (v: unknown): unknown => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** Digits only: `Number()` would also accept "", "0x10", "1e3" and " 12 ". */
const integerString = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  return /^[+-]?\d+$/.test(t) ? Number(t) : v;
};

/** Helpers for env schemas: env values are strings. */
export const env = {
  port: (def: number) =>
    z.preprocess((v) => integerString(blankAsUnset(v)), z.number({ invalid_type_error: 'must be an integer' }).int().min(0).max(65535).default(def)),
  int: (def: number, min = 0) =>
    z.preprocess((v) => integerString(blankAsUnset(v)), z.number({ invalid_type_error: 'must be an integer' }).int().min(min).default(def)),
  bool: (def: boolean) =>
    z.preprocess(
      (v) => {
        const b = blankAsUnset(v);
        return typeof b === 'string' ? b.trim().toLowerCase() : b;
      },
      z
        .enum(['true', 'false', '1', '0', 'yes', 'no'], { errorMap: () => ({ message: 'must be one of true, false, 1, 0, yes, no' }) })
        .default(def ? 'true' : 'false')
        .transform((v) => v === 'true' || v === '1' || v === 'yes'),
    ),
  url: () => z.preprocess(blankAsUnset, z.string().url()),
  list: (def: string[] = []) =>
    z.preprocess(
      blankAsUnset,
      z
        .string()
        .default(def.join(','))
        .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
    ),
};
