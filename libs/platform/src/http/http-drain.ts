import type { Server, ServerResponse } from 'node:http';

/** How long a closing server waits for answers in flight before it closes the connections still open. */
export const HTTP_DRAIN_GRACE_MS = 10_000;

/**
 * A closing HTTP server drains instead of waiting on its clients (issue 17, "a drain on SIGTERM"): Node's
 * `server.close()` stops accepting connections and waits for the open ones to end, and closes idle keep-alive
 * connections once; a client that keeps its keep-alive connections busy (the gateway's proxy, the drill's load, any
 * HTTP client under load) kept a SIGTERMed gateway alive for over a minute in the fault drill, until it was killed with
 * its answers in flight. Once closing, every answer not yet started says `connection: close` (the client opens its
 * next request elsewhere), idle connections end (Node's close, or its 5 s keep-alive timeout), and after `graceMs` the
 * connections still open are closed.
 */
export function drainOnClose(server: Server, graceMs = HTTP_DRAIN_GRACE_MS): void {
  let draining = false;
  const inFlight = new Set<ServerResponse>();
  const sayClose = (res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('connection', 'close');
  };
  // before the application's own listener: the header must be set before an answer can start
  server.prependListener('request', (_req, res) => {
    if (draining) return sayClose(res);
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const close = server.close.bind(server);
  server.close = ((callback?: (err?: Error) => void) => {
    if (!draining) {
      draining = true;
      // answers not yet started close their connection behind them; idle connections end now (Node's close) or at
      // its keep-alive timeout, before another request could race the close on them
      for (const res of inFlight) sayClose(res);
      inFlight.clear();
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      force.unref();
      server.once('close', () => clearTimeout(force));
    }
    close(callback);
    return server;
  }) as Server['close'];
}
