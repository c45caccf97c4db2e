import { apiFetch } from '../../providers';
import type { GenAiContextAnswer, GenAiService, GenAiSettingsBody, GenAiSettingsDto, GenAiTextAnswer, GenAiTone, GenAiUsageRow, GenAiVerifyAnswer } from '@switchboard/contracts/src/genai';

export type { GenAiService, GenAiSettingsDto, GenAiTextAnswer, GenAiTone, GenAiUsageRow };

/** The generative-AI calls (spec 7; docs/decisions/0041). */
export const genaiApi = {
  settings: () => apiFetch<GenAiSettingsDto>('/genai/settings'),
  save: (body: GenAiSettingsBody) => apiFetch<GenAiSettingsDto>('/genai/settings/', { method: 'POST', body }),
  verify: (service: GenAiService, key: string, body: { base_url?: string | null; model?: string | null }) =>
    apiFetch<GenAiVerifyAnswer>(`/genai/verify/${service}/${encodeURIComponent(key || '-')}`, { method: 'POST', body }),
  usage: () => apiFetch<GenAiUsageRow[]>('/genai/usage'),
  /** The goals of the space the agent may aim the assistant at (their teams' and the ones for everyone). */
  teamGoals: (spaceId: number) => apiFetch<{ items: Array<{ id: number; name: string }> }>(`/genai/team_goals?space=${spaceId}`),
  rephrase: (text: string, tone: GenAiTone) => apiFetch<GenAiTextAnswer>('/inbox/rephrase', { method: 'POST', body: { text, tone } }),
  generate: (idea: string, maxLength: number) => apiFetch<GenAiTextAnswer>('/inbox/generate_message', { method: 'POST', body: { idea, max_length: maxLength } }),
  /** The inbox seals the conversation's context; integrations answers from it (docs/decisions/0041). */
  respond: async (conversationUuid: string, goalId: number) => {
    const ctx = await apiFetch<GenAiContextAnswer>(`/inbox/ai_context/${conversationUuid}`, { method: 'POST', body: { conversation_goal_id: goalId } });
    return apiFetch<GenAiTextAnswer>(`/inbox/respond/${conversationUuid}`, { method: 'POST', body: { conversation_goal_id: goalId, context: ctx.context } });
  },
  spintax: (text: string) => apiFetch<GenAiTextAnswer>('/inbox/spintax', { method: 'POST', body: { text } }),
};

const KNOWN = new Set(['E-0159', 'E-GENAI_DISABLED', 'E-GENAI_NOT_CONFIGURED', 'E-CONNECTION_TIMEOUT', 'E-GENAI_UNAVAILABLE', 'E-GENAI_REJECTED', 'TOO_MANY_REQUESTS', 'E-GENAI_SPINTAX_INVALID', 'NO_PERMISSIONS']);

/** The translation key of a failed AI call's error. */
export function aiErrorKey(e: unknown): string {
  const code = String((e as { body?: { code?: unknown } | null })?.body?.code ?? '');
  return KNOWN.has(code) ? `genai.errors.${code}` : 'genai.errors.failed';
}
