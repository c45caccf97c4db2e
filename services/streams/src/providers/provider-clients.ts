import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import { STREAMS_OPTIONS, type ResolvedStreamsOptions } from '../streams.options';

export interface WhatsAppPhoneNumber {
  id: string;
  display_phone_number: string;
  verified_name: string;
}

interface GraphError {
  error?: { message?: string; type?: string; code?: number; error_subcode?: number };
}

async function fetchJson(url: string, init: RequestInit, timeoutMs: number): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new AppError(502, ErrorCode.General, `the provider could not be reached (${(e as Error).name === 'TimeoutError' ? 'timeout' : 'connection failed'})`);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { raw: text.slice(0, 500) };
  }
  return { status: res.status, body };
}

/**
 * The WhatsApp Cloud API (Graph API) calls of the console: token preview, phone numbers, message templates, flows.
 * Graph answers errors as `{ error: { message, type, code } }`: code 190 (OAuthException) is a bad access token
 * (E-0159); anything else about the business account (code 100: unknown object or no permission on it) is E-0158.
 */
@Injectable()
export class WhatsAppClient {
  constructor(@Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions) {}

  private url(path: string, query: Record<string, string> = {}): string {
    const u = new URL(`${this.o.whatsappApiBaseUrl}/${this.o.whatsappApiVersion}/${path}`);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    return u.toString();
  }

  private async call(token: string, method: string, path: string, query: Record<string, string> = {}, body?: unknown): Promise<unknown> {
    const { status, body: answer } = await fetchJson(
      this.url(path, query),
      {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      this.o.providerTimeoutMs,
    );
    if (status >= 200 && status < 300) return answer;
    const err = (answer as GraphError | null)?.error;
    if (status === 401 || err?.code === 190 || (err?.type === 'OAuthException' && err?.code !== 100)) {
      throw new AppError(400, ErrorCode.InvalidProviderToken, `invalid WhatsApp access token${err?.message ? `: ${err.message}` : ''}`);
    }
    if (status === 400 || status === 403 || status === 404) {
      throw new AppError(400, ErrorCode.InvalidBusinessId, `invalid WhatsApp business account${err?.message ? `: ${err.message}` : ''}`);
    }
    throw new AppError(502, ErrorCode.General, `the WhatsApp Cloud API answered ${status}${err?.message ? `: ${err.message}` : ''}`);
  }

  /** Checks the token against the business account and lists its phone numbers (the stream's possible senders). */
  async preview(token: string, businessId: string): Promise<{ business: { id: string; name: string | null }; phone_numbers: WhatsAppPhoneNumber[] }> {
    const business = (await this.call(token, 'GET', encodeURIComponent(businessId), { fields: 'id,name' })) as { id?: string; name?: string };
    return { business: { id: String(business?.id ?? businessId), name: business?.name ?? null }, phone_numbers: await this.phoneNumbers(token, businessId) };
  }

  async phoneNumbers(token: string, businessId: string): Promise<WhatsAppPhoneNumber[]> {
    const answer = (await this.call(token, 'GET', `${encodeURIComponent(businessId)}/phone_numbers`, { fields: 'id,display_phone_number,verified_name' })) as { data?: unknown[] };
    return (answer?.data ?? []).map((p) => {
      const r = p as Record<string, unknown>;
      return { id: String(r.id ?? ''), display_phone_number: String(r.display_phone_number ?? ''), verified_name: String(r.verified_name ?? '') };
    });
  }

  async templates(token: string, businessId: string, query: Record<string, string> = {}): Promise<{ items: unknown[]; total: number; paging: unknown }> {
    const answer = (await this.call(token, 'GET', `${encodeURIComponent(businessId)}/message_templates`, query)) as { data?: unknown[]; paging?: unknown };
    const items = answer?.data ?? [];
    return { items, total: items.length, paging: answer?.paging ?? null };
  }

  createTemplate(token: string, businessId: string, template: Record<string, unknown>): Promise<unknown> {
    return this.call(token, 'POST', `${encodeURIComponent(businessId)}/message_templates`, {}, template);
  }

  deleteTemplate(token: string, businessId: string, name: string): Promise<unknown> {
    return this.call(token, 'DELETE', `${encodeURIComponent(businessId)}/message_templates`, { name });
  }

  async flows(token: string, businessId: string): Promise<{ items: unknown[]; total: number }> {
    const answer = (await this.call(token, 'GET', `${encodeURIComponent(businessId)}/flows`)) as { data?: unknown[] };
    const items = answer?.data ?? [];
    return { items, total: items.length };
  }
}

/** Telegram Bot API: `getMe` checks a bot token (`{ ok: false, error_code: 401 }` for a bad one: E-0160). */
@Injectable()
export class TelegramClient {
  constructor(@Inject(STREAMS_OPTIONS) private readonly o: ResolvedStreamsOptions) {}

  async getMe(token: string): Promise<{ id: number; username: string | null; first_name: string | null; is_bot: boolean }> {
    if (!/^\d{3,20}:[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError(400, ErrorCode.InvalidTelegramBotToken, 'invalid Telegram bot token');
    const { status, body } = await fetchJson(`${this.o.telegramApiBaseUrl}/bot${token}/getMe`, { method: 'GET', headers: { accept: 'application/json' } }, this.o.providerTimeoutMs);
    const b = body as { ok?: boolean; result?: Record<string, unknown>; description?: string } | null;
    if (status === 200 && b?.ok && b.result) {
      return { id: Number(b.result.id), username: (b.result.username as string) ?? null, first_name: (b.result.first_name as string) ?? null, is_bot: b.result.is_bot === true };
    }
    if (status === 401 || status === 404 || b?.ok === false) throw new AppError(400, ErrorCode.InvalidTelegramBotToken, `invalid Telegram bot token${b?.description ? `: ${b.description}` : ''}`);
    throw new AppError(502, ErrorCode.General, `the Telegram Bot API answered ${status}`);
  }
}
