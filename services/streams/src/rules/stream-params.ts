import { Channel, StreamStatus, StreamType, type Violation } from '@switchboard/contracts';
import { OTP_COOL_DOWNS, OTP_DEFAULT_MESSAGE, OTP_DEFAULTS, OTP_GENERATORS, OTP_LENGTHS, OTP_PLACEHOLDER } from './otp';
import type { PublicParams } from '@switchboard/contracts';

export type { PublicParams };

export const STREAM_TYPES = Object.values(StreamType) as number[];
export const SMS_TYPES: readonly number[] = [StreamType.Marketing, StreamType.Transactional, StreamType.Otp, StreamType.TwoWay];

export function channelOf(streamType: number): (typeof Channel)[keyof typeof Channel] {
  if (streamType === StreamType.WhatsApp) return Channel.WhatsApp;
  if (streamType === StreamType.TelegramBot) return Channel.Telegram;
  if (streamType === StreamType.TelegramPrivate) return Channel.TelegramPrivate;
  return Channel.Sms;
}

/** Which account setting (spec 3 customSettings) a stream type needs. */
export function requiredSetting(streamType: number): string | null {
  if (streamType === StreamType.WhatsApp) return 'allow_whatsapp';
  if (streamType === StreamType.TelegramBot) return 'allow_telegram_bot';
  if (streamType === StreamType.TelegramPrivate) return 'allow_telegram_private';
  return null;
}


/** Params only the server writes: accepted back from the console (it echoes what it read) and ignored. */
export const READ_ONLY_PARAMS: ReadonlySet<string> = new Set(['auth_status', 'auth_error']);

/** Stream params that are secret: stored sealed, shown masked. */
export interface SecretParams {
  auth_token?: string;
  otp_code?: string;
  /** Telegram private: the two-step verification password, when the account has one. */
  password?: string;
}

export interface OtpRules {
  generator: number;
  length: number;
  ttl: number;
  maxAttempts: number;
  maxAttemptsIp: number;
  maxFailures: number;
  coolDown: number;
  message: string;
}

/** The highest stream TPS: the accounts service's highest account TPS (a stream never sends faster than its account). */
export const STREAM_TPS_MAX = 100_000;

/** `flag`: a 0/1 switch that also takes true/false; `clearable`: null or '' removes the param. */
const INT_RULES: Record<string, { min: number; max: number; otpOnly: boolean; allowed?: readonly number[]; flag?: boolean; clearable?: boolean }> = {
  code_generator: { min: 1, max: 3, otpOnly: true, allowed: OTP_GENERATORS },
  code_length: { min: 4, max: 8, otpOnly: true, allowed: OTP_LENGTHS },
  ttl: { min: 30, max: 86_400, otpOnly: true },
  max_attempts: { min: 1, max: 1000, otpOnly: true },
  max_attempts_ip: { min: 1, max: 10_000, otpOnly: true },
  max_failures: { min: 1, max: 1000, otpOnly: true },
  cool_down_time: { min: 60, max: 1800, otpOnly: true, allowed: OTP_COOL_DOWNS },
  check_ip_acl: { min: 0, max: 1, otpOnly: false, flag: true },
  tps: { min: 1, max: STREAM_TPS_MAX, otpOnly: false, clearable: true },
};
const TEXT_RULES: Record<string, { types: readonly number[]; max: number }> = {
  otp_message: { types: [StreamType.Otp], max: 640 },
  business_id: { types: [StreamType.WhatsApp], max: 64 },
  phone_number: { types: [StreamType.WhatsApp, StreamType.TelegramPrivate], max: 32 },
};
const SECRET_RULES: Record<string, { types: readonly number[]; max: number }> = {
  auth_token: { types: [StreamType.WhatsApp, StreamType.TelegramBot], max: 1024 },
  otp_code: { types: [StreamType.TelegramPrivate], max: 16 },
  password: { types: [StreamType.TelegramPrivate], max: 256 },
};

const toInt = (v: unknown): number | null => {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,9}$/.test(v.trim())) return Number(v.trim());
  if (typeof v === 'boolean') return v ? 1 : 0;
  return null;
};

/**
 * Reads `params` of a create or update for a stream type: unknown keys, a param of another type and values out of
 * range are violations. Returns the public and secret parts separately; absent keys stay absent (an update keeps them).
 */
export function parseStreamParams(streamType: number, raw: unknown): { pub: PublicParams; secret: SecretParams; violations: Violation[] } {
  const violations: Violation[] = [];
  const pub: Record<string, unknown> = {};
  const secret: Record<string, unknown> = {};
  if (raw === undefined || raw === null) return { pub, secret, violations };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { pub, secret, violations: [{ propertyPath: 'params', message: 'params must be an object' }] };
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const path = `params.${key}`;
    if (READ_ONLY_PARAMS.has(key)) continue;
    const int = INT_RULES[key];
    if (int) {
      if (int.otpOnly && streamType !== StreamType.Otp) {
        violations.push({ propertyPath: path, message: `${key} applies to OTP streams only` });
        continue;
      }
      if (value === null || (int.clearable && value === '')) {
        if (int.clearable) pub[key] = null;
        continue;
      }
      const n = typeof value === 'boolean' && !int.flag ? null : toInt(value);
      if (n === null || n < int.min || n > int.max || (int.allowed && !int.allowed.includes(n))) {
        violations.push({ propertyPath: path, message: int.allowed ? `${key} must be one of ${int.allowed.join(', ')}` : `${key} must be an integer from ${int.min} to ${int.max}` });
        continue;
      }
      pub[key] = n;
      continue;
    }
    const text = TEXT_RULES[key] ?? SECRET_RULES[key];
    if (text) {
      if (!text.types.includes(streamType)) {
        violations.push({ propertyPath: path, message: `${key} does not apply to this stream type` });
        continue;
      }
      if (value === null || value === '') {
        (SECRET_RULES[key] ? secret : pub)[key] = null;
        continue;
      }
      if (typeof value !== 'string' && typeof value !== 'number') {
        violations.push({ propertyPath: path, message: `${key} must be a string` });
        continue;
      }
      const s = String(value).trim();
      if (s.length > text.max) {
        violations.push({ propertyPath: path, message: `${key} has at most ${text.max} characters` });
        continue;
      }
      if (key === 'otp_message' && !s.includes(OTP_PLACEHOLDER)) {
        violations.push({ propertyPath: path, message: `the OTP message must contain ${OTP_PLACEHOLDER}` });
        continue;
      }
      if ((key === 'business_id' || (key === 'phone_number' && streamType === StreamType.WhatsApp)) && !/^\d{5,32}$/.test(s)) {
        violations.push({ propertyPath: path, message: `${key} is a numeric id` });
        continue;
      }
      (SECRET_RULES[key] ? secret : pub)[key] = s;
      continue;
    }
    violations.push({ propertyPath: path, message: `unknown param ${key}` });
  }
  return { pub: pub as PublicParams, secret: secret as SecretParams, violations };
}

/** The params a new stream of a type starts with (spec 9: OTP defaults). */
export function defaultParams(streamType: number): PublicParams {
  const base: PublicParams = { check_ip_acl: 1 };
  if (streamType === StreamType.Otp) return { ...base, ...OTP_DEFAULTS, otp_message: OTP_DEFAULT_MESSAGE };
  return base;
}

export function otpRules(p: PublicParams): OtpRules {
  return {
    generator: p.code_generator ?? OTP_DEFAULTS.code_generator,
    length: p.code_length ?? OTP_DEFAULTS.code_length,
    ttl: p.ttl ?? OTP_DEFAULTS.ttl,
    maxAttempts: p.max_attempts ?? OTP_DEFAULTS.max_attempts,
    maxAttemptsIp: p.max_attempts_ip ?? OTP_DEFAULTS.max_attempts_ip,
    maxFailures: p.max_failures ?? OTP_DEFAULTS.max_failures,
    coolDown: p.cool_down_time ?? OTP_DEFAULTS.cool_down_time,
    message: p.otp_message ?? OTP_DEFAULT_MESSAGE,
  };
}

export const TELEGRAM_AUTHORISED = 'authorised';

/** Whether the provider settings a type needs are all there (else the stream stays a draft and cannot send: 0x23). */
export function providerConfigured(streamType: number, pub: PublicParams, secret: SecretParams): boolean {
  if (streamType === StreamType.WhatsApp) return Boolean(secret.auth_token && pub.business_id && pub.phone_number);
  if (streamType === StreamType.TelegramBot) return Boolean(secret.auth_token);
  // Telegram private: the console supplies the login code, but only dispatch's completed login makes it usable.
  if (streamType === StreamType.TelegramPrivate) return Boolean(pub.phone_number && pub.auth_status === TELEGRAM_AUTHORISED);
  return true;
}

/** The status a stream gets when created, or when its provider settings change (spec 4: token updates set ready). */
export function statusAfterConfig(streamType: number, pub: PublicParams, secret: SecretParams, current: number | null): number {
  if (current === StreamStatus.Restricted) return current;
  if (!providerConfigured(streamType, pub, secret)) return StreamStatus.Draft;
  if (current === null || current === StreamStatus.Draft) return StreamStatus.Ready;
  return current;
}
