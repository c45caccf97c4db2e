import * as http from 'node:http';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: unknown;
  comments: string[];
  retry?: number;
}

export interface SseConnection {
  status: number;
  headers: http.IncomingHttpHeaders;
  frames: SseFrame[];
  /** Error body when the status is not 200. */
  body: unknown;
  ended: boolean;
  /** Resolves with the frames seen once `check` holds. */
  waitFor(check: (frames: SseFrame[]) => boolean, what: string, ms?: number): Promise<SseFrame[]>;
  messages(): Array<{ id?: string; event?: string; data: { subject: string; accountId: string; [k: string]: unknown } }>;
  /** Stops reading the socket (a slow client), and starts again. */
  pause(): void;
  resume(): void;
  close(): void;
}

/** A minimal EventSource for tests: resolves once the response head arrives. */
export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let buf = '';
      const conn: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames: [],
        body: undefined,
        ended: false,
        waitFor: async (check, what, ms = 5000) => {
          const end = Date.now() + ms;
          while (!check(conn.frames)) {
            if (Date.now() > end) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(conn.frames)}`);
            await new Promise((r) => setTimeout(r, 10));
          }
          return conn.frames;
        },
        messages: () =>
          conn.frames
            .filter((f) => f.data !== undefined && f.id !== undefined)
            .map((f) => ({ id: f.id, event: f.event, data: f.data as { subject: string; accountId: string } })),
        close: () => {
          req.destroy();
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
      };
      res.setEncoding('utf8');
      if (conn.status !== 200) {
        let raw = '';
        res.on('data', (c: string) => (raw += c));
        res.on('end', () => {
          conn.body = raw ? JSON.parse(raw) : undefined;
          conn.ended = true;
          resolve(conn);
        });
        return;
      }
      res.on('data', (chunk: string) => {
        buf += chunk;
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          const frame: SseFrame = { comments: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('event: ')) frame.event = line.slice(7);
            else if (line.startsWith('retry: ')) frame.retry = Number(line.slice(7));
            else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
          }
          conn.frames.push(frame);
        }
      });
      res.on('end', () => (conn.ended = true));
      res.on('error', () => (conn.ended = true));
      resolve(conn);
    });
    req.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e);
    });
  });
}
