import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local servers speaking the generative-AI vendors' wire formats (OpenAI chat completions with SSE, Gemini
 * generateContent / streamGenerateContent?alt=sse, Ollama /api/chat with NDJSON), for tests. Each accepts one key,
 * answers what `reply` says, records the requests it got, and misbehaves on demand like the real ones do: a wrong
 * key, a rate limit, a 5xx, an answer that never comes, a stream that stalls or is cut off.
 */
/**
 * `stall_stream` goes silent after the first piece, `cut_stream` drops the connection there, `trickle_stream` keeps the
 * connection alive after it (a keep-alive every 100 ms: an SSE comment, an empty NDJSON piece) and never ends.
 */
export type Misbehaviour = 'none' | 'hang' | 'stall_stream' | 'cut_stream' | 'trickle_stream' | 'server_error' | 'rate_limit';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface WireServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  key: string;
  misbehave: Misbehaviour;
  /** The answer's text from the request's messages (last user text by default). */
  reply: (messages: Array<{ role: string; content: string }>) => string;
  /**
   * Holds streamed answers after their first piece until `release()`, like a vendor still generating: what the
   * client shows meanwhile is the part streamed so far.
   */
  hold: boolean;
  /** Lets the held streams go on (and stops holding new ones). */
  release(): void;
  /** Streamed answers the client closed before their end (a cancelled request). */
  readonly abandoned: number;
  close(): Promise<void>;
}

type Kind = 'openai' | 'gemini' | 'ollama';

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** Pieces of a streamed answer: words with their following space, so joined they give the text back. */
const pieces = (text: string): string[] => text.match(/\S+\s*|\s+/g) ?? [''];

export async function startWireServer(kind: Kind, opts: { key?: string; models?: string[] } = {}): Promise<WireServer> {
  const sockets = new Set<import('node:net').Socket>();
  const state = {
    key: opts.key ?? 'sk-test-valid',
    misbehave: 'none' as Misbehaviour,
    requests: [] as RecordedRequest[],
    reply: (messages: Array<{ role: string; content: string }>) => `Answer: ${[...messages].reverse().find((m) => m.role === 'user')?.content ?? ''}`,
    hold: false,
    held: [] as Array<() => void>,
    abandoned: 0,
  };

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      let body: unknown = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        return json(res, 400, { error: { message: 'body is not JSON' } });
      }
      const url = new URL(req.url ?? '/', 'http://local');
      state.requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, body });
      if (state.misbehave === 'hang') return; // never answers; the client's timer must fire
      if (kind === 'openai') return openai(req, res, url, body);
      if (kind === 'gemini') return gemini(req, res, url, body);
      return ollama(req, res, url, body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const common = (res: ServerResponse, keyOk: boolean, badKey: () => void): boolean => {
    if (!keyOk) {
      badKey();
      return false;
    }
    if (state.misbehave === 'server_error') {
      json(res, 503, { error: { message: 'The server is overloaded or not ready yet.' } });
      return false;
    }
    if (state.misbehave === 'rate_limit') {
      json(res, 429, { error: { message: 'Rate limit reached for requests', code: 'rate_limit_exceeded', status: 'RESOURCE_EXHAUSTED' } });
      return false;
    }
    return true;
  };

  /** Writes the pieces, holding, stalling, trickling or cutting off when told to. */
  const streamOut = async (res: ServerResponse, frames: string[], end: string | null, keepAlive: string) => {
    let cutHere = false;
    res.on('close', () => {
      if (!res.writableEnded && !cutHere) state.abandoned++;
    });
    const cut = state.misbehave === 'cut_stream' || state.misbehave === 'stall_stream' || state.misbehave === 'trickle_stream';
    const out = cut ? frames.slice(0, 1) : frames;
    for (const [i, f] of out.entries()) {
      if (res.destroyed) return;
      // each piece leaves before the next step (a cut after the first piece cuts after it went out)
      await new Promise<void>((r) => res.write(f, () => r()));
      if (i === 0 && state.hold) await new Promise<void>((r) => state.held.push(r));
    }
    if (res.destroyed) return;
    if (state.misbehave === 'stall_stream') return; // keeps the connection open, silent
    if (state.misbehave === 'trickle_stream') {
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(keepAlive)), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (state.misbehave === 'cut_stream') {
      cutHere = true;
      return void res.socket?.destroy();
    }
    if (end) res.write(end);
    res.end();
  };

  const messagesOf = (body: unknown): Array<{ role: string; content: string }> =>
    (body as { messages?: Array<{ role: string; content: string }> } | null)?.messages ?? [];
  const tokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

  function openai(req: IncomingMessage, res: ServerResponse, url: URL, body: unknown) {
    const keyOk = req.headers.authorization === `Bearer ${state.key}`;
    const badKey = () =>
      json(res, 401, { error: { message: 'Incorrect API key provided: sk-wr***ng. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    if (!common(res, keyOk, badKey)) return;
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      return json(res, 200, { object: 'list', data: (opts.models ?? ['gpt-4o-mini']).map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'system' })) });
    }
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) return json(res, 404, { error: { message: 'Unknown request URL', type: 'invalid_request_error' } });
    const b = body as { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean } };
    const messages = messagesOf(body);
    const text = state.reply(messages);
    const usage = { prompt_tokens: tokens(messages.map((m) => m.content).join(' ')), completion_tokens: tokens(text) };
    if (!b.stream) {
      return json(res, 200, {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1700000000,
        model: b.model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1700000000, model: b.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const frames = [chunk({ role: 'assistant', content: '' }, null), ...pieces(text).map((p) => chunk({ content: p }, null)), chunk({}, 'stop')];
    if (b.stream_options?.include_usage) frames.push(`data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
    // the role frame goes with the first word, so a stall or cut leaves a partial answer behind
    void streamOut(res, [frames[0] + frames[1], ...frames.slice(2)], 'data: [DONE]\n\n', ': keep-alive\n\n');
  }

  function gemini(req: IncomingMessage, res: ServerResponse, url: URL, body: unknown) {
    const keyOk = req.headers['x-goog-api-key'] === state.key;
    const badKey = () =>
      json(res, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }],
        },
      });
    if (!common(res, keyOk, badKey)) return;
    const m = /^\/v1beta\/models\/([^/:]+)(?::(generateContent|streamGenerateContent))?$/.exec(url.pathname);
    if (!m) return json(res, 404, { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } });
    const [, model, verb] = m;
    if (!(opts.models ?? ['gemini-1.5-flash']).includes(model)) return json(res, 404, { error: { code: 404, message: `models/${model} is not found for API version v1beta`, status: 'NOT_FOUND' } });
    if (req.method === 'GET' && !verb) return json(res, 200, { name: `models/${model}`, displayName: model, inputTokenLimit: 1048576, outputTokenLimit: 8192 });
    const b = body as { contents?: Array<{ role: string; parts: Array<{ text: string }> }>; systemInstruction?: { parts: Array<{ text: string }> } };
    const messages = [
      ...(b.systemInstruction ? [{ role: 'system', content: b.systemInstruction.parts.map((p) => p.text).join('') }] : []),
      ...(b.contents ?? []).map((c) => ({ role: c.role === 'model' ? 'assistant' : c.role, content: c.parts.map((p) => p.text).join('') })),
    ];
    const text = state.reply(messages);
    const promptTokens = tokens(messages.map((x) => x.content).join(' '));
    const response = (t: string, done: boolean, outSoFar: number) => ({
      candidates: [{ content: { parts: [{ text: t }], role: 'model' }, ...(done ? { finishReason: 'STOP' } : {}), index: 0 }],
      usageMetadata: { promptTokenCount: promptTokens, candidatesTokenCount: outSoFar, totalTokenCount: promptTokens + outSoFar },
      modelVersion: model,
    });
    if (verb === 'generateContent') return json(res, 200, response(text, true, tokens(text)));
    if (url.searchParams.get('alt') !== 'sse') {
      // without alt=sse Google answers one JSON array; the adapter always asks for SSE
      return json(res, 200, [response(text, true, tokens(text))]);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ps = pieces(text);
    let sofar = '';
    const frames = ps.map((p, i) => {
      sofar += p;
      return `data: ${JSON.stringify(response(p, i === ps.length - 1, tokens(sofar)))}\r\n\r\n`;
    });
    void streamOut(res, frames, null, ': keep-alive\r\n\r\n');
  }

  function ollama(req: IncomingMessage, res: ServerResponse, url: URL, body: unknown) {
    // Ollama itself has no keys; this one sits behind a proxy that wants a bearer key, when `key` is set
    const keyOk = !state.key || req.headers.authorization === `Bearer ${state.key}`;
    const badKey = () => json(res, 401, { error: 'unauthorized' });
    if (!common(res, keyOk, badKey)) return;
    const models = opts.models ?? ['llama3.2:latest'];
    if (req.method === 'GET' && url.pathname === '/api/tags') {
      return json(res, 200, { models: models.map((name) => ({ name, model: name, modified_at: '2026-11-01T00:00:00Z', size: 2019393189, digest: 'a80c4f17acd5', details: { family: 'llama' } })) });
    }
    if (req.method !== 'POST' || url.pathname !== '/api/chat') return json(res, 404, { error: '404 page not found' });
    const b = body as { model?: string; stream?: boolean };
    if (!models.some((n) => n === b.model || n === `${b.model}:latest`)) return json(res, 404, { error: `model "${b.model}" not found, try pulling it first` });
    const messages = messagesOf(body);
    const text = state.reply(messages);
    const at = '2026-11-25T22:00:00.000Z';
    const final = { model: b.model, created_at: at, done: true, done_reason: 'stop', total_duration: 1000, prompt_eval_count: tokens(messages.map((m) => m.content).join(' ')), eval_count: tokens(text) };
    if (b.stream === false) return json(res, 200, { ...final, message: { role: 'assistant', content: text } });
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const frames = pieces(text).map((p) => `${JSON.stringify({ model: b.model, created_at: at, message: { role: 'assistant', content: p }, done: false })}\n`);
    void streamOut(res, frames, `${JSON.stringify({ ...final, message: { role: 'assistant', content: '' } })}\n`, `${JSON.stringify({ model: b.model, created_at: at, message: { role: 'assistant', content: '' }, done: false })}\n`);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const base = kind === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
  return {
    url: base,
    get requests() {
      return state.requests;
    },
    get key() {
      return state.key;
    },
    set key(k: string) {
      state.key = k;
    },
    get misbehave() {
      return state.misbehave;
    },
    set misbehave(m: Misbehaviour) {
      state.misbehave = m;
    },
    get reply() {
      return state.reply;
    },
    set reply(f) {
      state.reply = f;
    },
    get hold() {
      return state.hold;
    },
    set hold(h: boolean) {
      state.hold = h;
    },
    release: () => {
      state.hold = false;
      for (const r of state.held.splice(0)) r();
    },
    get abandoned() {
      return state.abandoned;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of state.held.splice(0)) r();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
