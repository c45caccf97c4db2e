import { type Page } from 'playwright-core';
import { SmppPeer } from '@switchboard/dispatch';
import { startGenAiWireServer as startWireServer, type GenAiWireServer as WireServer } from '@switchboard/platform/testing';
import { pageApi, signInWithPin, startConsole, type ConsoleSession, until } from './browser';

const OUR_NUMBER = '+4930222222';
const CUSTOMER = '491700000042';

/**
 * Generative AI in the console (Chromium, the embedded server): the account's AI settings take an OpenAI-format key
 * (checked by a local server speaking OpenAI's chat-completions format), and an agent rephrases a draft in the inbox
 * composer with it; a refused key shows "invalid token" (docs/decisions/0041).
 */
describe('generative AI in the console (Chromium, embedded server, local OpenAI-format server)', () => {
  let session: ConsoleSession;
  let page: Page;
  let openai: WireServer;
  let smsc: SmppPeer;
  let smscPort = 0;
  const api = pageApi(() => page);

  beforeAll(async () => {
    openai = await startWireServer('openai', { key: 'sk-console-test' });
    smsc = new SmppPeer({ receiptDelayMs: 100 });
    smscPort = await smsc.listen();
    session = await startConsole('genai');
    page = session.page;
  }, 150000);
  afterAll(async () => {
    await session?.stop();
    await smsc?.close();
    await openai?.close();
  });

  it('sets OpenAI up on the AI settings page: a wrong key is "invalid token", the right one is stored', async () => {
    await signInWithPin(page, session.base, 'admin@example.com', 'browser password', 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });
    const me = (await api<{ customer: { id: number } }>('GET', '/users/connected')).body;
    expect((await api('PUT', `/customers/${me.customer.id}`, { customSettings: { allow_generative_ai: true, allow_spintax_ai: true } })).status).toBe(200);

    await page.getByTestId('menu-genai').click();
    await page.getByTestId('genai-settings').waitFor();
    // the account's switch reaches integrations through the accounts events
    await until(async () => (await api<{ allow_generative_ai: boolean }>('GET', '/genai/settings')).body.allow_generative_ai, (v) => v === true, 'allow_generative_ai in integrations');
    await page.reload();
    await page.getByTestId('genai-tab-openai').click();
    const form = page.getByTestId('genai-form-openai');
    await form.getByTestId('genai-key').fill('sk-wrong');
    await form.getByTestId('genai-base-url').fill(openai.url);
    await form.getByTestId('genai-model').fill('gpt-4o-mini');
    await form.getByTestId('genai-verify').click();
    await expect(form.getByTestId('genai-notice-error').textContent()).resolves.toContain('Invalid token');
    await form.getByTestId('genai-key').fill('sk-console-test');
    await form.getByTestId('genai-save').click();
    await form.getByTestId('genai-notice-success').waitFor();
    await expect(form.getByText('A key is stored').count()).resolves.toBe(1);
    await page.getByRole('combobox', { name: 'Default provider' }).click();
    await page.getByTestId('genai-default-openai').click();
    await until(async () => (await api<{ default_generative_service: string | null }>('GET', '/genai/settings')).body.default_generative_service, (v) => v === 'openai', 'the default provider');
    await session.shot('01-ai-settings');
    // the key never comes back
    expect(JSON.stringify((await api('GET', '/genai/settings')).body)).not.toContain('sk-console-test');
  }, 90000);

  it('rephrases the draft in the inbox composer in the chosen tone, answers toward a goal, and shows the tokens used', async () => {
    const me = (await api<{ id: number }>('GET', '/users/connected')).body;
    const vendor = await api<{ id: number }>('POST', '/service_type_manager/vendor', {
      name: 'Local SMSC', service_type: 'sms', adapter: 'smpp', active: true, carrier: 'Local', product_name: 'SMS', product_id: 'local-sms', currency: 'EUR',
      config: { host: '127.0.0.1', port: smscPort, systemId: 'dispatch', password: 'secret', moRegion: 'DE', reconnectMs: 100 },
    });
    expect(vendor.status).toBe(201);
    expect((await api('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    await until(() => smsc.binds, (n) => n > 0, 'the SMPP bind');
    const sender = await api<{ id: number }>('POST', '/senders', { name: 'Support line', value: OUR_NUMBER });
    expect((await api('PUT', `/senders/superadmin/${sender.body.id}`, { approved: 1 })).status).toBe(200);
    const stream = await api<{ id: number }>('POST', '/streams', { name: 'Support SMS', streamType: 4, sender: OUR_NUMBER });
    expect(stream.status).toBe(201);
    const streamUid = (await api<{ streamUid: string }>('GET', `/streams/${stream.body.id}`)).body.streamUid;
    const space = await api<{ id: number }>('POST', '/spaces', { name: 'Customer care' });
    const team = await until(
      () => api<{ id: number }>('POST', '/teams', { name: 'First line', space: `/api/spaces/${space.body.id}`, agents: [`/api/agents/${me.id}`] }),
      (r) => r.status === 201,
      'the team (the agents read model fills from auth events)',
    );
    expect((await api('POST', '/incoming_routings', { name: 'Support SMS', stream: streamUid, team: `/api/teams/${team.body.id}`, space: `/api/spaces/${space.body.id}` })).status).toBe(201);

    await page.getByTestId('menu-inbox').click();
    await page.getByTestId('inbox-workspace').waitFor();
    await until(() => page.getByTestId('live-state').getAttribute('data-state'), (s) => s === 'open', 'the live connection');
    smsc.sendMo(CUSTOMER, OUR_NUMBER.slice(1), 'where is my parcel?');
    const row = page.getByTestId('conversation-row').first();
    await row.waitFor({ timeout: 30000 }).catch(async (e: Error) => {
      // say where the message went: kept aside by dispatch (no owner yet), or stored and not shown
      const aside = await api('GET', '/dispatch/inbound_unclaimed');
      const stored = await api('GET', `/inbox/conversations?space=${space.body.id}`);
      throw new Error(`${e.message}\nkept aside: ${JSON.stringify(aside.body)}\nconversations: ${JSON.stringify(stored.body).slice(0, 2000)}`);
    });
    await row.click();
    await page.getByTestId('message-incoming').last().waitFor();

    openai.requests.length = 0;
    openai.reply = (messages) => (messages[0]?.content.includes('friendly tone') ? 'Hi! Good news: your parcel left our warehouse today 😊' : 'unexpected prompt');
    await page.getByTestId('composer-input').fill('ur parcel left today');
    // the provider holds its answer after the first piece: the draft shows that piece while the rest is being written
    openai.hold = true;
    await page.getByTestId('composer-ai').click();
    await page.getByTestId('ai-rephrase-friendly').click();
    await until(() => page.getByTestId('composer-input').inputValue(), (v) => v === 'Hi! ', 'the first streamed piece in the draft');
    await page.getByTestId('composer-ai-stop').waitFor();
    await session.shot('02-streaming');
    openai.release();
    await until(() => page.getByTestId('composer-input').inputValue(), (v) => v === 'Hi! Good news: your parcel left our warehouse today 😊', 'the rephrased draft');
    await page.getByTestId('composer-ai').waitFor();
    const sent = openai.requests.find((r) => r.path.endsWith('/chat/completions'))?.body as { messages: Array<{ role: string; content: string }> };
    expect(sent.messages[1]).toEqual({ role: 'user', content: 'ur parcel left today' });
    // the contact's number is not in the prompt
    expect(JSON.stringify(sent)).not.toContain(CUSTOMER);
    await session.shot('03-rephrased');

    // toward a goal: the inbox seals the goal and the last messages, integrations answers from them
    const goal = await api<{ id: number }>('POST', '/conversation_goals', { name: 'Upsell', text: 'Offer the yearly plan', teams: [`/api/teams/${team.body.id}`], space: `/api/spaces/${space.body.id}` });
    expect(goal.status).toBe(201);
    openai.requests.length = 0;
    openai.reply = (messages) => (messages[0]?.content.includes('Offer the yearly plan') ? 'We can move you to the yearly plan and save 20%.' : 'unexpected prompt');
    await page.getByTestId('composer-ai').click();
    await page.getByTestId(`ai-respond-${goal.body.id}`).click();
    await until(() => page.getByTestId('composer-input').inputValue(), (v) => v === 'We can move you to the yearly plan and save 20%.', 'the answer toward the goal');
    const asked = openai.requests.find((r) => r.path.endsWith('/chat/completions'))?.body as { messages: Array<{ role: string; content: string }> };
    expect(asked.messages[1].content).toContain('Customer: where is my parcel?');
    expect(JSON.stringify(asked)).not.toContain(CUSTOMER);

    // Stop while the AI writes: the provider's request is aborted and the text so far stays in the draft
    openai.reply = () => 'Let me check that for you right away.';
    openai.hold = true;
    const abandoned = openai.abandoned;
    await page.getByTestId('composer-ai').click();
    await page.getByTestId('ai-rephrase-concise').click();
    await until(() => page.getByTestId('composer-input').inputValue(), (v) => v === 'Let ', 'the first piece before stopping');
    await page.getByTestId('composer-ai-stop').click();
    await until(() => openai.abandoned, (n) => n === abandoned + 1, 'the provider request aborted');
    openai.release();
    await page.getByTestId('composer-ai').waitFor();
    await expect(page.getByTestId('composer-input').inputValue()).resolves.toBe('Let ');
    await page.getByTestId('composer-input').fill('We can move you to the yearly plan and save 20%.');

    // a provider that no longer takes the key: the composer says so and keeps the draft (a failed call is not counted)
    openai.key = 'sk-rotated';
    await page.getByTestId('composer-ai').click();
    await page.getByTestId('ai-rephrase-formal').click();
    await expect(page.getByTestId('ai-error').textContent()).resolves.toContain('Invalid token');
    await expect(page.getByTestId('composer-input').inputValue()).resolves.toBe('We can move you to the yearly plan and save 20%.');

    // the tokens used show on the AI settings page
    openai.key = 'sk-console-test';
    await page.getByTestId('menu-genai').click();
    await until(() => page.getByTestId('genai-usage-row').count(), (n) => n === 1, 'the usage row');
    // rephrase, the answer toward the goal, and the stopped one (the provider had begun answering); not the refused key
    await expect(page.getByTestId('genai-usage-row').locator('td').nth(2).textContent()).resolves.toBe('3');
    expect(session.errors).toEqual([]);
  }, 120000);
});
