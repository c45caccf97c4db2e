import {
  GenAiError,
  httpError,
  HttpProvider,
  isRecord,
  joinUrl,
  num,
  sseData,
  type ChatMessage,
  type GenerateRequest,
  type GenerateResult,
  type ProviderConfig,
  type StreamChunk,
  type TokenUsage,
} from './provider';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com';
export const GEMINI_DEFAULT_MODEL = 'gemini-1.5-flash';

/**
 * Google Gemini (`POST {base}/v1beta/models/{model}:generateContent`, key in `x-goog-api-key`). Roles are `user` and
 * `model`; system messages go to `systemInstruction`. Streaming is `:streamGenerateContent?alt=sse`: server-sent
 * events each holding a whole GenerateContentResponse with the next piece, the last with `usageMetadata`. A key
 * Google refuses answers 400 with reason API_KEY_INVALID (or 401/403); the check is `GET {base}/v1beta/models/{model}`.
 */
export class GeminiProvider extends HttpProvider {
  readonly name = 'gemini' as const;

  constructor(cfg: ProviderConfig) {
    super(cfg, { baseUrl: GEMINI_DEFAULT_BASE_URL, model: GEMINI_DEFAULT_MODEL });
  }

  protected override keyHeaders(): Record<string, string> {
    return { 'x-goog-api-key': this.cfg.apiKey ?? '' };
  }

  private url(verb: string): string {
    return joinUrl(this.base, `v1beta/models/${encodeURIComponent(this.model)}${verb}`);
  }

  private body(req: GenerateRequest): string {
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content);
    const turns = req.messages.filter((m): m is ChatMessage & { role: 'user' | 'assistant' } => m.role !== 'system');
    return JSON.stringify({
      contents: turns.map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
      ...(system.length ? { systemInstruction: { parts: [{ text: system.join('\n\n') }] } } : {}),
      generationConfig: {
        ...(req.maxTokens ? { maxOutputTokens: req.maxTokens } : {}),
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      },
    });
  }

  protected async fail(res: Response, controller: AbortController): Promise<never> {
    const body = await this.json(res, controller).catch(() => null);
    const err = isRecord(body) && isRecord(body.error) ? body.error : null;
    const message = err && typeof err.message === 'string' ? err.message : null;
    const reasons = err && Array.isArray(err.details) ? err.details.map((d) => (isRecord(d) ? d.reason : null)) : [];
    throw httpError(res.status, message, reasons.includes('API_KEY_INVALID'));
  }

  async verify(): Promise<void> {
    const { res, controller } = await this.send(this.url(''), { method: 'GET' });
    const body = await this.json(res, controller);
    if (!isRecord(body) || typeof body.name !== 'string') throw new GenAiError('bad_answer', 'the model description is not in the Gemini format', res.status);
  }

  /** Text and usage of one GenerateContentResponse; a prompt blocked by the safety filters is `rejected`. */
  private piece(body: unknown): { text: string | null; usage: TokenUsage | null } {
    if (!isRecord(body)) throw new GenAiError('bad_answer', 'the answer is not an object');
    if (isRecord(body.error)) throw httpError(num(body.error.code) || 500, typeof body.error.message === 'string' ? body.error.message : null, false);
    const feedback = isRecord(body.promptFeedback) ? body.promptFeedback.blockReason : null;
    if (typeof feedback === 'string') throw new GenAiError('rejected', `the provider blocked the prompt (${feedback})`);
    const cand = Array.isArray(body.candidates) ? body.candidates[0] : null;
    const parts = isRecord(cand) && isRecord(cand.content) && Array.isArray(cand.content.parts) ? cand.content.parts : null;
    const text = parts ? parts.map((p) => (isRecord(p) && typeof p.text === 'string' ? p.text : '')).join('') : null;
    const u = isRecord(body.usageMetadata) ? body.usageMetadata : null;
    return { text, usage: u ? { input: num(u.promptTokenCount), output: num(u.candidatesTokenCount) } : null };
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { res, controller } = await this.send(this.url(':generateContent'), { method: 'POST', body: this.body(req), signal: req.signal });
    const { text, usage } = this.piece(await this.json(res, controller));
    if (text === null) throw new GenAiError('bad_answer', 'the answer holds no candidate text', res.status);
    return { text, usage: usage ?? { input: 0, output: 0 }, model: this.model };
  }

  async *stream(req: GenerateRequest): AsyncGenerator<StreamChunk> {
    const { res, controller } = await this.send(`${this.url(':streamGenerateContent')}?alt=sse`, { method: 'POST', body: this.body(req), stream: true, signal: req.signal });
    let usage: TokenUsage | null = null;
    for await (const data of sseData(this.lines(res, controller))) {
      let body: unknown;
      try {
        body = JSON.parse(data);
      } catch {
        throw new GenAiError('bad_answer', 'a streamed piece is not JSON');
      }
      const p = this.piece(body);
      if (p.text) yield { type: 'text', text: p.text };
      if (p.usage) usage = p.usage;
    }
    // usageMetadata grows with every piece; the last one counts
    if (usage) yield { type: 'usage', usage };
  }
}
