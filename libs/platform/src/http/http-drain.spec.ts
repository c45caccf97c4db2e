import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainOnClose } from './http-drain';

/** One request on `agent`: its status, its `connection` header, or the error that ended it. */
function get(port: number, agent: Agent, path = '/'): Promise<{ status?: number; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
    });
    req.on('error', (e) => resolve({ error: e.message }));
    req.end();
  });
}

describe('an HTTP server closing (SIGTERM) drains', () => {
  const servers: Server[] = [];
  const agents: Agent[] = [];
  afterEach(() => {
    for (const a of agents.splice(0)) a.destroy();
    for (const s of servers.splice(0)) s.closeAllConnections();
  });

  async function start(handler: (path: string) => Promise<void>, graceMs?: number) {
    const server = createServer((req, res) => void handler(req.url ?? '/').then(() => res.end('ok')));
    drainOnClose(server, graceMs);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    agents.push(agent);
    return { server, agent, port: (server.address() as AddressInfo).port };
  }

  it('closes while a client keeps its keep-alive connections busy: answers in flight finish, the next say connection: close', async () => {
    let release = () => undefined as void;
    const held = new Promise<void>((r) => (release = r));
    const { server, agent, port } = await start((path) => (path === '/slow' ? held : Promise.resolve()));
    // a client that never lets its connections fall idle, as a loaded gateway's clients do
    let sending = true;
    const answers: Array<Awaited<ReturnType<typeof get>>> = [];
    const loop = (async () => {
      while (sending) answers.push(await get(port, agent));
    })();
    const slow = get(port, agent, '/slow');
    while (answers.length < 20) await new Promise((r) => setImmediate(r));

    let closed = false;
    server.close(() => (closed = true));
    const atClose = answers.length;
    release();
    while (!closed) await new Promise((r) => setTimeout(r, 10));
    sending = false;
    await loop;

    // the request in flight at close got its answer, telling the client to open its next one elsewhere; every answer
    // on a kept connection after the close began said so too
    expect(await slow).toEqual({ status: 200, connection: 'close' });
    expect(answers.slice(0, atClose).every((a) => a.status === 200)).toBe(true);
    expect(answers.slice(atClose).filter((a) => a.status === 200 && a.connection !== 'close')).toEqual([]);
  });

  it('closes the connections still open once the grace has passed (an answer that never comes)', async () => {
    const { server, agent, port } = await start(() => new Promise<void>(() => undefined), 200);
    const hanging = get(port, agent, '/never');
    await new Promise((r) => setTimeout(r, 50));
    const closed = new Promise<void>((r) => server.close(() => r()));
    await closed;
    expect(await hanging).toMatchObject({ error: expect.any(String) });
  });
});
