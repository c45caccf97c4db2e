import { Logger } from '@nestjs/common';
import { ALL_PERMISSIONS, CustomerUpdatedV1, type GenAiStreamEvent } from '@switchboard/contracts';
import { GatewayModule, ReadinessService } from '@switchboard/gateway';
import { IntegrationsModule } from '@switchboard/integrations';
import { createEnvelope, type InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, startGenAiWireServer, type GenAiWireServer, type TestApp } from '@switchboard/platform/testing';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field
const ACCOUNT = '61';

/** Reads a streamed answer event by event, as the body's chunks arrive. */
class EventReader {
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  private readonly decoder = new TextDecoder();
  private buf = '';
  /** How many network chunks the body came in so far. */
  chunks = 0;
  constructor(
    readonly res: Response,
    private readonly format: 'ndjson' | 'sse',
  ) {}
  private read() {
    if (!this.res.body) throw new Error('no body');
    this.reader ??= this.res.body.getReader();
    return this.reader.read();
  }
  /** The next event, or null at the end of the body. */
  async next(): Promise<GenAiStreamEvent | null> {
    const sep = this.format === 'ndjson' ? '\n' : '\n\n';
    for (;;) {
      const at = this.buf.indexOf(sep);
      if (at >= 0) {
        const raw = this.buf.slice(0, at);
        this.buf = this.buf.slice(at + sep.length);
        if (this.format === 'ndjson') return JSON.parse(raw) as GenAiStreamEvent;
        const name = /^event: (.+)$/m.exec(raw)?.[1];
        const data = JSON.parse(/^data: (.+)$/m.exec(raw)?.[1] ?? 'null') as GenAiStreamEvent;
        expect(name).toBe(data.type);
        return data;
      }
      const r = await this.read();
      if (r.done) return null;
      this.chunks++;
      this.buf += this.decoder.decode(r.value, { stream: true });
    }
  }
  async rest(): Promise<GenAiStreamEvent[]> {
    const out: GenAiStreamEvent[] = [];
    for (let e = await this.next(); e; e = await this.next()) out.push(e);
    return out;
  }
}

const texts = (events: GenAiStreamEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.text] : []));

/**
 * The AI writing calls streamed through the distributed gateway (docs/decisions/0050): the provider's pieces reach the
 * client as the provider writes them (OpenAI SSE, Gemini SSE, Ollama NDJSON, each from a local server speaking its
 * wire format), the spec's JSON stays for clients that do not ask for a stream, failures before and after the first
 * piece have their codes, and a stream is bounded and cancelled with the provider's request when the client leaves.
 */
describe('generative AI answers streamed through the gateway', () => {
  let integrations: TestApp;
  let gateway: TestApp;
  let openai: GenAiWireServer;
  let gemini: GenAiWireServer;
  let ollama: GenAiWireServer;
  let token: string;

  const stream = async (path: string, body: unknown, format: 'ndjson' | 'sse' = 'ndjson', signal?: AbortSignal) => {
    const res = await fetch(`${gateway.url}/api${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: format === 'ndjson' ? 'application/x-ndjson' : 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });
    return new EventReader(res, format);
  };
  const usage = async (): Promise<Json[]> => (await (await fetch(`${gateway.url}/api/genai/usage`, { headers: { authorization: `Bearer ${token}` } })).json()) as Json[];
  const requestsCounted = async () => (await usage()).reduce((n, u) => n + Number(u.requests), 0);
  /** Waits up to 10 s of wall time (not a count of turns, which a loaded machine stretches past the test's timeout). */
  const until = async (probe: () => boolean | Promise<boolean>, what: string) => {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (await probe()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  };

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    [openai, gemini, ollama] = await Promise.all([startGenAiWireServer('openai'), startGenAiWireServer('gemini'), startGenAiWireServer('ollama', { key: '' })]);
    integrations = await createTestApp(() => ({
      imports: [
        IntegrationsModule.register({
          secret: 'test-secret-of-the-integrations-module',
          appUrl: 'http://console.test',
          allowPrivateUrls: true,
          pollMs: 0,
          // the idle bound stays well above a loaded machine's pauses; the whole answer's bound is below the test's
          genai: { allowPrivateBaseUrls: true, timeoutMs: 5000, streamIdleMs: 3000, streamMaxMs: 4000 },
        }),
      ],
    }));
    gateway = await createTestApp(() => ({
      imports: [GatewayModule.register({ mode: 'distributed', routes: { integrations: integrations.url } })],
      keys: integrations.keys,
      followAccounts: false,
    }));
    gateway.app.get(ReadinessService).markReady();
    token = integrations.token({ sub: `${ACCOUNT}00`, acc: ACCOUNT, perms: [...ALL_PERMISSIONS] });
    const bus = integrations.bus as InMemoryEventBus;
    await bus.publish([
      createEnvelope(
        CustomerUpdatedV1,
        { accountId: ACCOUNT, name: 'Acme', shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings: { allow_generative_ai: 1, allow_spintax_ai: 1 }, genSettings: { default_generative_service: 'openai' }, createdAt: '2026-01-01T00:00:00.000Z' },
        { source: 'accounts', accountId: ACCOUNT },
      ),
    ]);
    await bus.drain();
    for (const [service, s, extra] of [['openai', openai, { api_key: openai.key }], ['gemini', gemini, { api_key: gemini.key }], ['ollama', ollama, { model: 'llama3.2' }]] as const) {
      const res = await fetch(`${gateway.url}/api/genai/settings/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ service, base_url: s.url, ...extra }),
      });
      expect(res.status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await integrations?.close();
    await Promise.all([openai?.close(), gemini?.close(), ollama?.close()]);
    jest.restoreAllMocks();
  });

  beforeEach(() => {
    for (const s of [openai, gemini, ollama]) {
      s.misbehave = 'none';
      s.hold = false;
      s.requests.length = 0;
    }
  });

  it('streams a rephrase chunk by chunk: the first piece reaches the client while the provider is still writing', async () => {
    openai.reply = () => 'Hi there! Your parcel left our warehouse today.';
    openai.hold = true;
    const r = await stream('/inbox/rephrase', { text: 'ur parcel left today', tone: 'friendly' });
    expect(r.res.status).toBe(200);
    expect(r.res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(r.res.headers.get('cache-control')).toBe('no-cache, no-transform');
    // the provider holds the rest of its answer until released: this piece came through on its own
    expect(await r.next()).toEqual({ type: 'text', text: 'Hi ' });
    expect(r.chunks).toBe(1);
    openai.release();
    const rest = await r.rest();
    expect(r.chunks).toBeGreaterThan(1);
    expect(['Hi ', ...texts(rest)].join('')).toBe('Hi there! Your parcel left our warehouse today.');
    expect(rest.at(-1)).toEqual({ type: 'done', text: 'Hi there! Your parcel left our warehouse today.', service: 'openai', model: 'gpt-4o-mini', usage: { input: expect.any(Number), output: expect.any(Number) } });
    expect((openai.requests[0].body as Json).stream).toBe(true);
  });

  it("streams Gemini's and Ollama's wire formats too, as server-sent events when asked so, and keeps the JSON answer for other clients", async () => {
    gemini.reply = () => '```\nDear customer, your parcel was dispatched today.\n```';
    const g = await (await stream('/inbox/rephrase', { text: 'ur parcel left today', tone: 'formal', service: 'gemini' }, 'sse')).rest();
    expect(texts(g).length).toBeGreaterThan(3);
    expect(texts(g).join('')).toBe('```\nDear customer, your parcel was dispatched today.\n```');
    // the pieces are the provider's; the final answer is cleaned like the JSON one
    expect(g.at(-1)).toMatchObject({ type: 'done', text: 'Dear customer, your parcel was dispatched today.', service: 'gemini' });
    expect(gemini.requests[0].path).toContain(':streamGenerateContent?alt=sse');

    ollama.reply = () => 'We can move you to the yearly plan.';
    const o = await (await stream('/inbox/generate_message', { idea: 'yearly plan', max_length: 160, service: 'ollama' })).rest();
    expect(texts(o)).toEqual(['We ', 'can ', 'move ', 'you ', 'to ', 'the ', 'yearly ', 'plan.']);
    expect(o.at(-1)).toMatchObject({ type: 'done', text: 'We can move you to the yearly plan.', service: 'ollama', model: 'llama3.2' });

    const json = await fetch(`${gateway.url}/api/inbox/generate_message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ idea: 'yearly plan', max_length: 160, service: 'ollama' }),
    });
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(await json.json()).toMatchObject({ text: 'We can move you to the yearly plan.', service: 'ollama' });
    expect((ollama.requests.at(-1)?.body as Json).stream).toBe(false);
  });

  it('answers the plain JSON error before the first piece, and an error event after it', async () => {
    const key = openai.key;
    openai.key = 'sk-rotated';
    const refused = await stream('/inbox/rephrase', { text: 'x', tone: 'formal' });
    openai.key = key;
    expect(refused.res.status).toBe(400);
    expect(await refused.res.json()).toEqual({ code: 'E-0159', message: 'invalid token', status: 400 });
    expect((await stream('/inbox/rephrase', { text: '', tone: 'formal' })).res.status).toBe(400);

    const before = await requestsCounted();
    openai.reply = () => 'One two three four.';
    openai.misbehave = 'cut_stream';
    const cut = await (await stream('/inbox/rephrase', { text: 'x', tone: 'formal' })).rest();
    expect(cut).toEqual([{ type: 'text', text: 'One ' }, { type: 'error', code: 'E-GENAI_UNAVAILABLE', message: 'openai is unavailable', status: 502 }]);
    ollama.misbehave = 'stall_stream';
    ollama.reply = () => 'One two three four.';
    const stalled = await (await stream('/inbox/rephrase', { text: 'x', tone: 'formal', service: 'ollama' })).rest();
    expect(stalled).toEqual([{ type: 'text', text: 'One ' }, { type: 'error', code: 'E-CONNECTION_TIMEOUT', message: 'ollama did not answer in time', status: 504 }]);
    // AI spintax that does not parse is refused after its text streamed
    openai.misbehave = 'none';
    openai.reply = () => '{Hi|Hello {{firstName}}';
    const spintax = await (await stream('/inbox/spintax', { text: 'Hi {{firstName}}' })).rest();
    expect(spintax.at(-1)).toMatchObject({ type: 'error', code: 'E-GENAI_SPINTAX_INVALID', status: 422 });
    // failed answers are not counted; the refused spintax is (the provider answered)
    expect(await requestsCounted()).toBe(before + 1);
  });

  it('is bounded: a text past its length is cut and the provider request aborted, and so is an answer that never ends', async () => {
    // a first piece far past max_length, and the provider still writing after it
    openai.reply = () => `SALE${'!'.repeat(300)} ends Friday.`;
    openai.hold = true;
    const abandoned = openai.abandoned;
    const long = await (await stream('/inbox/generate_message', { idea: 'sale', max_length: 60 })).rest();
    expect(texts(long).join('')).toBe(`SALE${'!'.repeat(Math.ceil(60 * 1.2) + 20 - 4)}`);
    expect(long.at(-1)).toMatchObject({ type: 'done', text: `SALE${'!'.repeat(56)}` });
    await until(() => openai.abandoned === abandoned + 1, 'the provider request aborted');
    openai.release();

    // keep-alives every 100 ms: never silent, never done; the whole answer's bound (4 s here) ends it
    gemini.misbehave = 'trickle_stream';
    gemini.reply = () => 'One two three.';
    const geminiAbandoned = gemini.abandoned;
    const endless = await (await stream('/inbox/rephrase', { text: 'x', tone: 'formal', service: 'gemini' })).rest();
    expect(endless).toEqual([{ type: 'text', text: 'One ' }, { type: 'error', code: 'E-CONNECTION_TIMEOUT', message: 'gemini did not answer in time', status: 504 }]);
    await until(() => gemini.abandoned > geminiAbandoned, 'the endless provider request aborted');
    // two waits of up to 10 s and the 4 s bound: the test's own timeout above their sum
  }, 60_000);

  it('aborts the provider request when the client goes away mid-stream', async () => {
    openai.reply = () => 'Hello there, this answer is never read to its end.';
    openai.hold = true;
    const abandoned = openai.abandoned;
    const client = new AbortController();
    const r = await stream('/inbox/rephrase', { text: 'x', tone: 'formal' }, 'ndjson', client.signal);
    expect(await r.next()).toEqual({ type: 'text', text: 'Hello ' });
    client.abort();
    // the gateway drops its upstream call, the service sees its client gone and aborts the vendor's request
    await until(() => openai.abandoned === abandoned + 1, 'the provider request aborted');
    openai.release();
  });
});
