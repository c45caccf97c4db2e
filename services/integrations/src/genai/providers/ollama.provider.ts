import {
  GenAiError,
  httpError,
  HttpProvider,
  isRecord,
  joinUrl,
  num,
  type GenerateRequest,
  type GenerateResult,
  type ProviderConfig,
  type StreamChunk,
} from './provider';

export const OLLAMA_DEFAULT_BASE_URL = 'http://127.0.0.1:11434';
export const OLLAMA_DEFAULT_MODEL = 'llama3.2';

/**
 * A local Ollama (`POST {base}/api/chat`). Streaming is newline-delimited JSON: one object per piece
 * (`message.content`), the last with `done: true` and the counts `prompt_eval_count` / `eval_count`. Ollama has no
 * key of its own; one put behind a proxy that wants a bearer key gets it, and the proxy's 401/403 is an invalid
 * token. The check is `GET {base}/api/tags` and the model must be among those pulled.
 */
export class OllamaProvider extends HttpProvider {
  readonly name = 'ollama' as const;

  constructor(cfg: ProviderConfig) {
    super(cfg, { baseUrl: OLLAMA_DEFAULT_BASE_URL, model: OLLAMA_DEFAULT_MODEL });
  }

  private body(req: GenerateRequest, stream: boolean): string {
    return JSON.stringify({
      model: this.model,
      messages: req.messages,
      stream,
      options: {
        ...(req.maxTokens ? { num_predict: req.maxTokens } : {}),
        ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      },
    });
  }

  protected async fail(res: Response, controller: AbortController): Promise<never> {
    const body = await this.json(res, controller).catch(() => null);
    throw httpError(res.status, isRecord(body) && typeof body.error === 'string' ? body.error : null, false);
  }

  async verify(): Promise<void> {
    const { res, controller } = await this.send(joinUrl(this.base, 'api/tags'), { method: 'GET' });
    const body = await this.json(res, controller);
    if (!isRecord(body) || !Array.isArray(body.models)) throw new GenAiError('bad_answer', 'the model list is not in the Ollama format', res.status);
    const names = body.models.map((m) => (isRecord(m) ? m.name : null));
    // `llama3.2` is `llama3.2:latest` in the list
    if (!names.some((n) => n === this.model || n === `${this.model}:latest`)) throw new GenAiError('rejected', `model "${this.model}" is not pulled on this Ollama`);
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { res, controller } = await this.send(joinUrl(this.base, 'api/chat'), { method: 'POST', body: this.body(req, false), signal: req.signal });
    const body = await this.json(res, controller);
    if (isRecord(body) && typeof body.error === 'string') throw httpError(500, body.error, false);
    const content = isRecord(body) && isRecord(body.message) ? body.message.content : null;
    if (!isRecord(body) || typeof content !== 'string') throw new GenAiError('bad_answer', 'the answer holds no message content', res.status);
    return { text: content, usage: { input: num(body.prompt_eval_count), output: num(body.eval_count) }, model: typeof body.model === 'string' ? body.model : this.model };
  }

  async *stream(req: GenerateRequest): AsyncGenerator<StreamChunk> {
    const { res, controller } = await this.send(joinUrl(this.base, 'api/chat'), { method: 'POST', body: this.body(req, true), signal: req.signal });
    let done = false;
    for await (const line of this.lines(res, controller)) {
      if (!line.trim()) continue;
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch {
        throw new GenAiError('bad_answer', 'a streamed line is not JSON');
      }
      if (!isRecord(obj)) throw new GenAiError('bad_answer', 'a streamed line is not an object');
      if (typeof obj.error === 'string') throw httpError(500, obj.error, false);
      const piece = isRecord(obj.message) ? obj.message.content : null;
      if (typeof piece === 'string' && piece) yield { type: 'text', text: piece };
      if (obj.done === true) {
        done = true;
        yield { type: 'usage', usage: { input: num(obj.prompt_eval_count), output: num(obj.eval_count) } };
        break;
      }
    }
    if (!done) throw new GenAiError('unavailable', 'the stream ended before done');
  }
}
