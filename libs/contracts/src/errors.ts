/**
 * Error codes of the product spec, section 8. Every error body the API returns is
 * `{ code, message, status, violations? }` with one of these codes.
 */
export const ErrorCode = {
  General: '0x0',
  RequestValidation: '0x1',
  MissingToken: '0x11',
  InvalidToken: '0x12',
  IpAclRestriction: '0x13',
  InvalidJwt: '0x14',
  InvalidIntegrationToken: '0x15',
  BannedIp: '0x16',
  InvalidArgument: '0x17',
  InvalidCredentials: '0x18',
  DuplicateMessage: '0x19',
  StreamUnavailable: '0x21',
  StreamNotReady: '0x22',
  StreamMissingForProvider: '0x23',
  LimitUndefined: '0x30',
  TpsReached: '0x31',
  MaxOtpRequests: '0x32',
  MaxOtpFailures: '0x33',
  PaymentRequired: '0x41',
  /** Login failure (wrong credentials, wrong or expired PIN). */
  LoginFailed: 1801,
  InvalidBusinessId: 'E-0158',
  InvalidProviderToken: 'E-0159',
  InvalidTelegramBotToken: 'E-0160',
  /** Not in the spec's numbered list; used with 403 when a permission is missing (spec 6: NO_PERMISSIONS). */
  NoPermissions: 'NO_PERMISSIONS',
  NotAuthenticated: 'NOT_AUTHENTICATED',
  NotFound: 'NOT_FOUND',
  Conflict: 'CONFLICT',
  TooManyRequests: 'TOO_MANY_REQUESTS',
  AccessDenied: 'ACCESS_DENIED',
  /** A generative-AI provider did not answer in time (the spec's E-CONNECTION_TIMEOUT of the webhook test). */
  ConnectionTimeout: 'E-CONNECTION_TIMEOUT',
  /** Generative AI: the account may not use it (customSettings allow_generative_ai / allow_spintax_ai off). */
  GenAiDisabled: 'E-GENAI_DISABLED',
  /** Generative AI: no provider (or no key for it) is set in the account's AI settings. */
  GenAiNotConfigured: 'E-GENAI_NOT_CONFIGURED',
  /** Generative AI: the provider is down, unreachable, or answered something that is not its format. */
  GenAiUnavailable: 'E-GENAI_UNAVAILABLE',
  /** Generative AI: the provider refused the request (an unknown model, a blocked prompt). */
  GenAiRejected: 'E-GENAI_REJECTED',
  /** Generative AI: the spintax the provider wrote does not parse (it is never returned). */
  GenAiSpintaxInvalid: 'E-GENAI_SPINTAX_INVALID',
  /** 409: the campaign's status does not allow the action (spec 4, libs/contracts/src/campaigns.ts). */
  CampaignActionNotAllowed: 'CAMPAIGN_ACTION_NOT_ALLOWED',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface Violation {
  propertyPath: string;
  message: string;
  code?: string;
}

export interface ErrorBody {
  code: ErrorCodeValue | string | number;
  message: string;
  status: number;
  violations?: Violation[];
}
