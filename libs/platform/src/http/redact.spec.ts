import { redactSecrets, redactUrl, RedactingLogger } from './redact';

describe('log redaction', () => {
  it('redacts token-, password- and key-like query parameters and keeps the rest of the URL', () => {
    expect(redactUrl('/api/task/download?id=3&access_token=eyJ.a.b')).toBe('/api/task/download?id=3&access_token=[REDACTED]');
    expect(redactUrl('/realtime?topic=a&ACCESS_TOKEN=x&topic=b')).toBe('/realtime?topic=a&ACCESS_TOKEN=[REDACTED]&topic=b');
    expect(redactUrl('/x?refresh_token=r&password=p&api_key=k&apiKey=k2&client_secret=s&token=t&sig=g&id=7')).toBe(
      '/x?refresh_token=[REDACTED]&password=[REDACTED]&api_key=[REDACTED]&apiKey=[REDACTED]&client_secret=[REDACTED]&token=[REDACTED]&sig=[REDACTED]&id=7',
    );
    expect(redactUrl('/api/users?page=2&order[name]=asc')).toBe('/api/users?page=2&order[name]=asc');
  });

  it('redacts the key in the generative-AI key check path', () => {
    expect(redactUrl('/api/genai/verify/openai/sk-proj-abc123?x=1')).toBe('/api/genai/verify/openai/[REDACTED]?x=1');
    expect(redactSecrets('POST /api/genai/verify/gemini/AIzaSyA-1234 failed')).toBe('POST /api/genai/verify/gemini/[REDACTED] failed');
    expect(redactUrl('/api/genai/settings/')).toBe('/api/genai/settings/');
  });

  it('redacts the password of a URL and keeps the rest', () => {
    expect(redactSecrets('connect failed: postgres://switchboard:s3cret-pw@db:5432/sb (ECONNREFUSED)')).toBe('connect failed: postgres://switchboard:[REDACTED]@db:5432/sb (ECONNREFUSED)');
    expect(redactSecrets('smtp://mail.example.com:587 and http://127.0.0.1:3000/api')).toBe('smtp://mail.example.com:587 and http://127.0.0.1:3000/api');
  });

  it('redacts bearer tokens and Telegram bot tokens in messages', () => {
    expect(redactSecrets('upstream said: Authorization: Bearer eyJhbGciOi.payload.sig rejected')).toBe('upstream said: Authorization: Bearer [REDACTED] rejected');
    expect(redactSecrets('GET https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe failed')).toBe('GET https://api.telegram.org/bot[REDACTED]/getMe failed');
  });

  it('redacts what any caller logs, errors and their stacks included', () => {
    const lines: unknown[][] = [];
    const inner = { log: (...a: unknown[]) => lines.push(a), error: (...a: unknown[]) => lines.push(a), warn: (...a: unknown[]) => lines.push(a) };
    const logger = new RedactingLogger(inner);
    logger.warn('GET /api/x?access_token=secret1: unavailable', 'Proxy');
    logger.error(new Error('fetch https://h/cb?token=secret2 failed'));
    const text = JSON.stringify(lines.map((l) => l.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : a))));
    expect(text).not.toMatch(/secret1|secret2/);
    expect(text).toContain('access_token=[REDACTED]');
    expect(lines[0][1]).toBe('Proxy');
  });
});
