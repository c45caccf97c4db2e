import { apiFetch } from '../../providers/http';
import type { ListResult, RequestLogEntry, TestResult, Webhook } from './types';

/** Spec 9: webhooks 2000 per page. */
export const WEBHOOKS_PER_PAGE = 2000;

/** Permission strings of spec 6 these screens check. */
export const P = { WebhookView: 'WEBHOOK_VIEW', WebhookAddEdit: 'WEBHOOK_ADD_EDIT', WebhookRemove: 'WEBHOOK_REMOVE', WebhookRequestView: 'WEBHOOK_REQUEST_VIEW' } as const;

/** Spec 5: empty fields are omitted on create or update. */
export function omitEmpty<T extends Record<string, unknown>>(body: T): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v === '' || v === null || v === undefined) continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out as Partial<T>;
}

/** The calls of spec 7: /webhooks, /webhooks/code_snippets, /webhooks/test/{id}, /webhook_requests/log. */
export const webhooksApi = {
  list: () => apiFetch<ListResult<Webhook>>(`/webhooks?page=1&itemsPerPage=${WEBHOOKS_PER_PAGE}&order[id]=desc`),
  create: (body: Record<string, unknown>) => apiFetch<Webhook>('/webhooks', { method: 'POST', body: omitEmpty(body) }),
  update: (id: number, body: Record<string, unknown>) => apiFetch<Webhook>(`/webhooks/${id}`, { method: 'PUT', body: omitEmpty(body) }),
  remove: (id: number) => apiFetch<void>(`/webhooks/${id}`, { method: 'DELETE' }),
  test: (id: number) => apiFetch<TestResult>(`/webhooks/test/${id}`, { method: 'POST' }),
  snippets: () => apiFetch<Record<'node' | 'python' | 'php' | 'curl', string>>('/webhooks/code_snippets'),
  log: (q: { page: number; perPage: number; webhook?: number; status?: string }) =>
    apiFetch<ListResult<RequestLogEntry>>(
      `/webhook_requests/log?page=${q.page}&itemsPerPage=${q.perPage}&order[id]=desc${q.webhook ? `&webhook=${q.webhook}` : ''}${q.status ? `&status=${q.status}` : ''}`,
    ),
};
