import { ApiError, apiFetch, apiStream } from '../../providers';
import type { GenAiContextAnswer, GenAiService, GenAiSettingsBody, GenAiSettingsDto, GenAiStreamEvent, GenAiTextAnswer, GenAiTone, GenAiUsageRow, GenAiVerifyAnswer } from '@switchboard/contracts/src/genai';

export type { GenAiService, GenAiSettingsDto, GenAiTextAnswer, GenAiTone, GenAiUsageRow };

/** The text streamed so far, each time a piece arrives. */
export type OnText = (soFar: string) => void;

/**
 * A writing call streamed (docs/decisions/0050): `onText` sees the text grow as the provider writes it; resolves with
 * the final answer (cleaned and cut like the JSON one), rejects with ApiError for an error before or during the stream.
 */
async function streamed(path: string, body: unknown, onText: OnText, signal?: AbortSignal): Promise<GenAiTextAnswer> {
  let soFar = '';
  let done: GenAiTextAnswer | null = null;
  let failed: Extract<GenAiStreamEvent, { type: 'error' }> | null = null;
  await apiStream<GenAiStreamEvent>(path, { method: 'POST', body, signal }, (e) => {
    if (e.type === 'text') onText((soFar += e.text));
    else if (e.type === 'done') done = e;
    else failed = e;
  });
  const error = failed as Extract<GenAiStreamEvent, { type: 'error' }> | null;
  if (error) throw new ApiError(error.message, error.status, { code: error.code, message: error.message, status: error.status });
  if (!done) throw new ApiError('the answer ended early', 502, null);
  return done;
}

/** The generative-AI calls (spec 7; docs/decisions/0041). */
export const genaiApi = {
  settings: () => apiFetch<GenAiSettingsDto>('/genai/settings'),
  save: (body: GenAiSettingsBody) => apiFetch<GenAiSettingsDto>('/genai/settings/', { method: 'POST', body }),
  verify: (service: GenAiService, key: string, body: { base_url?: string | null; model?: string | null }) =>
    apiFetch<GenAiVerifyAnswer>(`/genai/verify/${service}/${encodeURIComponent(key || '-')}`, { method: 'POST', body }),
  usage: () => apiFetch<GenAiUsageRow[]>('/genai/usage'),
  /** The goals of the space the agent may aim the assistant at (their teams' and the ones for everyone). */
  teamGoals: (spaceId: number) => apiFetch<{ items: Array<{ id: number; name: string }> }>(`/genai/team_goals?space=${spaceId}`),
  /** `space`: the inbox space the composer is in; its AI permission applies (docs/decisions/0050). */
  rephrase: (text: string, tone: GenAiTone, space: number | null, onText: OnText, signal?: AbortSignal) =>
    streamed('/inbox/rephrase', { text, tone, ...(space !== null ? { space } : {}) }, onText, signal),
  generate: (idea: string, maxLength: number, space: number | null, onText: OnText, signal?: AbortSignal) =>
    streamed('/inbox/generate_message', { idea, max_length: maxLength, ...(space !== null ? { space } : {}) }, onText, signal),
  /** The inbox seals the conversation's context; integrations answers from it (docs/decisions/0041). */
  respond: async (conversationUuid: string, goalId: number, onText: OnText, signal?: AbortSignal) => {
    const ctx = await apiFetch<GenAiContextAnswer>(`/inbox/ai_context/${conversationUuid}`, { method: 'POST', body: { conversation_goal_id: goalId }, signal });
    return streamed(`/inbox/respond/${conversationUuid}`, { conversation_goal_id: goalId, context: ctx.context }, onText, signal);
  },
  spintax: (text: string) => apiFetch<GenAiTextAnswer>('/inbox/spintax', { method: 'POST', body: { text } }),
};

const KNOWN = new Set(['E-0159', 'E-GENAI_DISABLED', 'E-GENAI_NOT_CONFIGURED', 'E-CONNECTION_TIMEOUT', 'E-GENAI_UNAVAILABLE', 'E-GENAI_REJECTED', 'TOO_MANY_REQUESTS', 'E-GENAI_SPINTAX_INVALID', 'NO_PERMISSIONS']);

/** The translation key of a failed AI call's error. */
export function aiErrorKey(e: unknown): string {
  const code = String((e as { body?: { code?: unknown } | null })?.body?.code ?? '');
  return KNOWN.has(code) ? `genai.errors.${code}` : 'genai.errors.failed';
}
