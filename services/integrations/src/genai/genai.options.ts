/** The genai module's settings, inside IntegrationsModuleOptions.genai (docs/decisions/0041-generative-ai.md). */
export interface GenAiModuleOptions {
  /**
   * Opens the conversation context the inbox seals for `inbox/respond` (`GENAI_CONTEXT_KEY`, the same value as the
   * inbox's; at least 16 characters). Unset: `inbox/respond` answers E-GENAI_NOT_CONFIGURED.
   */
  contextKey?: string;
  /** A provider's answer (or a streamed answer's first byte) must come within this. Default 30 000 ms. */
  timeoutMs?: number;
  /** Longest silence inside a streamed answer. Default 15 000 ms. */
  streamIdleMs?: number;
  /** Longest a streamed answer may take from the request to its end; the provider's request is aborted then. Default 120 000 ms. */
  streamMaxMs?: number;
  /**
   * Lets provider base URLs be plain http and on loopback or private addresses (a local Ollama, an OpenAI-compatible
   * server on the LAN). Embedded mode and tests; in production list them in `privateBaseUrls` instead. Default false.
   */
  allowPrivateBaseUrls?: boolean;
  /** Origins an account may point a provider at even though they are private (`http://ollama:11434`). */
  privateBaseUrls?: readonly string[];
}

export interface ResolvedGenAiOptions {
  contextKey: string | null;
  timeoutMs: number;
  streamIdleMs: number;
  streamMaxMs: number;
  allowPrivateBaseUrls: boolean;
  privateBaseUrls: readonly string[];
}

export const GENAI_OPTIONS = Symbol('GENAI_OPTIONS');

export function resolveGenAiOptions(o: GenAiModuleOptions = {}): ResolvedGenAiOptions {
  if (o.contextKey !== undefined && o.contextKey.length < 16) throw new Error('IntegrationsModule: genai.contextKey must be at least 16 characters');
  const ms = (name: string, v: number | undefined, def: number) => {
    const n = v ?? def;
    if (!Number.isInteger(n) || n < 10) throw new Error(`IntegrationsModule: genai.${name} must be an integer of at least 10 ms`);
    return n;
  };
  const origins = (o.privateBaseUrls ?? []).map((u) => {
    if (!URL.canParse(u)) throw new Error(`IntegrationsModule: genai.privateBaseUrls "${u}" is not a URL`);
    return new URL(u).origin;
  });
  return {
    contextKey: o.contextKey ?? null,
    timeoutMs: ms('timeoutMs', o.timeoutMs, 30_000),
    streamIdleMs: ms('streamIdleMs', o.streamIdleMs, 15_000),
    streamMaxMs: ms('streamMaxMs', o.streamMaxMs, 120_000),
    allowPrivateBaseUrls: o.allowPrivateBaseUrls ?? false,
    privateBaseUrls: origins,
  };
}
