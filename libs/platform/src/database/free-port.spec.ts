import * as net from 'node:net';
import { freePort } from './embedded-postgres';

describe('freePort', () => {
  it('never tells two callers of one process the same port, and each port it gives can be bound', async () => {
    const ports: number[] = [];
    // a test that starts a dozen services asks in a row before any of them binds
    for (let i = 0; i < 600; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports.slice(0, 20)) {
      await new Promise<void>((resolve, reject) => {
        const srv = net.createServer();
        srv.on('error', reject);
        srv.listen(port, '127.0.0.1', () => srv.close(() => resolve()));
      });
    }
  });

  it("draws below the ephemeral range, from this jest worker's own band", async () => {
    const worker = Number(process.env.JEST_WORKER_ID ?? 0) % 6;
    for (let i = 0; i < 50; i++) {
      const port = await freePort();
      expect(port).toBeGreaterThanOrEqual(20000 + worker * 2000);
      expect(port).toBeLessThan(20000 + (worker + 1) * 2000);
    }
  });
});
