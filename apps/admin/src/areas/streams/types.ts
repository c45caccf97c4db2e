/**
 * Wire shapes of the streams service that the console reads; lists come as `{items, total}`. The answers the service
 * declares come from their one source (libs/contracts/src/streams.ts), under the console's names.
 */
import type { DiagnosticCheck as DiagnosticCheckDto, DropdownItem, MessageStatusDto, PublicParams, SenderDto, StreamDto, StreamEventView } from '@switchboard/contracts/src/streams';

/** Stream params as the server shows them: the public ones, and the secret ones masked. */
export type StreamParams = PublicParams & {
  /** Masked (`abcd****wxyz`) when set. */
  auth_token?: string;
  /** `****` when set. */
  otp_code?: string;
  [key: string]: unknown;
};
/** Spec 3, Stream. */
export type Stream = Omit<StreamDto, 'params'> & { params: StreamParams };
export type StreamDropdownItem = DropdownItem;
/** Spec 3, Sender. */
export type Sender = SenderDto;
/** Spec 3, Stream event. */
export type StreamEvent = StreamEventView;
export type DiagnosticCheck = DiagnosticCheckDto;
export type MessageStatus = MessageStatusDto;

export interface ListResult<T> {
  items: T[];
  total: number;
}

/** What a create or update sends. */
export interface StreamInput {
  name?: string;
  description?: string;
  streamType?: number;
  status?: number;
  ipAcl?: string[];
  sender?: string | null;
  streamTags?: string[];
  enableSending?: boolean;
  isDefault?: boolean;
  params?: Record<string, string | number | null>;
}

export interface SenderOption {
  id: number;
  name: string;
  value: string;
  approved: number;
  type: string;
}

export interface SenderInput {
  name: string;
  value: string;
  type: string;
  country: string | null;
}

export interface StreamToken {
  id: number;
  streamUid: string;
  token: string;
}

export interface CodeSnippets {
  streamId: number;
  streamUid: string;
  url: string;
  token: string;
  curl: string;
  node: string;
  python: string;
  php: string;
  verifyUrl?: string;
  verifyCurl?: string;
}

export interface Diagnostics {
  streamId: number;
  ok: boolean;
  checks: DiagnosticCheck[];
}

export type StatusCounts = Record<'accepted' | 'sent' | 'delivered' | 'sent_failed' | 'undelivered' | 'no_routes' | 'rejected', number>;

export interface StreamStats extends StatusCounts {
  streamId: number;
  streamUid: string;
  name: string;
  streamType: number;
  total: number;
  parts: number;
  cost: number;
}

export interface Statistics {
  start: string | null;
  end: string | null;
  totals: StatusCounts & { total: number; parts: number; cost: number };
  streams: StreamStats[];
}

/** Spec 8, demo SMS responses. */
export type DemoResult = 'success' | 'phone_not_entered' | 'phone_invalid' | 'message_empty' | 'sender_not_exist' | 'failed' | 'campaign_not_selected' | 'campaign_not_exist';

export interface DemoAnswer {
  code: 'OK' | 'REQUEST_VALIDATION_ERROR' | 'SENT_FAILED' | string;
  result: DemoResult;
  response: {
    success: boolean;
    message_uuid?: string;
    error?: { code: string | number; message: string };
    parts?: number;
    encoding?: string | null;
    price?: number;
    currency?: string;
    destination?: string;
    sender?: string;
    country?: string | null;
  };
  violations?: { propertyPath: string; message: string; code?: string }[];
}

/** Spec 7: senders for a stream: `{id, display_phone_number, verified_name}`. */
export interface ExternalSender {
  id: string;
  display_phone_number: string;
  verified_name: string;
}

export interface WhatsAppPreview {
  business: { id: string; name: string | null };
  phone_numbers: ExternalSender[];
}

export interface TelegramPreview {
  id: number;
  username: string | null;
  first_name: string | null;
  is_bot: boolean;
}

/** A WhatsApp message template as the Cloud API lists it. */
export interface WhatsAppTemplate {
  id?: string;
  name: string;
  language: string;
  status?: string;
  category?: string;
  components?: Array<{ type: string; format?: string; text?: string; buttons?: Array<{ type: string; text?: string; url?: string; phone_number?: string; flow_id?: string | number }> }>;
}

/** The part of GET /customers/{id} the stream modal reads: which channels the account may use. */
export interface AccountSettings {
  id: number;
  customSettings?: Record<string, unknown>;
  /** The account's sending rate, messages per second (0: none set). */
  tps?: number;
}
