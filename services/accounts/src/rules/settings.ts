import { z } from 'zod';
import type { Violation } from '@switchboard/contracts';

/**
 * The account's customSettings and genSettings (spec section 3), with their defaults (docs/decisions/0010-accounts.md).
 * Flags are booleans; limits are integers, null meaning "no limit".
 */
export const CUSTOM_SETTINGS_DEFAULTS = Object.freeze({
  /** How far below zero the balance may go before sends are refused (currency units; 0 = prepaid). */
  balance_limit: 0,
  /** Messages the account's streams may accept per UTC day; null = no daily limit. */
  streams_max_messages_per_day: 10_000 as number | null,
  allow_inbox: true,
  allow_whatsapp: false,
  allow_telegram_bot: false,
  allow_telegram_private: false,
  enable_spam_restriction: true,
  allow_spintax_ai: false,
  allow_demo_stream: true,
  allow_transactional_campaign: false,
  allow_api_keys: true,
  streams_validate_senders: true,
  allow_campaign_whatsapp: false,
  allow_generative_ai: false,
  /**
   * The account's own opt-out and opt-in reply keywords, on top of STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, СТОП,
   * ОТПИСАТЬСЯ and START, СТАРТ (a whole reply, case and surrounding spaces ignored; docs/decisions/0021).
   */
  opt_out_keywords: [] as string[],
  opt_in_keywords: [] as string[],
});
export type CustomSettings = { -readonly [K in keyof typeof CUSTOM_SETTINGS_DEFAULTS]: (typeof CUSTOM_SETTINGS_DEFAULTS)[K] };

export const GENERATIVE_SERVICES = ['openai', 'gemini', 'ollama'] as const;

export const GEN_SETTINGS_DEFAULTS = Object.freeze({
  allow_spintax: true,
  allow_conversations: true,
  allow_automations: false,
  default_generative_service: 'openai' as (typeof GENERATIVE_SERVICES)[number],
});
export type GenSettings = { -readonly [K in keyof typeof GEN_SETTINGS_DEFAULTS]: (typeof GEN_SETTINGS_DEFAULTS)[K] };

/** Legacy clients send flags as 0/1; both are read, booleans are stored. */
const flag = z.union([z.boolean(), z.literal(0), z.literal(1)]).transform((v) => v === true || v === 1);

/** A reply keyword: one word or a short phrase, letters of any script. */
const keywords = z
  .array(z.string().trim().min(2).max(32).regex(/^[\p{L}\p{N}][\p{L}\p{N} '-]*$/u, 'a keyword is letters, digits, spaces, - and \''))
  .max(50)
  .transform((l) => [...new Set(l.map((w) => w.toUpperCase()))]);

const customPatch = z
  .object({
    balance_limit: z.number().finite().min(0).max(1_000_000_000),
    streams_max_messages_per_day: z.number().int().min(0).max(1_000_000_000).nullable(),
    allow_inbox: flag,
    allow_whatsapp: flag,
    allow_telegram_bot: flag,
    allow_telegram_private: flag,
    enable_spam_restriction: flag,
    allow_spintax_ai: flag,
    allow_demo_stream: flag,
    allow_transactional_campaign: flag,
    allow_api_keys: flag,
    streams_validate_senders: flag,
    allow_campaign_whatsapp: flag,
    allow_generative_ai: flag,
    opt_out_keywords: keywords,
    opt_in_keywords: keywords,
  })
  .partial()
  .strict();

const genPatch = z
  .object({
    allow_spintax: flag,
    allow_conversations: flag,
    allow_automations: flag,
    default_generative_service: z.enum(GENERATIVE_SERVICES),
  })
  .partial()
  .strict();

export type SettingsResult<T> = { ok: true; value: T } | { ok: false; violations: Violation[] };

function parsePatch<T>(schema: z.ZodTypeAny, field: string, patch: unknown, current: T): SettingsResult<T> {
  const r = schema.safeParse(patch);
  if (!r.success) {
    const violations: Violation[] = [];
    for (const issue of r.error.issues) {
      if (issue.code === z.ZodIssueCode.unrecognized_keys) {
        for (const key of issue.keys) violations.push({ propertyPath: `${field}.${key}`, message: 'unknown setting', code: 'unknownSetting' });
      } else {
        violations.push({ propertyPath: [field, ...issue.path].join('.'), message: issue.message, code: issue.code });
      }
    }
    return { ok: false, violations };
  }
  return { ok: true, value: { ...current, ...(r.data as Partial<T>) } };
}

/** Merges a partial customSettings over the current ones; unknown keys and wrong types are violations. */
export const mergeCustomSettings = (current: CustomSettings, patch: unknown) => parsePatch<CustomSettings>(customPatch, 'customSettings', patch, current);
export const mergeGenSettings = (current: GenSettings, patch: unknown) => parsePatch<GenSettings>(genPatch, 'genSettings', patch, current);

/** Stored settings over the defaults: a key added in a later release reads as its default until set. */
export function readCustomSettings(stored: unknown): CustomSettings {
  return { ...CUSTOM_SETTINGS_DEFAULTS, ...(isObject(stored) ? pick(stored, CUSTOM_SETTINGS_DEFAULTS) : {}) } as CustomSettings;
}
export function readGenSettings(stored: unknown): GenSettings {
  return { ...GEN_SETTINGS_DEFAULTS, ...(isObject(stored) ? pick(stored, GEN_SETTINGS_DEFAULTS) : {}) } as GenSettings;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const pick = (o: Record<string, unknown>, keys: object) => Object.fromEntries(Object.keys(keys).filter((k) => k in o).map((k) => [k, o[k]]));

/** Features a member may ask access to (spec: feature access request): the account's switches. */
export const FEATURES = Object.freeze([
  ...Object.keys(CUSTOM_SETTINGS_DEFAULTS).filter((k) => typeof (CUSTOM_SETTINGS_DEFAULTS as Record<string, unknown>)[k] === 'boolean'),
  ...Object.keys(GEN_SETTINGS_DEFAULTS).filter((k) => typeof (GEN_SETTINGS_DEFAULTS as Record<string, unknown>)[k] === 'boolean'),
]);
