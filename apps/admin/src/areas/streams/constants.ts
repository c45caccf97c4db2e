/**
 * Permission strings of spec 6 that the streams and senders screens check. They mirror
 * `libs/contracts/src/permissions.ts`; the console's tsconfig does not reach that index (it pulls in server code), so
 * the few strings needed here are repeated.
 */
export const P = {
  StreamView: 'STREAM_VIEW',
  StreamAddEdit: 'STREAM_ADD_EDIT',
  StreamRemove: 'STREAM_REMOVE',
  StreamToken: 'STREAM_TOKEN',
  StreamTester: 'STREAM_TESTER',
  StreamResetToken: 'STREAM_RESET_TOKEN',
  SenderView: 'SENDER_VIEW',
  SenderAddEdit: 'SENDER_ADD_EDIT',
  SenderRemove: 'SENDER_REMOVE',
} as const;

/** Spec 4: stream types. */
export const StreamType = { Marketing: 1, Transactional: 2, Otp: 3, TwoWay: 4, WhatsApp: 5, TelegramBot: 7, TelegramPrivate: 8 } as const;
export type StreamTypeValue = (typeof StreamType)[keyof typeof StreamType];
export const STREAM_TYPES: StreamTypeValue[] = [1, 2, 3, 4, 5, 7, 8];
export const SMS_TYPES: readonly number[] = [StreamType.Marketing, StreamType.Transactional, StreamType.Otp, StreamType.TwoWay];
export const isSmsType = (t: number): boolean => SMS_TYPES.includes(t);

/** The i18n key fragment of each stream type. */
export const TYPE_KEY: Record<number, string> = {
  1: 'marketing',
  2: 'transactional',
  3: 'otp',
  4: 'twoWay',
  5: 'whatsapp',
  7: 'telegramBot',
  8: 'telegramPrivate',
};

/** Which account setting (spec 3 customSettings) a stream type needs; the others are always allowed. */
export const TYPE_SETTING: Record<number, string> = {
  5: 'allow_whatsapp',
  7: 'allow_telegram_bot',
  8: 'allow_telegram_private',
};

/** Spec 4: stream status. "Sending" is a ready stream that sent within the last minutes. */
export const StreamStatus = { Restricted: -10, Disabled: -1, Ready: 0, Sending: 1, Draft: 2 } as const;
export const STATUS_KEY: Record<number, string> = { [-10]: 'restricted', [-1]: 'disabled', 0: 'ready', 1: 'sending', 2: 'draft' };
/** Statuses a customer may set; restricted is a super administrator's. */
export const USER_STATUSES = [0, -1, 2] as const;

/** Spec 9: OTP defaults and options. */
export const OTP_DEFAULTS = {
  code_generator: 2,
  code_length: 5,
  ttl: 300,
  max_attempts: 10,
  max_attempts_ip: 10,
  max_failures: 10,
  cool_down_time: 1800,
} as const;
/** Generators as the server numbers them: 1 letters and digits, 2 digits, 3 letters. */
export const OTP_GENERATORS = [2, 1, 3] as const;
export const OTP_GENERATOR_KEY: Record<number, string> = { 1: 'alphanumeric', 2: 'numeric', 3: 'alphabetic' };
export const OTP_LENGTHS = [4, 5, 6, 7, 8] as const;
export const OTP_COOL_DOWNS = [60, 180, 300, 600, 1200, 1800] as const;
export const OTP_TTL_MIN = 30;
export const OTP_TTL_MAX = 86_400;
/** Limits the server applies to the attempt counters. */
export const OTP_LIMITS = { max_attempts: 1000, max_attempts_ip: 10_000, max_failures: 1000 } as const;
export const OTP_PLACEHOLDER = '{{code}}';
export const OTP_DEFAULT_MESSAGE = `Your verification code is ${OTP_PLACEHOLDER}`;
export const OTP_MESSAGE_MAX = 640;
/** A stream's own sending rate (`params.tps`), messages per second; the server's range (the highest account TPS). */
export const STREAM_TPS_MIN = 1;
export const STREAM_TPS_MAX = 100_000;

/** Spec 5: sender IDs. */
export const SENDER_ID_MIN = 3;
export const SENDER_ALPHA_MAX = 11;
export const SENDER_NUMERIC_MAX = 15;
export const SENDER_TYPES = ['outbound-only', 'inbound-outbound', 'inbound-only'] as const;
/** Spec 4: sender approval. */
export const SenderApproval = { Pending: 0, Approved: 1, Declined: 2 } as const;
export const APPROVAL_KEY: Record<number, string> = { 0: 'pending', 1: 'approved', 2: 'declined' };

/** Spec 4: message statuses, and the final ones (a status poll stops there). */
export const MESSAGE_STATUSES = ['accepted', 'sent', 'delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected'] as const;
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['delivered', 'sent_failed', 'undelivered', 'no_routes', 'rejected']);

/** Spec 9: time slices of the statistics (the preview ids are day 1, week 2, month 3, year 4). */
export const TIME_SLICES = ['day', 'week', 'month', 'year', 'all'] as const;
export type TimeSlice = (typeof TIME_SLICES)[number];

/** Spec 9: items per page of senders and stream events (500) and of dropdowns (2000). */
export const SENDERS_PER_PAGE = 500;
export const STREAM_EVENTS_PER_PAGE = 500;
export const DROPDOWN_PER_PAGE = 2000;
/** Spec 9: status poll 5 s. */
export const STATUS_POLL_MS = 5000;
/** The result screen polls faster at first, so a delivery a second or two later shows without a long wait. */
export const FIRST_POLL_MS = 1500;
/** Spec 5: the xss rule's forbidden characters. */
export const FORBIDDEN_CHARACTERS = /[`~#$%^&*|=?;:<>{}[\]\\]/;
export const NAME_LIMIT = 255;
export const DESCRIPTION_LIMIT = 2000;

/** Info boxes point to documentation on the streams API and SMS route types (spec 2). */
export const DOCS_STREAMS_API = '/api/docs#/stream%20API';
export const DOCS_ROUTE_TYPES = '/api/docs#/streams';
