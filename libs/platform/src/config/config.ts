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

/**
 * Validates a service's environment against its schema at boot. The message names every bad variable,
 * what was expected and what was given (secrets are not echoed).
 */
export function loadConfig<S extends z.ZodTypeAny>(service: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.');
    const raw = env[name];
    const secret = /SECRET|PASSWORD|KEY|TOKEN/i.test(name);
    const shown = raw === undefined ? 'unset' : secret ? 'a hidden value' : JSON.stringify(raw);
    return `${name}: ${issue.message} (got ${shown})`;
  });
  throw new ConfigError(service, problems);
}

/** Helpers for env schemas: env values are strings. */
export const env = {
  port: (def: number) => z.coerce.number().int().min(0).max(65535).default(def),
  int: (def: number, min = 0) => z.coerce.number().int().min(min).default(def),
  bool: (def: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(def ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  url: () => z.string().url(),
  list: (def: string[] = []) =>
    z
      .string()
      .default(def.join(','))
      .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
};
