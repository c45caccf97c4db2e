import { OTP_DEFAULT_MESSAGE, OTP_DEFAULTS, OTP_LIMITS, OTP_MESSAGE_MAX, OTP_TTL_MAX, OTP_TTL_MIN, STREAM_TPS_MAX, STREAM_TPS_MIN, StreamStatus, StreamType, DESCRIPTION_LIMIT, NAME_LIMIT, isSmsType } from '../constants';
import { charLimit, check, intRange, isIpEntry, noXss, otpMessage, required, senderId } from '../rules';
import type { Stream, StreamInput } from '../types';

/** The stream modal's form state: strings for what the user types, numbers for what they pick. */
export interface StreamFormValues {
  streamType: number;
  name: string;
  description: string;
  sender: string;
  ipAcl: string[];
  checkIpAcl: boolean;
  tps: string;
  enableSending: boolean;
  isDefault: boolean;
  status: number;
  code_generator: number;
  code_length: number;
  ttl: string;
  max_attempts: string;
  max_attempts_ip: string;
  max_failures: string;
  cool_down_time: number;
  otp_message: string;
  business_id: string;
  phone_number: string;
  /** A new provider token; empty keeps the saved one when editing. */
  auth_token: string;
}

export type StreamField = keyof StreamFormValues;

export function initialValues(streamType: number, stream?: Stream | null): StreamFormValues {
  const p = stream?.params ?? {};
  const num = (v: unknown, d: number) => (typeof v === 'number' ? v : d);
  return {
    streamType: stream?.streamType ?? streamType,
    name: stream?.name ?? '',
    description: stream?.description ?? '',
    sender: stream?.sender ?? '',
    ipAcl: stream?.ipAcl ?? [],
    checkIpAcl: p.check_ip_acl !== 0,
    tps: typeof p.tps === 'number' ? String(p.tps) : '',
    enableSending: stream?.enableSending ?? true,
    isDefault: stream?.isDefault ?? false,
    status: stream ? (stream.status === StreamStatus.Sending ? StreamStatus.Ready : stream.status) : StreamStatus.Ready,
    code_generator: num(p.code_generator, OTP_DEFAULTS.code_generator),
    code_length: num(p.code_length, OTP_DEFAULTS.code_length),
    ttl: String(num(p.ttl, OTP_DEFAULTS.ttl)),
    max_attempts: String(num(p.max_attempts, OTP_DEFAULTS.max_attempts)),
    max_attempts_ip: String(num(p.max_attempts_ip, OTP_DEFAULTS.max_attempts_ip)),
    max_failures: String(num(p.max_failures, OTP_DEFAULTS.max_failures)),
    cool_down_time: num(p.cool_down_time, OTP_DEFAULTS.cool_down_time),
    otp_message: typeof p.otp_message === 'string' ? p.otp_message : OTP_DEFAULT_MESSAGE,
    business_id: typeof p.business_id === 'string' ? p.business_id : '',
    phone_number: typeof p.phone_number === 'string' ? p.phone_number : '',
    auth_token: '',
  };
}

const digits = (v: string) => (/^\d{5,32}$/.test(v.trim()) ? undefined : 'errors.client.digits');

/** Client-side rules per field (spec 5); `editing` relaxes the token, which stays saved when left empty. */
export function validateStream(v: StreamFormValues, editing: boolean): Partial<Record<StreamField, string>> {
  const out: Partial<Record<StreamField, string>> = {};
  const set = (f: StreamField, e: string | undefined) => {
    if (e) out[f] = e;
  };
  set('name', check(v.name, required, charLimit(NAME_LIMIT), noXss));
  set('description', check(v.description, charLimit(DESCRIPTION_LIMIT)));
  if (isSmsType(v.streamType) && v.sender.trim()) set('sender', senderId(v.sender));
  if (v.ipAcl.some((e) => !isIpEntry(e))) out.ipAcl = 'errors.client.ips';
  if (v.tps.trim()) set('tps', intRange(STREAM_TPS_MIN, STREAM_TPS_MAX)(v.tps));
  if (v.streamType === StreamType.Otp) {
    set('ttl', intRange(OTP_TTL_MIN, OTP_TTL_MAX)(v.ttl));
    set('max_attempts', intRange(1, OTP_LIMITS.max_attempts)(v.max_attempts));
    set('max_attempts_ip', intRange(1, OTP_LIMITS.max_attempts_ip)(v.max_attempts_ip));
    set('max_failures', intRange(1, OTP_LIMITS.max_failures)(v.max_failures));
    set('otp_message', check(v.otp_message, required, charLimit(OTP_MESSAGE_MAX + 1), otpMessage));
  }
  if (v.streamType === StreamType.WhatsApp) {
    set('business_id', check(v.business_id, required, digits));
    set('phone_number', check(v.phone_number, required, digits));
    if (!editing) set('auth_token', check(v.auth_token, required));
  }
  if (v.streamType === StreamType.TelegramBot && !editing) set('auth_token', check(v.auth_token, required));
  if (v.streamType === StreamType.TelegramPrivate) {
    set('phone_number', check(v.phone_number, required, (p) => (/^\+?\d{8,15}$/.test(p.replace(/[\s().-]/g, '')) ? undefined : 'errors.client.impossiblePhoneNumber')));
  }
  return out;
}

/** What a create (no `stream`) or an update sends; secrets go only when typed. */
export function toInput(v: StreamFormValues, stream?: Stream | null): StreamInput {
  const params: Record<string, string | number | null> = { check_ip_acl: v.checkIpAcl ? 1 : 0 };
  if (v.tps.trim()) params.tps = Number(v.tps);
  // emptied: the saved rate is removed (an absent key would keep it)
  else if (typeof stream?.params.tps === 'number') params.tps = null;
  if (v.streamType === StreamType.Otp) {
    Object.assign(params, {
      code_generator: v.code_generator,
      code_length: v.code_length,
      ttl: Number(v.ttl),
      max_attempts: Number(v.max_attempts),
      max_attempts_ip: Number(v.max_attempts_ip),
      max_failures: Number(v.max_failures),
      cool_down_time: v.cool_down_time,
      otp_message: v.otp_message,
    });
  }
  if (v.streamType === StreamType.WhatsApp) {
    params.business_id = v.business_id.trim();
    params.phone_number = v.phone_number.trim();
  }
  if (v.streamType === StreamType.TelegramPrivate) params.phone_number = v.phone_number.replace(/[\s().-]/g, '');
  if ((v.streamType === StreamType.WhatsApp || v.streamType === StreamType.TelegramBot) && v.auth_token.trim()) params.auth_token = v.auth_token.trim();
  const body: StreamInput = {
    name: v.name.trim(),
    description: v.description,
    ipAcl: v.ipAcl,
    enableSending: v.enableSending,
    isDefault: v.isDefault,
    params,
  };
  if (isSmsType(v.streamType)) body.sender = v.sender.trim() || null;
  if (stream) body.status = v.status;
  else body.streamType = v.streamType;
  return body;
}

/** Server violations (`params.ttl`, `ipAcl`, `sender`) onto form fields. */
export function fieldOf(propertyPath: string): StreamField | '_' {
  const key = propertyPath.replace(/^params\./, '').replace(/\[\d+\]$/, '');
  const map: Record<string, StreamField> = { check_ip_acl: 'checkIpAcl', otp_code: 'auth_token' };
  if (map[key]) return map[key];
  const fields: StreamField[] = ['name', 'description', 'sender', 'ipAcl', 'tps', 'status', 'code_generator', 'code_length', 'ttl', 'max_attempts', 'max_attempts_ip', 'max_failures', 'cool_down_time', 'otp_message', 'business_id', 'phone_number', 'auth_token', 'enableSending', 'isDefault'];
  return (fields as string[]).includes(key) ? (key as StreamField) : '_';
}
