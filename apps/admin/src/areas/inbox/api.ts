import { apiFetch, validToken } from '../../providers/http';
import { MESSAGE_PAGE, SETTINGS_PER_PAGE } from './constants';
import { withStillLoadingRetry } from './still-loading';
import { filterQuery, isContactKey, type ListFilter } from './model';
import type { DialerContactDto, IntegrationContactDto, IntegrationNoteDto, IntegrationNoteRequest } from '@switchboard/contracts/src/integrations';
import type { ContactGetBody, ContactWriteBody, ConversationMetadata, InboxMediaInfo, SimpleSendMessage, TemplateSendBody } from '@switchboard/contracts/src/inbox';
import type { ConversationDto, ConversationPage, ConversationStatus, InboxContact, SendResult, SimpleSearchResult, Space, SpaceSwitch, TimelineEventDto, TimelinePage } from './types';

export interface ListResult<T> {
  items: T[];
  total: number;
}

const enc = encodeURIComponent;
const qs = (o: Record<string, string | number | undefined | null>) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`)
    .join('&');

export { StillLoadingError } from './still-loading';

/**
 * A timeline page; while the server answers "still_loading" the call is retried up to 5 times at 3 s intervals
 * (spec 4), then StillLoadingError. `onRetry` tells the screen which attempt it is on.
 */
export function loadTimelinePage(uuid: string, page: number, opts: { signal?: AbortSignal; onRetry?: (attempt: number) => void; retryMs?: number } = {}): Promise<TimelinePage> {
  return withStillLoadingRetry(() => apiFetch<TimelinePage>(`/inbox/conversation/${enc(uuid)}?${qs({ page, page_size: MESSAGE_PAGE })}`, { signal: opts.signal }), opts);
}

const crud = <T>(path: string) => ({
  list: (query: Record<string, string | number | undefined> = {}) => apiFetch<ListResult<T>>(`${path}?${qs({ page: 1, itemsPerPage: SETTINGS_PER_PAGE, 'order[id]': 'desc', ...query })}`),
  create: (body: Record<string, unknown>) => apiFetch<T>(path, { method: 'POST', body }),
  update: (id: number | string, body: Record<string, unknown>) => apiFetch<T>(`${path}/${id}`, { method: 'PUT', body }),
  remove: (id: number | string) => apiFetch<void>(`${path}/${id}`, { method: 'DELETE' }),
});

/** The calls of spec 7 "Inbox" and "Organisation". */
export const inboxApi = {
  conversations: (space: number, filter: ListFilter, cursor: string | null, signal?: AbortSignal) =>
    apiFetch<ConversationPage>(`/inbox/conversations?${qs({ space, ...filterQuery(filter), cursor })}`, { signal }),
  /** The list's totals alone (the filter counts), for the list's `status` / `team` narrowing. */
  totals: (space: number, filter: ListFilter) => {
    const { filter: _kind, ...narrow } = filterQuery(filter);
    return apiFetch<ConversationPage['totals']>(`/inbox/conversations/totals?${qs({ space, ...narrow })}`);
  },
  search: (space: number, q: string, signal?: AbortSignal) => apiFetch<SimpleSearchResult>(`/inbox/simple_search?${qs({ space, q })}`, { signal }),
  simpleSend: (uuid: string, message: SimpleSendMessage) => apiFetch<SendResult>(`/inbox/simple_send/${enc(uuid)}`, { method: 'POST', body: { messages: [message] } }),
  templateSend: (stream: string, body: TemplateSendBody) => apiFetch<SendResult>(`/inbox/template_send/${enc(stream)}`, { method: 'POST', body }),
  note: (conversation_uuid: string, note: string) => apiFetch<TimelineEventDto>('/inbox/send_internal_note', { method: 'POST', body: { conversation_uuid, note } }),
  switchSpace: (space: number) => apiFetch<SpaceSwitch>('/inbox/space', { method: 'POST', body: { space } }),
  metadata: (uuid: string, metadata: Partial<ConversationMetadata>) => apiFetch<ConversationDto>(`/inbox/metadata/${enc(uuid)}`, { method: 'POST', body: { metadata } }),
  setStatus: (uuids: string[], status: ConversationStatus) =>
    apiFetch<{ conversations: Record<string, ConversationDto> }>('/inbox/bulk_set_status', { method: 'POST', body: { conversation_uuids: uuids, status } }),
  contact: (c: ConversationDto, space: number) => {
    const body: ContactGetBody = c.contact_phone_key && isContactKey(c.contact_phone_key) ? { contactKey: c.contact_phone_key, space } : { contact_phone_number: c.contact_phone_number, space };
    return apiFetch<{ contact: InboxContact | null; conversations: ConversationDto[] }>('/inbox/contact/get', { method: 'POST', body });
  },
  editContact: (body: ContactWriteBody) => apiFetch<InboxContact>('/inbox/contact/edit', { method: 'POST', body }),
  addContact: (body: ContactWriteBody) => apiFetch<InboxContact>('/inbox/contact/add', { method: 'POST', body }),
  /** Spec 5: an id longer than 30 characters is a contact key, otherwise a phone. */
  contactConversations: (id: string) =>
    apiFetch<{ items: ConversationDto[] }>(isContactKey(id) ? `/inbox/contact_conversations/${enc(id)}` : `/inbox/contact_conversations_phone/${enc(id)}`),
  /** The caller a dialer's one-click link names (`contact_key` of `/inbox?action=newDialerConv`, decision 0040). */
  dialerContact: (contactKey: string) => apiFetch<DialerContactDto>(`/integration_keys/dialer_contacts/${enc(contactKey)}`),
  /** The account's CRM contacts with this number, shown beside the conversation. */
  crmContacts: (phone: string, signal?: AbortSignal) => apiFetch<IntegrationContactDto[]>(`/integration_keys/contact_lookup?${qs({ phone })}`, { signal }),
  /** A note on a CRM contact, through the vendor's note API. */
  crmNote: (integrationKey: string, body: IntegrationNoteRequest) => apiFetch<IntegrationNoteDto>(`/integration_keys/${enc(integrationKey)}/notes`, { method: 'POST', body }),
  inboxStreams: () => apiFetch<ListResult<{ id: number; name: string; streamType: number; streamUid: string; sender: string | null }>>('/streams/dropdown/inbox'),
  spaces: crud<Space>('/spaces'),
  agentSpaces: () => apiFetch<ListResult<Space>>('/spaces/agent'),
  report: (path: string, filters: { start?: string; end?: string; agents?: string[]; teams?: string[] }) => {
    const q = new URLSearchParams();
    if (filters.start) q.set('start', filters.start);
    if (filters.end) q.set('end', filters.end);
    for (const a of filters.agents ?? []) q.append('agents[]', a);
    for (const t of filters.teams ?? []) q.append('teams[]', t);
    return apiFetch<unknown>(`/inbox/${path}?${q.toString()}`);
  },
};

/** The settings lists of spec 7 "Organisation". */
export const settingsApi = {
  spaces: crud<Record<string, unknown>>('/spaces'),
  teams: crud<Record<string, unknown>>('/teams'),
  agents: { list: () => apiFetch<ListResult<Record<string, unknown>>>('/agents/manager') },
  conversation_tags: crud<Record<string, unknown>>('/conversation_tags'),
  sender_profiles: crud<Record<string, unknown>>('/sender_profiles'),
  /** Auth's API keys (the inbox keeps no copy). */
  api_keys: crud<Record<string, unknown>>('/api_keys'),
  canned_templates: crud<Record<string, unknown>>('/canned_templates'),
  conversation_goals: crud<Record<string, unknown>>('/conversation_goals'),
  incoming_routings: crud<Record<string, unknown>>('/incoming_routings'),
  stream_events: crud<Record<string, unknown>>('/stream_events'),
};

/** POST /upload/{type}/{stream} with the file as multipart; answers the stored media's id. */
export async function uploadMedia(type: string, stream: string, file: File): Promise<InboxMediaInfo> {
  const form = new FormData();
  form.append('file', file);
  const token = await validToken().catch(() => null);
  const r = await fetch(`/api/upload/${enc(type)}/${enc(stream)}`, { method: 'POST', body: form, headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await r.text();
  const body = text ? JSON.parse(text) : null;
  if (!r.ok) throw Object.assign(new Error(body?.message ?? r.statusText), { status: r.status, body });
  return body;
}

/** The media of a message: GET /stream_media/{id} with the bearer token, as an object URL the page can show. */
export async function mediaUrl(id: string): Promise<string> {
  const token = await validToken().catch(() => null);
  const r = await fetch(`/api/stream_media/${enc(id)}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!r.ok) throw new Error(r.statusText);
  return URL.createObjectURL(await r.blob());
}
