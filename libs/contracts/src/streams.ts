/**
 * The streams API's answers (streams, senders, stream events, message statuses, diagnostics): one source for the
 * streams service and the console (apps/admin imports this file directly). No Nest imports.
 */

/** Stream params that are not secret, as stored (numbers as numbers). */
export interface PublicParams {
  code_generator?: number;
  code_length?: number;
  ttl?: number;
  max_attempts?: number;
  max_attempts_ip?: number;
  max_failures?: number;
  cool_down_time?: number;
  /** The OTP message; must hold {{code}}. */
  otp_message?: string;
  business_id?: string;
  phone_number?: string;
  /** 1: the stream's IP ACL applies (default); 0: it is kept but not enforced. */
  check_ip_acl?: number;
  /**
   * Sends per second of this stream, held at the stream API (0x31) and paced by dispatch inside the account's TPS;
   * unset: the account's TPS alone. Given as null (or empty) in an update, it is removed.
   */
  tps?: number;
  /**
   * Telegram private login as dispatch reported it (read only): `code_requested`, `password_needed` or `authorised`.
   * The stream turns ready only when authorised.
   */
  auth_status?: string;
  /** Telegram private: the last login error dispatch reported (read only); cleared by a new code or phone. */
  auth_error?: string;
}

/** Spec 3, Stream. Secret params are masked; the token has its own route. */
export interface StreamDto {
  id: number;
  name: string;
  description: string;
  staticServiceType: string | null;
  status: number;
  streamType: number;
  ipAcl: string[];
  lastSentTime: string | null;
  sender: string | null;
  streamTags: string[];
  enableSending: boolean;
  isDefault: boolean;
  streamUid: string;
  params: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface DropdownItem {
  id: number;
  name: string;
  streamType: number;
  status: number;
  streamUid: string;
}

/** Spec 3, Sender. */
export interface SenderDto {
  id: number;
  name: string;
  value: string;
  createdAt: string;
  type: string;
  country: string | null;
  approved: number;
  declinedReason: string | null;
  defaultMetadata: Record<string, unknown>;
}

export interface SuperAdminSenderDto extends SenderDto {
  accountId: number;
}

/** Spec 3, Stream event. `stream` is the IRI, as API Platform shows relations. */
export interface StreamEventView {
  id: number;
  name: string;
  text: string;
  eventKey: string;
  active: boolean;
  stream: string;
  streamId: number;
}

export interface DiagnosticCheck {
  key: string;
  ok: boolean;
  message: string;
}

export interface MessageStatusDto {
  message_uuid: string;
  stream_id: number;
  destination: string;
  sender: string;
  /** The message's text as sent (the account's own messages only). */
  text: string;
  country: string | null;
  status: string;
  outgoing_status: string | null;
  error: string | null;
  parts: number;
  price: number;
  refunded: number;
  currency: string;
  demo: boolean;
  created_at: string;
  sent_at: string | null;
  delivered_at: string | null;
}
