import * as net from 'node:net';

/** A TCP hop between a service and PostgreSQL that can be cut, as a database outage or a network partition is. */
export class CuttableLink {
  private server = net.createServer((client) => this.accept(client));
  private readonly open = new Set<net.Socket>();
  target = { host: '127.0.0.1', port: 5432 };
  down = false;
  port = 0;

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  private accept(client: net.Socket): void {
    client.on('error', () => undefined);
    if (this.down) return void client.destroy();
    const upstream = net.connect(this.target.port, this.target.host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    for (const s of [client, upstream]) {
      this.open.add(s);
      s.on('close', () => this.open.delete(s));
    }
    client.pipe(upstream).pipe(client);
  }

  cut(): void {
    this.down = true;
    for (const s of this.open) s.destroy();
  }

  restore(): void {
    this.down = false;
  }

  stop(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
