import { createHash, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { GatewayModule, ReadinessService } from '../src';

/** A replica of a service: answers its name, the body's hash, and its health. */
class Replica {
  server: http.Server;
  port = 0;
  served = 0;

  constructor(readonly name: string) {
    this.server = this.make();
  }

  private make(): http.Server {
    return http.createServer((req, res) => {
      if (req.url === '/api/health/live') return void res.end('{"status":"ok"}');
      const hash = createHash('sha256');
      req.on('data', (c: Buffer) => hash.update(c));
      req.on('end', () => {
        this.served++;
        res.writeHead(200, { 'content-type': 'application/json', 'x-replica': this.name });
        res.end(JSON.stringify({ replica: this.name, sha256: hash.digest('hex') }));
      });
    });
  }

  async start(port = 0): Promise<void> {
    if (!this.server.listening) this.server = this.make();
    await new Promise<void>((r) => this.server.listen(port, '127.0.0.1', () => r()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Dies like a killed process: the port closes and open connections drop. */
  async kill(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}

async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('gateway proxy over several replicas of a service', () => {
  const a = new Replica('a');
  const b = new Replica('b');
  let t: TestApp;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    await a.start();
    await b.start();
    const dead = `http://127.0.0.1:${await closedPort()}`;
    t = await createTestApp(() => ({
      imports: [GatewayModule.register({ mode: 'distributed', routes: { dispatch: `${dead}|${a.url}|${b.url}` }, proxy: { table: { vendors: 'dispatch' } } })],
    }));
    t.app.get(ReadinessService).markReady();
  });

  afterAll(async () => {
    await t.close();
    await a.kill().catch(() => undefined);
    await b.kill().catch(() => undefined);
    jest.restoreAllMocks();
  });

  const get = async () => {
    const res = await fetch(`${t.url}/api/vendors`, { headers: { connection: 'close' } });
    return { status: res.status, replica: res.headers.get('x-replica') };
  };

  it('answers every call while one replica is down, spreading them over the others', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, get));
    expect(answers.every((x) => x.status === 200)).toBe(true);
    expect(new Set(answers.map((x) => x.replica))).toEqual(new Set(['a', 'b']));
  });

  it('sends a body intact to the next replica when the first one refuses the connection', async () => {
    const body = randomBytes(300_000);
    const sha = createHash('sha256').update(body).digest('hex');
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${t.url}/api/vendors`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { sha256: string }).sha256).toBe(sha);
    }
  });

  it('keeps answering when a replica dies, and takes it back once it is up again', async () => {
    const port = a.port;
    await a.kill();
    const during = await Promise.all(Array.from({ length: 12 }, get));
    expect(during.map((x) => `${x.status} ${x.replica}`)).toEqual(Array.from({ length: 12 }, () => '200 b'));
    await a.start(port);
    const servedBefore = a.served;
    const deadline = Date.now() + 10_000;
    while (a.served === servedBefore && Date.now() < deadline) {
      await get();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(a.served).toBeGreaterThan(servedBefore);
  });
});
