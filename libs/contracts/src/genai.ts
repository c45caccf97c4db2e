/**
 * Generative AI (spec 1, 3, 5, 7; docs/decisions/0041-generative-ai.md): the browser contract of the integrations
 * service's genai module and of the inbox's hand-over of a conversation's context to it.
 */

export const GENAI_SERVICES = ['openai', 'gemini', 'ollama'] as const;
export type GenAiService = (typeof GENAI_SERVICES)[number];

/** Tones `inbox/rephrase` knows (the console's choice list). */
export const GENAI_TONES = ['friendly', 'formal', 'professional', 'casual', 'empathetic', 'concise', 'persuasive'] as const;
export type GenAiTone = (typeof GENAI_TONES)[number];

/** Bounds of the inputs (characters), so a prompt stays small and a key cannot be used as a free chat. */
export const GENAI_LIMITS = {
  /** rephrase text, generate_message idea, spintax text */
  text: 2000,
  /** generate_message max_length: the longest message asked for */
  maxLength: 1600,
  /** messages of the conversation's recent timeline sent with `inbox/respond` */
  contextMessages: 12,
  /** characters kept of each of them */
  contextMessageChars: 500,
  /** how long a context hand-over from the inbox stays valid, ms */
  contextTtlMs: 120_000,
} as const;

/** One provider's settings as the console sees them: the key never comes back, only whether one is stored. */
export interface GenAiProviderSettingsDto {
  service: GenAiService;
  has_key: boolean;
  base_url: string | null;
  model: string | null;
  verified_at: string | null;
}

/** GET/POST /genai/settings/ answer. `default_generative_service` is genSettings' (spec 3). */
export interface GenAiSettingsDto {
  default_generative_service: GenAiService | null;
  allow_generative_ai: boolean;
  allow_spintax_ai: boolean;
  providers: GenAiProviderSettingsDto[];
}

/** POST /genai/settings/ body: sets one provider (key optional when one is stored) and/or the default. */
export interface GenAiSettingsBody {
  default_generative_service?: GenAiService;
  service?: GenAiService;
  /** The vendor key; an empty string removes the stored one. Omitted: the stored key stays. */
  api_key?: string;
  base_url?: string | null;
  model?: string | null;
}

/** POST /genai/verify/{service}/{token}: `{ status: 1 }`, or an error with code E-0159 and message "invalid token". */
export interface GenAiVerifyAnswer {
  status: 1;
  service: GenAiService;
}

/** inbox/rephrase, inbox/generate_message, inbox/respond/{id}, inbox/spintax answer. */
export interface GenAiTextAnswer {
  text: string;
  service: GenAiService;
  model: string;
  usage: { input: number; output: number };
}

/**
 * The writing calls streamed (docs/decisions/0050-genai-streaming-and-space-permission.md): asked with
 * `Accept: application/x-ndjson` (one JSON event a line) or `Accept: text/event-stream` (the same JSON as each event's
 * data, the type as its name), they answer 200 with the provider's text as it comes, then one `done` carrying the
 * whole answer as the JSON call gives it (cleaned and cut to its bounds), or one `error` with the API's error body.
 * Errors found before the first piece (input, permissions, a refused key) are the plain JSON errors with their status.
 */
export type GenAiStreamEvent =
  | { type: 'text'; text: string }
  | ({ type: 'done' } & GenAiTextAnswer)
  | { type: 'error'; code: string | number; message: string; status: number };

/** The media types that ask the writing calls for a stream. */
export const GENAI_STREAM_TYPES = { ndjson: 'application/x-ndjson', sse: 'text/event-stream' } as const;

/** POST /inbox/ai_context/{id} `{ conversation_goal_id }` (inbox): the sealed context that POST /inbox/respond/{id} takes. */
export interface GenAiContextAnswer {
  context: string;
  expires_at: string;
}

/** What the inbox seals into the context (read by the integrations service only). */
export interface GenAiConversationContext {
  accountId: string;
  conversationUuid: string;
  goalId: number;
  goalName: string;
  goalText: string;
  /** Oldest first; `contact` or `agent`, text only (no names, numbers or media). */
  messages: Array<{ from: 'contact' | 'agent'; text: string }>;
  expiresAt: number;
  /**
   * The conversation's space: the integrations service checks the caller's AI assistant permission there at every
   * `inbox/respond` call, so taking it away works at once, not when the context expires (decision 0063). Absent in
   * contexts sealed before it was added: the call is then refused when any space takes the assistant away.
   */
  spaceId?: string;
}

/** Binds a sealed context to its account and conversation (the additional authenticated data). */
export const genAiContextBinding = (accountId: string, conversationUuid: string): string => `genai-context:${accountId}:${conversationUuid}`;

/** GET /genai/usage: tokens per provider and day (the account's, UTC days). */
export interface GenAiUsageRow {
  day: string;
  service: GenAiService;
  requests: number;
  input_tokens: number;
  output_tokens: number;
}

