/** The webhooks API's shapes (libs/contracts/src/webhooks.ts), as the console reads them. */
export type Trigger = 'incoming_message' | 'short_url_clicks' | 'message_status_change' | 'edr_info';
export const TRIGGERS: Trigger[] = ['incoming_message', 'short_url_clicks', 'message_status_change', 'edr_info'];

export interface WebhookParams {
  send_bulk: boolean;
  include_message_text: boolean;
  include_contact_details: boolean;
  include_lead_id: boolean;
}

export interface Webhook {
  id: number;
  name: string;
  url: string;
  httpMethod: 'GET' | 'POST';
  headers: Record<string, string>;
  active: boolean;
  trigger: Trigger;
  filter: { stream_id: number[] };
  params: WebhookParams;
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
}

export interface SentRequest {
  uri: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
}

export interface ReceivedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface TestResult {
  status: 'success' | 'failed' | 'timeout';
  code: string | null;
  request: SentRequest;
  response: ReceivedResponse | null;
  durationMs: number;
}

export interface RequestLogEntry {
  id: number;
  webhook: string;
  webhookId: number;
  eventId: string | null;
  attempt: number;
  test: boolean;
  request: SentRequest;
  response: ReceivedResponse | null;
  status: 'success' | 'failed' | 'timeout';
  error: string | null;
  durationMs: number;
  sentAt: string;
}

export interface ListResult<T> {
  items: T[];
  total: number;
}
