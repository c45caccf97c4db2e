import {
  GenAiError,
  httpError,
  HttpProvider,
  isRecord,
  joinUrl,
  num,
  sseData,
  type GenerateRequest,
  type GenerateResult,
  type ProviderConfig,
  type StreamChunk,
} from './provider';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_DEFAULT_MODEL = 'gpt-4o-mini';

/**
 * OpenAI chat completions (`POST {base}/chat/completions`, `Authorization: Bearer <key>`), and every server speaking
 * the same format at another base URL (Azure-style proxies, vLLM, LM Studio, OpenRouter...). Streaming is server-sent
 * events of `chat.completion.chunk` objects ending with `data: [DONE]`; usage comes in a last chunk with empty
 * `choices` when asked for with `stream_options.include_usage`. The key check is `GET {base}/models`.
 */
export class OpenAiProvider extends HttpProvider {
  readonly name = 'openai' as const;

  constructor(cfg: ProviderConfig) {
    super(cfg, { baseUrl: OPENAI_DEFAULT_BASE_URL, model: OPENAI_DEFAULT_MODEL });
  }

  private body(req: GenerateRequest, stream: boolean): string {
    return JSON.stringify({
      model: this.model,
      messages: req.messages,
      ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    });
  }

  protected async fail(res: Response, controller: AbortController): Promise<never> {
    const body = await this.json(res, controller).catch(() => null);
    const err = isRecord(body) && isRecord(body.error) ? body.error : null;
    const message = err && typeof err.message === 'string' ? err.message : null;
    throw httpError(res.status, message, err?.code === 'invalid_api_key');
  }

  async verify(): Promise<void> {
    const { res, controller } = await this.send(joinUrl(this.base, 'models'), { method: 'GET' });
    const body = await this.json(res, controller);
    if (!isRecord(body) || !Array.isArray(body.data)) throw new GenAiError('bad_answer', 'the models list is not in the OpenAI format', res.status);
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { res, controller } = await this.send(joinUrl(this.base, 'chat/completions'), { method: 'POST', body: this.body(req, false), signal: req.signal });
    const body = await this.json(res, controller);
    const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : null;
    const content = isRecord(choice) && isRecord(choice.message) ? choice.message.content : null;
    if (typeof content !== 'string') throw new GenAiError('bad_answer', 'the answer holds no message content', res.status);
    const usage = isRecord(body) && isRecord(body.usage) ? body.usage : {};
    return {
      text: content,
      usage: { input: num(usage.prompt_tokens), output: num(usage.completion_tokens) },
      model: isRecord(body) && typeof body.model === 'string' ? body.model : this.model,
    };
  }

  async *stream(req: GenerateRequest): AsyncGenerator<StreamChunk> {
    const { res, controller } = await this.send(joinUrl(this.base, 'chat/completions'), { method: 'POST', body: this.body(req, true), stream: true, signal: req.signal });
    let done = false;
    for await (const data of sseData(this.lines(res, controller))) {
      if (data === '[DONE]') {
        done = true;
        break;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new GenAiError('bad_answer', 'a streamed chunk is not JSON');
      }
      if (!isRecord(chunk)) throw new GenAiError('bad_answer', 'a streamed chunk is not an object');
      // some compatible servers report an error in the stream itself
      if (isRecord(chunk.error)) throw httpError(500, typeof chunk.error.message === 'string' ? chunk.error.message : null, false);
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : null;
      const delta = isRecord(choice) && isRecord(choice.delta) ? choice.delta.content : null;
      if (typeof delta === 'string' && delta) yield { type: 'text', text: delta };
      if (isRecord(chunk.usage)) yield { type: 'usage', usage: { input: num(chunk.usage.prompt_tokens), output: num(chunk.usage.completion_tokens) } };
    }
    if (!done) throw new GenAiError('unavailable', 'the stream ended before [DONE]');
  }
}
