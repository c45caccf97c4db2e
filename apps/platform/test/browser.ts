import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

/** Calls `/api` from the page with the console's own token, as the console would. */
export function pageApi(page: () => Page) {
  return async <T = Record<string, unknown>>(method: string, url: string, body?: unknown): Promise<{ status: number; body: T }> =>
    page().evaluate(
      async ([m, u, b]) => {
        const w = globalThis as unknown as Record<'localStorage' | 'sessionStorage', { getItem: (k: string) => string | null }>;
        const token = w.localStorage.getItem('switchboard.token') ?? w.sessionStorage.getItem('switchboard.token');
        const r = await fetch(`/api${u}`, { method: m, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: b === undefined ? undefined : JSON.stringify(b) });
        const text = await r.text();
        return { status: r.status, body: text ? JSON.parse(text) : null };
      },
      [method, url, body] as const,
    );
}

/** Signs in through the login page with the PIN the embedded server's dev mailbox received; answers the PIN. */
export async function signInWithPin(page: Page, base: string, email: string, password: string, maskedEmail: string): Promise<string> {
  await page.goto(`${base}/login`);
  await page.getByTestId('login-email').fill(email);
  await page.getByTestId('login-password').fill(password);
  await page.getByTestId('login-submit').click();
  await page.getByText(maskedEmail).first().waitFor({ timeout: 15000 });
  const mail = (await (await fetch(`${base}/api/dev/mailbox`)).json()) as Array<{ text: string }>;
  const pin = /\b(\d{6})\b/.exec(mail[0]?.text ?? '')?.[1] ?? '';
  await page.keyboard.type(pin);
  return pin;
}
