import { collect, createProvider, GenAiError, type GenAiProvider, type GenAiProviderName, type GenerateRequest, type StreamChunk } from '../src/genai/providers';
import { startGenAiWireServer as startWireServer, type GenAiWireServer as WireServer } from '@switchboard/platform/testing';

const MODELS: Record<GenAiProviderName, string> = { openai: 'gpt-4o-mini', gemini: 'gemini-1.5-flash', ollama: 'llama3.2' };
const ask: GenerateRequest = {
  messages: [
    { role: 'system', content: 'You rewrite messages.' },
    { role: 'user', content: 'make this friendlier please' },
  ],
  maxTokens: 200,
  temperature: 0.3,
};

async function failure(p: Promise<unknown>): Promise<GenAiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof GenAiError) return e;
    throw e;
  }
  throw new Error('expected a GenAiError');
}

async function drain(it: AsyncIterable<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

describe.each(['openai', 'gemini', 'ollama'] as const)('the %s provider against a local server speaking its wire format', (name) => {
  let server: WireServer;
  const provider = (over: Partial<{ key: string; timeoutMs: number; idleTimeoutMs: number; baseUrl: string }> = {}): GenAiProvider =>
    createProvider(name, {
      apiKey: over.key ?? server.key,
      baseUrl: over.baseUrl ?? server.url,
      model: MODELS[name],
      timeoutMs: over.timeoutMs ?? 5000,
      idleTimeoutMs: over.idleTimeoutMs,
    });

  beforeAll(async () => {
    server = await startWireServer(name);
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.misbehave = 'none';
    server.requests.length = 0;
  });

  it('answers a request with the text and the tokens used', async () => {
    const r = await provider().generate(ask);
    expect(r.text).toBe('Answer: make this friendlier please');
    expect(r.usage.input).toBeGreaterThan(0);
    expect(r.usage.output).toBeGreaterThan(0);
    // the system prompt and the user's text reach the vendor in its own shape
    expect(JSON.stringify(server.requests[0].body)).toContain('You rewrite messages.');
  });

  it('streams an answer piece by piece, ending with its usage', async () => {
    server.reply = () => 'Hello there, how can we help you today?';
    const chunks = await drain(provider().stream(ask));
    const texts = chunks.filter((c) => c.type === 'text');
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.map((c) => (c.type === 'text' ? c.text : '')).join('')).toBe('Hello there, how can we help you today?');
    const last = chunks[chunks.length - 1];
    expect(last.type).toBe('usage');
    expect(last.type === 'usage' && last.usage.output).toBeGreaterThan(0);
    const r = await collect(provider().stream(ask), MODELS[name]);
    expect(r.text).toBe('Hello there, how can we help you today?');
    server.reply = (m) => `Answer: ${[...m].reverse().find((x) => x.role === 'user')?.content ?? ''}`;
  });

  it('accepts a valid key on the key check', async () => {
    await expect(provider().verify()).resolves.toBeUndefined();
  });

  it('calls a refused key "invalid token", on the check, a request and a stream', async () => {
    if (name === 'ollama') server.key = 'proxy-key';
    const wrong = provider({ key: 'sk-wrong' });
    for (const e of [await failure(wrong.verify()), await failure(wrong.generate(ask)), await failure(drain(wrong.stream(ask)))]) {
      expect(e.code).toBe('invalid_token');
      expect(e.message).toMatch(/^invalid token/);
    }
    if (name === 'ollama') server.key = '';
  });

  it('gives up on an answer that never comes with a timeout', async () => {
    server.misbehave = 'hang';
    const e = await failure(provider({ timeoutMs: 300 }).generate(ask));
    expect(e.code).toBe('timeout');
  });

  it('gives up on a stream that goes silent with a timeout, after the text so far', async () => {
    server.misbehave = 'stall_stream';
    const got: StreamChunk[] = [];
    const e = await failure(
      (async () => {
        for await (const c of provider({ idleTimeoutMs: 300 }).stream(ask)) got.push(c);
      })(),
    );
    expect(e.code).toBe('timeout');
    expect(got.filter((c) => c.type === 'text').length).toBe(1);
  });

  it('reports a stream cut off before its end as unavailable, not as a short answer', async () => {
    server.misbehave = 'cut_stream';
    const e = await failure(drain(provider().stream(ask)));
    // Gemini's stream has no end marker: a cut shows as a socket error while reading, or as a stream without usage
    expect(['unavailable']).toContain(e.code);
  });

  it('maps the vendor being down and its rate limit to their own codes', async () => {
    server.misbehave = 'server_error';
    expect((await failure(provider().generate(ask))).code).toBe('unavailable');
    server.misbehave = 'rate_limit';
    expect((await failure(provider().generate(ask))).code).toBe('rate_limited');
  });

  it('reports a base URL where nothing listens as unavailable', async () => {
    const e = await failure(provider({ baseUrl: 'http://127.0.0.1:9' }).generate(ask));
    expect(e.code).toBe('unavailable');
  });
});

describe('provider specifics', () => {
  it('OpenAI-compatible servers at another base URL get the same calls under their path', async () => {
    const s = await startWireServer('openai', { key: 'local-key', models: ['qwen2.5'] });
    try {
      const p = createProvider('openai', { apiKey: 'local-key', baseUrl: `${s.url}/`, model: 'qwen2.5', timeoutMs: 5000 });
      await p.verify();
      expect((await p.generate(ask)).model).toBe('qwen2.5');
      expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
      expect(s.requests[1].body).toMatchObject({ model: 'qwen2.5', max_tokens: 200, temperature: 0.3 });
    } finally {
      await s.close();
    }
  });

  it('Gemini gets the system prompt as systemInstruction and assistant turns as the model role', async () => {
    const s = await startWireServer('gemini');
    try {
      const p = createProvider('gemini', { apiKey: s.key, baseUrl: s.url, model: 'gemini-1.5-flash', timeoutMs: 5000 });
      await p.generate({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'bye' }], maxTokens: 50 });
      expect(s.requests[0].path).toBe('/v1beta/models/gemini-1.5-flash:generateContent');
      expect(s.requests[0].headers['x-goog-api-key']).toBe(s.key);
      expect(s.requests[0].body).toEqual({
        contents: [
          { role: 'user', parts: [{ text: 'hi' }] },
          { role: 'model', parts: [{ text: 'hello' }] },
          { role: 'user', parts: [{ text: 'bye' }] },
        ],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        generationConfig: { maxOutputTokens: 50 },
      });
      await drain(p.stream(ask));
      expect(s.requests[1].path).toBe('/v1beta/models/gemini-1.5-flash:streamGenerateContent?alt=sse');
      // an unknown model is the request refused, not a bad key
      const other = createProvider('gemini', { apiKey: s.key, baseUrl: s.url, model: 'gemini-9', timeoutMs: 5000 });
      expect((await failure(other.verify())).code).toBe('rejected');
    } finally {
      await s.close();
    }
  });

  it('Ollama refuses a model that is not pulled on the key check and on a request', async () => {
    const s = await startWireServer('ollama', { key: '' });
    try {
      const p = createProvider('ollama', { apiKey: null, baseUrl: s.url, model: 'mistral', timeoutMs: 5000 });
      expect((await failure(p.verify())).code).toBe('rejected');
      const e = await failure(p.generate(ask));
      expect(e.code).toBe('rejected');
      expect(e.message).toContain('not found');
      expect(s.requests[1].body).toMatchObject({ model: 'mistral', stream: false, options: { num_predict: 200, temperature: 0.3 } });
    } finally {
      await s.close();
    }
  });
});
