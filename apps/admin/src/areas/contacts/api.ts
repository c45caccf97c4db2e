import { ApiError, apiFetch, validToken } from '../../providers/http';
import type { MessageExportParams } from '@switchboard/contracts/src/message-exports';
import type { ApiErrorBody } from '../../providers/types';
import { COUNTRIES_PER_PAGE, DROPDOWN_PER_PAGE, fallbackFileName, VARIABLES_PER_PAGE, type ImportTypeValue } from './constants';
import type {
  BlackListEntry,
  ContactList,
  ContactPage,
  Contact,
  Country,
  ImportList,
  ImportWithPreview,
  ListResult,
  SegmentFilter,
  Task,
  TaskParams,
  Variable,
  VariableInput,
} from './types';

/** `?page=..&itemsPerPage=..&order[id]=desc&k=v` (the list contract of spec 7); empty values are left out. */
export function query(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export interface PageQuery {
  page?: number;
  itemsPerPage?: number;
  order?: 'asc' | 'desc';
  orderBy?: string;
}

const paging = ({ page = 1, itemsPerPage = 25, order = 'desc', orderBy = 'id' }: PageQuery) => ({ page, itemsPerPage, [`order[${orderBy}]`]: order });

function errorOf(status: number, statusText: string, text: string): ApiError {
  let body: ApiErrorBody | null = null;
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === 'object') body = json as ApiErrorBody;
  } catch (_e) {
    body = null;
  }
  return new ApiError(body?.message || statusText || `HTTP ${status}`, status, body);
}

/**
 * POST /api/import_lists as multipart (file, name, type). XMLHttpRequest rather than fetch: it reports the upload's
 * progress, which the file field shows while a large file travels.
 */
export async function uploadImport(
  file: File,
  fields: { type: ImportTypeValue; name?: string },
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<ImportWithPreview> {
  const token = await validToken().catch(() => null);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/import_lists');
    xhr.setRequestHeader('Accept', 'application/json');
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as ImportWithPreview);
        } catch (_e) {
          reject(errorOf(xhr.status, 'Invalid answer', ''));
        }
      } else reject(errorOf(xhr.status, xhr.statusText, xhr.responseText));
    };
    xhr.onerror = () => reject(new ApiError('Network error', 0, null));
    xhr.onabort = () => reject(new DOMException('Aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append('type', fields.type);
    if (fields.name) form.append('name', fields.name);
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** The name a download announces in Content-Disposition, else the timestamped fallback of spec 9. */
export function fileNameOf(disposition: string | null): string {
  const star = disposition && /filename\*=(?:UTF-8'')?([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim().replace(/^"|"$/g, ''));
    } catch (_e) {
      // fall through to the plain parameter
    }
  }
  const plain = disposition && /filename="?([^";]+)"?/i.exec(disposition);
  return plain ? plain[1].trim() : fallbackFileName();
}

/** Fetches a file of /api with the bearer token and hands it to the browser as a download. */
export async function downloadFile(path: string): Promise<string> {
  const token = await validToken().catch(() => null);
  const res = await fetch(`/api${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  if (!res.ok) throw errorOf(res.status, res.statusText, await res.text());
  const blob = await res.blob();
  const name = fileNameOf(res.headers.get('Content-Disposition'));
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
  return name;
}

/** The calls of spec 7 "Contacts" and "Variables" that the contacts screens make. */
export const contactsApi = {
  importLists: (p: PageQuery & { type?: ImportTypeValue; status?: string; name?: string }) =>
    apiFetch<ListResult<ImportList>>(`/import_lists${query({ ...paging(p), type: p.type, status: p.status, name: p.name })}`),
  importList: (id: number) => apiFetch<ImportWithPreview>(`/import_lists/${id}`),
  updateImport: (
    id: number,
    body: { name?: string; mapping?: Array<{ column: number; variable: number }>; ignoreFirstLine?: boolean; defaultCountry?: string | null; start?: boolean },
  ) => apiFetch<ImportList>(`/import_lists/${id}`, { method: 'PUT', body }),
  deleteImport: (id: number) => apiFetch<void>(`/import_lists/${id}`, { method: 'DELETE' }),
  downloadExample: () => downloadFile('/import_lists/example_file'),

  contactLists: (p: PageQuery & { type?: string; status?: number; name?: string }) =>
    apiFetch<ListResult<ContactList>>(`/contact_lists${query({ ...paging(p), type: p.type, status: p.status, name: p.name })}`),
  allContactLists: (type?: string) => apiFetch<ListResult<ContactList>>(`/contact_lists${query({ ...paging({ itemsPerPage: DROPDOWN_PER_PAGE }), type })}`),
  contactList: (id: number) => apiFetch<ContactList>(`/contact_lists/${id}`),
  createSegment: (body: { name: string; description?: string; filter: SegmentFilter }) =>
    apiFetch<ContactList>('/contact_lists', { method: 'POST', body: { ...body, type: 'segment' } }),
  updateContactList: (id: number, body: { name?: string; description?: string | null; filter?: SegmentFilter }) =>
    apiFetch<ContactList>(`/contact_lists/${id}`, { method: 'PUT', body }),
  deleteContactList: (id: number) => apiFetch<void>(`/contact_lists/${id}`, { method: 'DELETE' }),
  totalByFilter: (filter: SegmentFilter, signal?: AbortSignal) =>
    apiFetch<{ total: number }>('/contact_lists/total_by_filter', { method: 'POST', body: { filter }, signal }),

  contacts: (p: {
    itemsPerPage: number;
    after?: number | null;
    search?: string;
    contactList?: number;
    importList?: number;
    country?: string;
    optedOut?: boolean;
    state?: string;
    page?: number;
  }) =>
    apiFetch<ContactPage>(
      `/contacts${query({
        page: p.after ? 1 : (p.page ?? 1),
        itemsPerPage: p.itemsPerPage,
        'order[id]': 'desc',
        after: p.after ?? undefined,
        search: p.search,
        contactList: p.contactList,
        importList: p.importList,
        country: p.country,
        optedOut: p.optedOut,
        state: p.state,
      })}`,
    ),
  contact: (id: number) => apiFetch<Contact>(`/contacts/${id}`),
  optOutContact: (id: number) => apiFetch<Contact>(`/contacts/${id}`, { method: 'PUT', body: { optedOut: true } }),
  deleteContact: (id: number) => apiFetch<void>(`/contacts/${id}`, { method: 'DELETE' }),

  variables: () => apiFetch<ListResult<Variable>>(`/variables${query({ ...paging({ itemsPerPage: VARIABLES_PER_PAGE, order: 'asc' }) })}`),
  createVariable: (body: VariableInput) => apiFetch<Variable>('/variables', { method: 'POST', body }),
  updateVariable: (id: number, body: Partial<VariableInput>) => apiFetch<Variable>(`/variables/${id}`, { method: 'PUT', body }),
  deleteVariable: (id: number) => apiFetch<void>(`/variables/${id}`, { method: 'DELETE' }),

  blackLists: (p: PageQuery & { phone?: string; importList?: number }) =>
    apiFetch<ListResult<BlackListEntry>>(`/black_lists${query({ ...paging(p), phone: p.phone, importList: p.importList })}`),
  addBlackList: (body: { phone: string; country?: string }) => apiFetch<BlackListEntry>('/black_lists', { method: 'POST', body }),
  deleteBlackList: (id: number) => apiFetch<void>(`/black_lists/${id}`, { method: 'DELETE' }),

  tasks: (p: PageQuery & { type?: string }) => apiFetch<ListResult<Task>>(`/tasks${query({ ...paging(p), type: p.type })}`),
  task: (id: number) => apiFetch<Task>(`/tasks/${id}`),
  createTask: (type: string, params: TaskParams | MessageExportParams) => apiFetch<Task>('/tasks', { method: 'POST', body: { type, params, fileType: 'CSV' } }),
  deleteTask: (id: number) => apiFetch<void>(`/tasks/${id}`, { method: 'DELETE' }),
  downloadTask: (id: number) => downloadFile(`/task/download?id=${id}`),

  countries: () => apiFetch<ListResult<Country>>(`/countries${query({ page: 1, itemsPerPage: COUNTRIES_PER_PAGE, 'order[id]': 'asc' })}`),
};
