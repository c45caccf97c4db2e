import { Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ErrorCode, GENAI_STREAM_TYPES, type GenAiStreamEvent, type GenAiTextAnswer } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';

const log = new Logger('genai');

export type StreamFormat = 'ndjson' | 'sse';

/** The stream the client asks for in its Accept header, or null for the spec's JSON answer. */
export function streamFormat(accept: string | undefined): StreamFormat | null {
  const types = (accept ?? '').split(',').map((t) => t.split(';')[0].trim().toLowerCase());
  if (types.includes(GENAI_STREAM_TYPES.ndjson)) return 'ndjson';
  if (types.includes(GENAI_STREAM_TYPES.sse)) return 'sse';
  return null;
}

const frame = (format: StreamFormat, e: GenAiStreamEvent): string =>
  format === 'ndjson' ? `${JSON.stringify(e)}\n` : `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

function errorEvent(e: unknown): GenAiStreamEvent {
  if (e instanceof AppError) return { type: 'error', code: e.code, message: e.message, status: e.status };
  log.error(`a streamed answer failed: ${e instanceof Error ? e.message : String(e)}`);
  return { type: 'error', code: ErrorCode.General, message: 'the answer failed', status: 500 };
}

/**
 * Answers a writing call (docs/decisions/0050): the whole JSON, or, when the client asks for a stream in its Accept
 * header, the events of `stream` as NDJSON or server-sent events. The first event is awaited before the head is
 * written, so that whatever fails before the provider's first piece (input, permissions, a refused key, a provider
 * down) is the plain JSON error with its status; a failure after it is an `error` event. The client going away
 * aborts the stream, and with it the provider's request.
 */
export async function answerOrStream(
  req: Request,
  res: Response,
  json: () => Promise<GenAiTextAnswer>,
  stream: (signal: AbortSignal) => AsyncGenerator<GenAiStreamEvent>,
): Promise<void> {
  const format = streamFormat(req.headers.accept);
  if (!format) {
    res.status(200).json(await json());
    return;
  }
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const events = stream(gone.signal);
  const first = await events.next();
  res.status(200);
  res.setHeader('content-type', `${GENAI_STREAM_TYPES[format]}; charset=utf-8`);
  // no proxy may hold the pieces back (nginx buffers unless told), nor transform them
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  try {
    for (let r = first; !r.done; r = await events.next()) {
      if (gone.signal.aborted) break;
      res.write(frame(format, r.value));
    }
  } catch (e) {
    if (!gone.signal.aborted) res.write(frame(format, errorEvent(e)));
  } finally {
    await events.return(undefined);
    if (!res.writableEnded) res.end();
  }
}
