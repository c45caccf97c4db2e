import { type Page } from 'playwright-core';
import { pageApi, signInWithPin, startConsole, type ConsoleSession, until } from './browser';

/**
 * The dialer's one click (issue 18, decision 0040): the dialer asks for a conversation with its caller using its
 * integration token, and the console link it gets opens the inbox's new conversation with the caller's number filled
 * in (Chromium, the embedded server).
 */
describe('the dialer opens a new inbox conversation in one click (Chromium, embedded server)', () => {
  let session: ConsoleSession;
  let page: Page;
  const api = pageApi(() => page);

  beforeAll(async () => {
    session = await startConsole('dialer');
    page = session.page;
  }, 300000);
  afterAll(async () => {
    await session?.stop();
  });

  it("fills in the caller's number from the dialer's link", async () => {
    await signInWithPin(page, session.base, 'admin@example.com', 'browser password', 'a***@example.com');
    await page.waitForURL('**/home', { timeout: 20000 });
    const me = (await api<{ id: number }>('GET', '/users/connected')).body;
    const space = await api<{ id: number }>('POST', '/spaces', { name: 'Calls' });
    expect(space.status).toBe(201);
    await until(
      () => api('POST', '/teams', { name: 'Phones', space: `/api/spaces/${space.body.id}`, agents: [`/api/agents/${me.id}`] }),
      (r) => r.status === 201,
      'the team (the agents read model fills from auth events)',
    );
    const dialer = await api<{ token: string }>('POST', '/integration_keys/manual_install', { type: 'dialer' });
    expect(dialer.status).toBe(201);
    // the dialer's own call: no console session, its integration token
    const res = await fetch(`${session.base}/api/integration_keys/dialer/conversation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-integration-token': dialer.body.token },
      body: JSON.stringify({ phone: '+447911123456', name: 'Jane Caller' }),
    });
    expect(res.status).toBe(201);
    const link = (await res.json()) as { url: string; contactKey: string };
    expect(new URL(link.url).search).toBe(`?action=newDialerConv&contact_key=${link.contactKey}`);

    await page.goto(`${session.base}/inbox${new URL(link.url).search}`);
    await until(() => page.getByTestId('send-phone').inputValue().catch(() => ''), (v) => v === '+447911123456', "the caller's number in the new conversation");
    // the link's parameters are used once: the address no longer carries them
    expect(new URL(page.url()).search).not.toContain('contact_key');
    await session.shot('01-dialer-new-conversation');
    expect(session.errors).toEqual([]);
  });
});
