import { ALL_PERMISSIONS, CustomerUpdatedV1, genAiContextBinding, InboxSpaceAccessChangedV1, type GenAiConversationContext } from '@switchboard/contracts';
import { createEnvelope, ProviderSecrets, type InMemoryEventBus } from '@switchboard/platform';
import { startGenAiWireServer as startWireServer, type GenAiWireServer as WireServer } from '@switchboard/platform/testing';
import { startIntegrations, type IntegrationsTestApp, type Json } from './support';

const CONTEXT_KEY = 'the-genai-context-key-of-tests';
const CONV = '3f1c2b7e-8f7a-4a55-9d6c-0a4c6b2f9e11';
const OTHER_CONV = '9a1c2b7e-8f7a-4a55-9d6c-0a4c6b2f9e12';

/**
 * Generative AI in the integrations service (docs/decisions/0041): settings with the key sealed, the key check, the
 * four writing calls gated by the account's switches and the AI permission, usage per day, against local servers
 * speaking OpenAI's, Gemini's and Ollama's wire formats; permission and isolation matrices for every route.
 */
describe('generative AI routes', () => {
  let app: IntegrationsTestApp;
  let openai: WireServer;
  let gemini: WireServer;
  let ollama: WireServer;
  const A = '41';
  const B = '42';
  let a: string;
  let b: string;

  const customer = (accountId: string, custom: Record<string, unknown>, gen: Record<string, unknown> = {}) =>
    createEnvelope(
      CustomerUpdatedV1,
      { accountId, name: `acct ${accountId}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings: custom, genSettings: gen, createdAt: '2026-01-01T00:00:00.000Z' },
      { source: 'accounts', accountId },
    );
  const publish = async (events: ReturnType<typeof customer>[]) => {
    const bus = app.t.bus as InMemoryEventBus;
    await bus.publish(events);
    await bus.drain();
  };
  const post = (path: string, body: unknown, token = a) => app.call('POST', path, { body, token });
  const sealContext = (accountId: string, conv: string, over: Partial<GenAiConversationContext> = {}) =>
    new ProviderSecrets(CONTEXT_KEY).seal(genAiContextBinding(accountId, conv), {
      ctx: JSON.stringify({
        accountId,
        conversationUuid: conv,
        goalId: 6,
        goalName: 'Upsell',
        goalText: 'Offer the yearly plan',
        messages: [
          { from: 'contact', text: 'Is there a cheaper option?' },
          { from: 'agent', text: 'Let me check for you.' },
          { from: 'contact', text: 'Thanks' },
        ],
        expiresAt: app.clock.now().getTime() + 120_000,
        ...over,
      } satisfies GenAiConversationContext),
    });

  beforeAll(async () => {
    [openai, gemini, ollama] = await Promise.all([startWireServer('openai'), startWireServer('gemini'), startWireServer('ollama', { key: '' })]);
    app = await startIntegrations({ genai: { contextKey: CONTEXT_KEY, allowPrivateBaseUrls: true, timeoutMs: 1500 } });
    a = app.member(A);
    b = app.member(B);
    await publish([customer(A, { allow_generative_ai: 1, allow_spintax_ai: 1 }, { default_generative_service: 'gemini' }), customer(B, { allow_generative_ai: 0, allow_spintax_ai: 0 })]);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([openai?.close(), gemini?.close(), ollama?.close()]);
  });
  beforeEach(() => {
    for (const s of [openai, gemini, ollama]) {
      s.misbehave = 'none';
      s.requests.length = 0;
    }
  });

  it('checks a key with genai/verify: "invalid token" when the vendor refuses it, stores nothing either way', async () => {
    const bad = await post('/genai/verify/openai/sk-wrong', { base_url: openai.url });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ code: 'E-0159', message: 'invalid token', status: 400 });
    expect((await post(`/genai/verify/openai/${openai.key}`, { base_url: openai.url })).body).toEqual({ status: 1, service: 'openai' });
    expect((await post(`/genai/verify/gemini/${gemini.key}`, { base_url: gemini.url })).body).toEqual({ status: 1, service: 'gemini' });
    expect((await post('/genai/verify/gemini/AIza-wrong', { base_url: gemini.url })).body).toMatchObject({ code: 'E-0159', message: 'invalid token' });
    expect((await post('/genai/verify/ollama/-', { base_url: ollama.url, model: 'llama3.2' })).body).toEqual({ status: 1, service: 'ollama' });
    expect((await post('/genai/verify/openai/-', { base_url: openai.url })).body).toMatchObject({ code: 'E-0159' });
    expect((await post('/genai/verify/mistral/x', {})).status).toBe(400);
    expect(await app.sql('SELECT * FROM integrations.genai_provider')).toEqual([]);
  });

  it('stores a provider only after the vendor accepted its key, sealed, and never answers or publishes the key', async () => {
    const refused = await post('/genai/settings/', { service: 'openai', api_key: 'sk-wrong', base_url: openai.url, model: 'gpt-4o-mini' });
    expect(refused.body).toMatchObject({ code: 'E-0159', message: 'invalid token' });
    expect(await app.sql('SELECT * FROM integrations.genai_provider')).toEqual([]);

    const saved = await post('/genai/settings/', { service: 'openai', api_key: openai.key, base_url: openai.url, model: 'gpt-4o-mini' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ default_generative_service: 'gemini', allow_generative_ai: true, allow_spintax_ai: true, providers: [{ service: 'openai', has_key: true, base_url: openai.url, model: 'gpt-4o-mini' }] });
    expect(saved.text).not.toContain(openai.key);
    const [row] = await app.sql('SELECT key_sealed FROM integrations.genai_provider WHERE account_id = $1', [A]);
    expect(row.key_sealed).toMatch(/^ps1:/);
    expect(row.key_sealed).not.toContain(openai.key);
    expect(JSON.stringify(app.events())).not.toContain(openai.key);
    expect((await app.call('GET', '/genai/settings', { token: a })).text).not.toContain(openai.key);

    // Gemini and a local Ollama (no key) beside it; the account's own default wins over genSettings'
    await post('/genai/settings/', { service: 'gemini', api_key: gemini.key, base_url: gemini.url });
    await post('/genai/settings/', { service: 'ollama', base_url: ollama.url, model: 'llama3.2' });
    const all = await post('/genai/settings/', { default_generative_service: 'openai' });
    expect(all.body.default_generative_service).toBe('openai');
    expect((all.body.providers as Json[]).map((p) => [p.service, p.has_key])).toEqual([['gemini', true], ['ollama', false], ['openai', true]]);
    // changing the model alone keeps the stored key (and checks it again)
    expect((await post('/genai/settings/', { service: 'openai', model: 'gpt-4o-mini' })).status).toBe(200);
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${openai.key}`);
    // bad input changes nothing
    expect((await post('/genai/settings/', { service: 'openai', api_key: 'x', base_url: 'ftp://x' })).status).toBe(400);
    expect((await post('/genai/settings/', {})).status).toBe(400);
    expect((await post('/genai/settings/', { service: 'gemini' , extra: 1 })).status).toBe(400);
  });

  it('rephrases in a tone with the default provider, sends only the text and the tone, and counts the tokens', async () => {
    openai.reply = () => 'Hi there! Your parcel left our warehouse today.';
    const r = await post('/inbox/rephrase', { text: 'ur parcel left today', tone: 'friendly' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ text: 'Hi there! Your parcel left our warehouse today.', service: 'openai', model: 'gpt-4o-mini' });
    const sent = openai.requests.find((q) => q.path.endsWith('/chat/completions'))?.body as Json;
    expect(sent.messages).toHaveLength(2);
    expect(sent.messages[0].content).toContain('friendly tone');
    expect(sent.messages[1]).toEqual({ role: 'user', content: 'ur parcel left today' });
    // another provider on request, and Ollama without a key
    gemini.reply = () => '```\nDear customer, your parcel was dispatched today.\n```';
    expect((await post('/inbox/rephrase', { text: 'ur parcel left today', tone: 'formal', service: 'gemini' })).body.text).toBe('Dear customer, your parcel was dispatched today.');
    expect((await post('/inbox/rephrase', { text: 'hello', tone: 'casual', service: 'ollama' })).body).toMatchObject({ service: 'ollama', text: 'Answer: hello' });
    const usage = (await app.call('GET', '/genai/usage', { token: a })).body as Json[];
    expect(usage.map((u) => [u.service, u.requests]).sort()).toEqual([['gemini', 1], ['ollama', 1], ['openai', 1]]);
    expect(usage.every((u) => u.input_tokens > 0 && u.output_tokens > 0 && u.day === '2026-03-02')).toBe(true);
    openai.reply = (m) => `Answer: ${[...m].reverse().find((x) => x.role === 'user')?.content ?? ''}`;
    // bad input
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'angry' })).status).toBe(400);
    expect((await post('/inbox/rephrase', { text: '', tone: 'friendly' })).status).toBe(400);
    expect((await post('/inbox/rephrase', { text: 'x'.repeat(2001), tone: 'friendly' })).status).toBe(400);
  });

  it('generates a message from an idea no longer than max_length', async () => {
    openai.reply = () => 'Our big sale ends this Friday: take 20% off everything in store and online before it is gone for the year!';
    const r = await post('/inbox/generate_message', { idea: 'sale ends friday, 20% off', max_length: 60 });
    expect(r.status).toBe(200);
    expect(r.body.text.length).toBeLessThanOrEqual(60);
    expect(r.body.text).toBe('Our big sale ends this Friday: take 20% off everything in');
    const sent = openai.requests.find((q) => q.path.endsWith('/chat/completions'))?.body as Json;
    expect(sent.messages[0].content).toContain('at most 60 characters');
    expect(sent.max_tokens).toBe(30);
    openai.reply = (m) => `Answer: ${[...m].reverse().find((x) => x.role === 'user')?.content ?? ''}`;
    expect((await post('/inbox/generate_message', { idea: 'x', max_length: 5000 })).status).toBe(400);
  });

  it('answers toward the goal from the context the inbox sealed, and refuses a context of another conversation, goal or account, or an old one', async () => {
    openai.reply = () => 'We have a yearly plan that saves 20% — shall I switch you?';
    const ok = await post(`/inbox/respond/${CONV}`, { conversation_goal_id: 6, context: sealContext(A, CONV) });
    expect(ok.status).toBe(200);
    expect(ok.body.text).toBe('We have a yearly plan that saves 20% — shall I switch you?');
    const sent = openai.requests.find((q) => q.path.endsWith('/chat/completions'))?.body as Json;
    expect(sent.messages[0].content).toContain('Upsell. Offer the yearly plan');
    expect(sent.messages[1].content).toBe("The conversation so far:\nCustomer: Is there a cheaper option?\nAgent: Let me check for you.\nCustomer: Thanks\n\nWrite the agent's next message.");
    expect((await post(`/inbox/respond/${CONV}`, { conversation_goal_id: '/api/conversation_goals/6', context: sealContext(A, CONV) })).status).toBe(200);

    const refused = async (path: string, body: unknown, token = a) => (await post(path, body, token)).body;
    expect(await refused(`/inbox/respond/${OTHER_CONV}`, { conversation_goal_id: 6, context: sealContext(A, CONV) })).toMatchObject({ code: '0x1', violations: [{ propertyPath: 'context' }] });
    expect(await refused(`/inbox/respond/${CONV}`, { conversation_goal_id: 7, context: sealContext(A, CONV) })).toMatchObject({ code: '0x1', violations: [{ propertyPath: 'conversation_goal_id' }] });
    expect(await refused(`/inbox/respond/${CONV}`, { conversation_goal_id: 6, context: sealContext(A, CONV, { expiresAt: app.clock.now().getTime() - 1 }) })).toMatchObject({ violations: [{ message: 'expired: ask the inbox again' }] });
    expect(await refused(`/inbox/respond/${CONV}`, { conversation_goal_id: 6, context: 'ps1:forged' })).toMatchObject({ code: '0x1' });
    // account B holding A's context: it is bound to A
    await publish([customer(B, { allow_generative_ai: 1 })]);
    expect(await refused(`/inbox/respond/${CONV}`, { conversation_goal_id: 6, context: sealContext(A, CONV) }, b)).toMatchObject({ code: '0x1', violations: [{ propertyPath: 'context' }] });
    await publish([customer(B, { allow_generative_ai: 0 })]);
    openai.reply = (m) => `Answer: ${[...m].reverse().find((x) => x.role === 'user')?.content ?? ''}`;
  });

  it('returns AI spintax only when the campaigns parser reads it and it invents no variable or word list', async () => {
    openai.reply = () => '{Hi|Hello} {{firstName}}, our sale ends {Friday|this Friday}.';
    const ok = await post('/inbox/spintax', { text: 'Hi {{firstName}}, our sale ends Friday.' });
    expect(ok.status).toBe(200);
    expect(ok.body.text).toBe('{Hi|Hello} {{firstName}}, our sale ends {Friday|this Friday}.');
    openai.reply = () => '{Hi|Hello {{firstName}}, our sale ends Friday.';
    const broken = await post('/inbox/spintax', { text: 'Hi {{firstName}}, our sale ends Friday.' });
    expect(broken.status).toBe(422);
    expect(broken.body).toMatchObject({ code: 'E-GENAI_SPINTAX_INVALID', violations: [{ propertyPath: 'text', code: 'position 1' }] });
    openai.reply = () => '{Hi|Hello} {{lastName}}, [[greetings]]';
    expect((await post('/inbox/spintax', { text: 'Hi {{firstName}}' })).body).toMatchObject({ code: 'E-GENAI_SPINTAX_INVALID', message: expect.stringContaining('{{lastName}}') });
    openai.reply = () => '{Hi|Hello} {{firstName}}, [[greetings]]';
    expect((await post('/inbox/spintax', { text: 'Hi {{firstName}}' })).body).toMatchObject({ code: 'E-GENAI_SPINTAX_INVALID', message: expect.stringContaining('[[greetings]]') });
    openai.reply = (m) => `Answer: ${[...m].reverse().find((x) => x.role === 'user')?.content ?? ''}`;
  });

  it('gives clear codes when the provider times out, is down, limits the rate or no longer accepts the key', async () => {
    openai.misbehave = 'hang';
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'formal' })).body).toMatchObject({ code: 'E-CONNECTION_TIMEOUT', status: 504 });
    openai.misbehave = 'server_error';
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'formal' })).body).toMatchObject({ code: 'E-GENAI_UNAVAILABLE', status: 502 });
    openai.misbehave = 'rate_limit';
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'formal' })).body).toMatchObject({ code: 'TOO_MANY_REQUESTS', status: 429 });
    openai.misbehave = 'none';
    const key = openai.key;
    openai.key = 'sk-rotated';
    const revoked = await post('/inbox/rephrase', { text: 'x', tone: 'formal' });
    openai.key = key;
    expect(revoked.body).toEqual({ code: 'E-0159', message: 'invalid token', status: 400 });
  });

  it('is gated by allow_generative_ai and allow_spintax_ai, and says when no provider is set up', async () => {
    await publish([customer(A, { allow_generative_ai: 0, allow_spintax_ai: 1 })]);
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'formal' })).body).toMatchObject({ code: 'E-GENAI_DISABLED', status: 403 });
    expect((await post('/inbox/spintax', { text: 'Hi there' })).status).toBe(200);
    await publish([customer(A, { allow_generative_ai: 1, allow_spintax_ai: 0 })]);
    expect((await post('/inbox/spintax', { text: 'Hi there' })).body).toMatchObject({ code: 'E-GENAI_DISABLED' });
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'formal' })).status).toBe(200);
    await publish([customer(A, { allow_generative_ai: true, allow_spintax_ai: '1' })]);
    // B may use AI now but has set nothing up
    await publish([customer(B, { allow_generative_ai: 1 })]);
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'formal' }, b)).body).toMatchObject({ code: 'E-GENAI_NOT_CONFIGURED', status: 409 });
    expect((await post('/inbox/rephrase', { text: 'x', tone: 'formal', service: 'openai' }, b)).body).toMatchObject({ code: 'E-GENAI_NOT_CONFIGURED' });
  });

  it('applies the per-space AI permission (update_permissions) to rephrase, generate_message and spintax, and refuses spaces of other accounts', async () => {
    const agent = app.member(A, ['INBOX_VIEW', 'INBOX_AI_ASSISTANT', 'CAMPAIGN_ADD_EDIT']); // user 4100
    const colleague = app.t.token({ sub: '4199', acc: A, perms: ['INBOX_VIEW', 'INBOX_AI_ASSISTANT'] });
    const inboxAdmin = app.member(A, ['INBOX_VIEW', 'INBOX_AI_ASSISTANT', 'INBOX_ADMIN']);
    const access = (accountId: string, spaces: Array<{ spaceId: string; members: string[]; aiRefused: string[] }>) => app.publish(InboxSpaceAccessChangedV1, { accountId, spaces }, 'inbox');
    // space 1: the agent may; space 2: taken away from them; space 3: not theirs; space 9: account B's
    await access(A, [
      { spaceId: '1', members: ['4100'], aiRefused: [] },
      { spaceId: '2', members: ['4100'], aiRefused: ['4100'] },
      { spaceId: '3', members: ['4101'], aiRefused: [] },
    ]);
    await access(B, [{ spaceId: '9', members: ['4200'], aiRefused: [] }]);
    const status = async (path: string, body: Json, token = agent) => {
      const r = await post(path, body, token);
      return r.status === 200 ? 200 : `${r.status} ${r.body.message}`;
    };
    const refusedHere = '403 missing permission in this space: INBOX_AI_ASSISTANT';
    const matrix: Array<[string, Json]> = [
      ['/inbox/rephrase', { text: 'x', tone: 'formal' }],
      ['/inbox/generate_message', { idea: 'x', max_length: 100 }],
    ];
    for (const [path, body] of matrix) {
      expect(await status(path, { ...body, space: 1 })).toBe(200);
      expect(await status(path, { ...body, space: '/api/spaces/1' })).toBe(200);
      expect(await status(path, { ...body, space: '2' })).toBe(refusedHere);
      expect(await status(path, { ...body, space: 3 })).toBe('403 you are not an agent of this space');
      expect(await status(path, { ...body, space: 3 }, inboxAdmin)).toBe(200);
      // another account's space is not found, and so is one the inbox never had
      expect(await status(path, { ...body, space: 9 })).toBe('404 space not found');
      expect(await status(path, { ...body, space: 77 })).toBe('404 space not found');
      // leaving the space out is no way around a space's refusal
      expect(await status(path, body)).toBe('403 missing permission in a space: INBOX_AI_ASSISTANT (name the space the call is made in)');
      expect(await status(path, body, colleague)).toBe(200);
      expect((await post(path, { ...body, space: 'x' })).status).toBe(400);
    }
    // the streamed form is refused the same way, before any piece
    const streamed = await app.call('POST', '/inbox/rephrase', { body: { text: 'x', tone: 'formal', space: 2 }, token: agent, headers: { accept: 'application/x-ndjson' } });
    expect(streamed.status).toBe(403);
    // a campaign's spintax is in no space; named from the inbox, the space's permission applies
    expect(await status('/inbox/spintax', { text: 'Hi there' })).toBe(200);
    expect(await status('/inbox/spintax', { text: 'Hi there', space: 1 })).toBe(200);
    expect(await status('/inbox/spintax', { text: 'Hi there', space: 2 })).toBe(refusedHere);
    expect(await status('/inbox/spintax', { text: 'Hi there', space: 9 })).toBe('404 space not found');
    // the space gives the permission back; an older snapshot arriving late does not undo that
    await access(A, [{ spaceId: '2', members: ['4100'], aiRefused: [] }]);
    expect(await status('/inbox/rephrase', { text: 'x', tone: 'formal', space: 2 })).toBe(200);
    const bus = app.t.bus as InMemoryEventBus;
    await bus.publish([createEnvelope(InboxSpaceAccessChangedV1, { accountId: A, spaces: [{ spaceId: '2', members: ['4100'], aiRefused: ['4100'] }] }, { source: 'inbox', accountId: A, occurredAt: new Date('2020-01-01T00:00:00Z') })]);
    await bus.drain();
    const [row] = await app.sql(`SELECT spaces FROM integrations.genai_space_access WHERE account_id = $1`, [A]);
    expect(row.spaces).toEqual([{ spaceId: '2', members: ['4100'], aiRefused: [] }]);
    await access(A, []);
  });

  it('takes the assistant away from inbox/respond at once: a context sealed before the space refused it no longer works', async () => {
    const agent = app.member(A, ['INBOX_VIEW', 'INBOX_AI_ASSISTANT']); // user 4100
    const access = (spaces: Array<{ spaceId: string; members: string[]; aiRefused: string[] }>) => app.publish(InboxSpaceAccessChangedV1, { accountId: A, spaces }, 'inbox');
    const respond = async (context: string, headers: Record<string, string> = {}) => {
      const r = await app.call('POST', `/inbox/respond/${CONV}`, { body: { conversation_goal_id: 6, context }, token: agent, headers });
      return r.status === 200 ? 200 : `${r.status} ${r.body.message}`;
    };
    await access([{ spaceId: '1', members: ['4100'], aiRefused: [] }]);
    // sealed by the inbox for the conversation's space, valid two minutes
    const ctx = sealContext(A, CONV, { spaceId: '1' });
    expect(await respond(ctx)).toBe(200);
    // the space takes the assistant away: the same context, well within its two minutes, is refused at once
    await access([{ spaceId: '1', members: ['4100'], aiRefused: ['4100'] }]);
    expect(await respond(ctx)).toBe('403 missing permission in this space: INBOX_AI_ASSISTANT');
    expect(await respond(ctx, { accept: 'application/x-ndjson' })).toBe('403 missing permission in this space: INBOX_AI_ASSISTANT');
    // taken out of the space's teams, or the space removed: refused too
    await access([{ spaceId: '1', members: [], aiRefused: [] }]);
    expect(await respond(ctx)).toBe('403 you are not an agent of this space');
    await access([]);
    expect(await respond(ctx)).toBe('404 space not found');
    // a context sealed before contexts named their space: refused while any space takes the assistant away
    await access([{ spaceId: '2', members: ['4100'], aiRefused: ['4100'] }]);
    expect(await respond(sealContext(A, CONV))).toBe('403 missing permission in a space: INBOX_AI_ASSISTANT (name the space the call is made in)');
    await access([]);
    expect(await respond(sealContext(A, CONV))).toBe(200);
  });

  it("keeps every account's settings, keys and usage to itself", async () => {
    const settingsB = (await app.call('GET', '/genai/settings', { token: b })).body;
    expect(settingsB.providers).toEqual([]);
    expect((await app.call('GET', '/genai/usage', { token: b })).body).toEqual([]);
    // A's sealed key copied onto B's row does not open: it is bound to A
    const [row] = await app.sql(`SELECT key_sealed FROM integrations.genai_provider WHERE account_id = $1 AND service = 'openai'`, [A]);
    await app.sql(`INSERT INTO integrations.genai_provider (account_id, service, key_sealed, base_url, model, updated_at) VALUES ($1, 'openai', $2, $3, 'gpt-4o-mini', now())`, [B, row.key_sealed, openai.url]);
    const stolen = await post('/inbox/rephrase', { text: 'x', tone: 'formal', service: 'openai' }, b);
    expect(stolen.body).toMatchObject({ code: 'E-GENAI_NOT_CONFIGURED', message: expect.stringContaining('enter it again') });
    await app.sql(`DELETE FROM integrations.genai_provider WHERE account_id = $1`, [B]);
    // B's default does not change A's
    expect((await post('/genai/settings/', { default_generative_service: 'ollama' }, b)).status).toBe(200);
    expect((await app.call('GET', '/genai/settings', { token: a })).body.default_generative_service).toBe('openai');
  });

  it('refuses every route without its permission or without a token', async () => {
    const ctx = sealContext(A, CONV);
    const routes: Array<[string, string, string[], unknown]> = [
      ['GET', '/genai/settings', ['SETTINGS_VIEW'], undefined],
      ['POST', '/genai/settings/', ['SETTINGS_EDIT'], { default_generative_service: 'openai' }],
      ['POST', `/genai/verify/openai/${openai.key}`, ['SETTINGS_EDIT'], { base_url: openai.url }],
      ['GET', '/genai/usage', ['SETTINGS_VIEW'], undefined],
      ['POST', '/inbox/rephrase', ['INBOX_VIEW', 'INBOX_AI_ASSISTANT'], { text: 'x', tone: 'formal' }],
      ['POST', '/inbox/generate_message', ['INBOX_VIEW', 'INBOX_AI_ASSISTANT'], { idea: 'x', max_length: 100 }],
      ['POST', `/inbox/respond/${CONV}`, ['INBOX_VIEW', 'INBOX_AI_ASSISTANT'], { conversation_goal_id: 6, context: ctx }],
      ['POST', '/inbox/spintax', ['CAMPAIGN_ADD_EDIT'], { text: 'Hi there' }],
    ];
    const outcome: string[] = [];
    for (const [method, path, needs, body] of routes) {
      outcome.push(`${method} ${path} anonymous ${(await app.call(method, path, { body })).status}`);
      outcome.push(`${method} ${path} with ${(await app.call(method, path, { body, token: app.member(A, needs) })).status}`);
      for (const missing of needs) {
        const perms = ALL_PERMISSIONS.filter((p) => p !== missing);
        outcome.push(`${method} ${path} without ${missing} ${(await app.call(method, path, { body, token: app.member(A, perms) })).status}`);
      }
    }
    const expected = routes.flatMap(([method, path, needs]) => [`${method} ${path} anonymous 401`, `${method} ${path} with 200`, ...needs.map((m) => `${method} ${path} without ${m} 403`)]);
    expect(outcome).toEqual(expected);
  });
});

describe('generative AI provider base URLs in production', () => {
  it('refuses private and plain-http base URLs unless the operator listed them', async () => {
    const app = await startIntegrations({ genai: { privateBaseUrls: ['http://127.0.0.1:9'] } });
    try {
      const t = app.member('51');
      const code = async (base: string) => (await app.call('POST', '/genai/verify/openai/sk-x', { body: { base_url: base }, token: t })).body;
      expect(await code('http://10.0.0.5/v1')).toMatchObject({ code: '0x1', violations: [{ propertyPath: 'base_url', message: 'https only' }] });
      expect(await code('https://169.254.169.254/latest')).toMatchObject({ violations: [{ propertyPath: 'base_url', message: expect.stringContaining('a public host') }] });
      expect(await code('https://user:pw@api.example.com/v1')).toMatchObject({ violations: [{ propertyPath: 'base_url' }] });
      // the operator's own Ollama is allowed (nothing listens there: unavailable, not refused)
      expect(await code('http://127.0.0.1:9/v1')).toMatchObject({ code: 'E-GENAI_UNAVAILABLE' });
    } finally {
      await app.close();
    }
  });
});
