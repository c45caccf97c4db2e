import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A JSON answer, or bytes (`raw`) with their headers. */
export interface PeerAnswer {
  status: number;
  body: unknown;
  raw?: Buffer;
  headers?: Record<string, string>;
}

export type Handler = (req: IncomingMessage, body: string) => PeerAnswer | Promise<PeerAnswer>;

/** A small JSON HTTP server on 127.0.0.1 for the provider peers. */
export class HttpPeer {
  private server: Server;

  constructor(handler: Handler) {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        Promise.resolve(handler(req, Buffer.concat(chunks).toString('utf8'))).then(
          (out) => {
            if (out.raw) {
              // `chunked`: no Content-Length, the bytes in pieces (a peer that does not say how much is coming)
              const { chunked, ...headers } = out.headers ?? {};
              res.writeHead(out.status, { 'content-type': 'application/octet-stream', ...(chunked ? {} : { 'content-length': String(out.raw.length) }), ...headers });
              if (!chunked) {
                res.end(out.raw);
                return;
              }
              for (let i = 0; i < out.raw.length; i += 64 * 1024) res.write(out.raw.subarray(i, i + 64 * 1024));
              res.end();
              return;
            }
            res.writeHead(out.status, { 'content-type': 'application/json', ...out.headers });
            res.end(JSON.stringify(out.body));
          },
          (e: unknown) => {
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: String(e) }));
          },
        );
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
