import { apiFetch } from '../../providers/http';
import { SENDERS_PER_PAGE, STREAM_EVENTS_PER_PAGE, type TimeSlice } from './constants';
import type {
  AccountSettings,
  CodeSnippets,
  DemoAnswer,
  Diagnostics,
  ExternalSender,
  ListResult,
  MessageStatus,
  Sender,
  SenderInput,
  SenderOption,
  Statistics,
  Stream,
  StreamDropdownItem,
  StreamEvent,
  StreamInput,
  StreamToken,
  TelegramPreview,
  WhatsAppPreview,
  WhatsAppTemplate,
} from './types';

export interface ListParams {
  page: number;
  perPage: number;
  sort: { field: string; order: 'asc' | 'desc' };
  filter?: Record<string, string | number | undefined>;
}

/** `page`, `itemsPerPage`, `order[field]` and the filters, as every list of spec 7 takes them. */
export function listQuery({ page, perPage, sort, filter }: ListParams): string {
  const q = new URLSearchParams();
  q.set('page', String(page));
  q.set('itemsPerPage', String(perPage));
  q.set(`order[${sort.field}]`, sort.order);
  for (const [k, v] of Object.entries(filter ?? {})) if (v !== undefined && v !== '') q.set(k, String(v));
  return q.toString();
}

const enc = encodeURIComponent;

/** The calls of spec 7 ("Streams", "Variables, senders") the streams screens make. */
export const streamsApi = {
  streams: (p: ListParams) => apiFetch<ListResult<Stream>>(`/streams?${listQuery(p)}`),
  stream: (id: number | string) => apiFetch<Stream>(`/streams/${enc(String(id))}`),
  dropdown: () => apiFetch<ListResult<StreamDropdownItem>>('/streams/dropdown'),
  createStream: (body: StreamInput) => apiFetch<Stream>('/streams', { method: 'POST', body }),
  updateStream: (id: number, body: StreamInput) => apiFetch<Stream>(`/streams/${id}`, { method: 'PUT', body }),
  deleteStream: (id: number) => apiFetch<void>(`/streams/${id}`, { method: 'DELETE' }),
  token: (id: number) => apiFetch<StreamToken>(`/streams/token/${id}`),
  resetToken: (id: number) => apiFetch<StreamToken>('/streams/reset_token', { method: 'POST', body: { id } }),
  snippets: (id: number) => apiFetch<CodeSnippets>(`/stream/code_snippet?streamId=${id}`),
  diagnostics: (id: number) => apiFetch<Diagnostics>(`/stream/diagnostics?streamId=${id}`),
  statistics: (slice: TimeSlice, streamId?: number) =>
    apiFetch<Statistics>('/streams/subscribe', { method: 'POST', body: { type: slice, ...(streamId ? { streamId } : {}) } }),
  messageStatus: (uuid: string) => apiFetch<MessageStatus>(`/streams/message_status?message_uuid=${enc(uuid)}`),
  messages: (p: ListParams) => apiFetch<ListResult<MessageStatus>>(`/streams/message_status?${listQuery(p)}`),
  demo: (body: { streamId: number; phone: string; message?: string; sender?: string; payload?: Record<string, unknown> }) =>
    apiFetch<DemoAnswer>('/streams/demo', { method: 'POST', body }),
  previewWhatsApp: (body: { auth_token: string; business_id: string }) =>
    apiFetch<WhatsAppPreview>('/streams/preview-whatsapp-token', { method: 'POST', body }),
  previewTelegram: (auth_token: string) => apiFetch<TelegramPreview>('/streams/preview-telegram-token', { method: 'POST', body: { auth_token } }),
  externalSenders: (id: number) => apiFetch<ExternalSender[]>(`/streams/external-senders/${id}`),
  externalTemplates: (id: number) => apiFetch<ListResult<WhatsAppTemplate>>(`/streams/external-templates/${id}?status=APPROVED`),

  senders: (p: ListParams) => apiFetch<ListResult<Sender>>(`/senders?${listQuery(p)}`),
  allSenders: () => apiFetch<ListResult<Sender>>(`/senders?page=1&itemsPerPage=${SENDERS_PER_PAGE}&order[id]=desc`),
  senderDropdown: () => apiFetch<ListResult<SenderOption>>('/senders/dropdown'),
  createSender: (body: SenderInput) => apiFetch<Sender>('/senders', { method: 'POST', body }),
  updateSender: (id: number, body: Partial<SenderInput>) => apiFetch<Sender>(`/senders/${id}`, { method: 'PUT', body }),
  deleteSender: (id: number) => apiFetch<void>(`/senders/${id}`, { method: 'DELETE' }),

  events: (streamId: number) => apiFetch<ListResult<StreamEvent>>(`/stream_events?streamId=${streamId}&page=1&itemsPerPage=${STREAM_EVENTS_PER_PAGE}&order[id]=asc`),
  createEvent: (body: { name: string; text: string; eventKey: string; active: boolean; stream: number }) =>
    apiFetch<StreamEvent>('/stream_events', { method: 'POST', body }),
  updateEvent: (id: number, body: Partial<{ name: string; text: string; eventKey: string; active: boolean }>) =>
    apiFetch<StreamEvent>(`/stream_events/${id}`, { method: 'PUT', body }),
  deleteEvent: (id: number) => apiFetch<void>(`/stream_events/${id}`, { method: 'DELETE' }),

  account: (id: number) => apiFetch<AccountSettings>(`/customers/${id}`),
  countries: () => apiFetch<ListResult<{ id: number; name: string; iso2: string }>>(`/countries?page=1&itemsPerPage=1000&order[name]=asc`),
};

