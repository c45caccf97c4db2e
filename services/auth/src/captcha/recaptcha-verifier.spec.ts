import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { RecaptchaVerifier } from './recaptcha-verifier';

/** A local stand-in for Google's siteverify: form-encoded POST in, JSON out (documented wire format). */
describe('RecaptchaVerifier against a local siteverify', () => {
  let server: Server;
  let url: string;
  const received: Array<Record<string, string>> = [];
  let answer: (form: Record<string, string>) => { status: number; body: unknown; delayMs?: number } = () => ({ status: 200, body: { success: true } });

  const readForm = (req: IncomingMessage) =>
    new Promise<Record<string, string>>((resolve) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => resolve(Object.fromEntries(new URLSearchParams(raw))));
    });

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    server = createServer(async (req, res) => {
      const form = await readForm(req);
      received.push({ ...form, _method: req.method ?? '', _type: String(req.headers['content-type']) });
      const a = answer(form);
      setTimeout(() => {
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(a.body));
      }, a.delayMs ?? 0);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/recaptcha/api/siteverify`;
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    received.length = 0;
  });

  const verifier = (over: Partial<ConstructorParameters<typeof RecaptchaVerifier>[0]> = {}) =>
    new RecaptchaVerifier({ secret: 's3cret', siteverifyUrl: url, expectedAction: 'submit', ...over });

  it('posts secret, response and remoteip form-encoded and accepts a successful answer', async () => {
    answer = (f) => ({ status: 200, body: { success: f.response === 'good-token', score: 0.9, action: 'submit', hostname: 'app.example.com' } });
    expect(await verifier().verify('good-token', '203.0.113.9')).toBe(true);
    expect(received[0]).toMatchObject({ secret: 's3cret', response: 'good-token', remoteip: '203.0.113.9', _method: 'POST', _type: 'application/x-www-form-urlencoded' });
  });

  it('refuses an unsuccessful answer', async () => {
    answer = () => ({ status: 200, body: { success: false, 'error-codes': ['invalid-input-response'] } });
    expect(await verifier().verify('bad', null)).toBe(false);
  });

  it('refuses a low score and a different action', async () => {
    answer = () => ({ status: 200, body: { success: true, score: 0.2, action: 'submit' } });
    expect(await verifier().verify('t', null)).toBe(false);
    answer = () => ({ status: 200, body: { success: true, score: 0.9, action: 'login' } });
    expect(await verifier().verify('t', null)).toBe(false);
  });

  it('accepts a v2 answer without score', async () => {
    answer = () => ({ status: 200, body: { success: true } });
    expect(await verifier().verify('t', null)).toBe(true);
  });

  it('checks the hostname when hostnames are configured', async () => {
    answer = () => ({ status: 200, body: { success: true, hostname: 'evil.example' } });
    expect(await verifier({ hostnames: ['app.example.com'] }).verify('t', null)).toBe(false);
  });

  it('fails closed: no token, an HTTP error, a timeout, an unreachable server', async () => {
    expect(await verifier().verify(undefined, null)).toBe(false);
    expect(received).toHaveLength(0);
    answer = () => ({ status: 500, body: {} });
    expect(await verifier().verify('t', null)).toBe(false);
    answer = () => ({ status: 200, body: { success: true }, delayMs: 300 });
    expect(await verifier({ timeoutMs: 50 }).verify('t', null)).toBe(false);
    expect(await verifier({ siteverifyUrl: 'http://127.0.0.1:1/siteverify' }).verify('t', null)).toBe(false);
  });
});
