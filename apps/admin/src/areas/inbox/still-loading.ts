import { STILL_LOADING_RETRIES, STILL_LOADING_RETRY_MS } from './constants';

/** Thrown when a timeline is still being prepared after every retry (spec 8 "still_loading"). */
export class StillLoadingError extends Error {
  constructor() {
    super('still_loading');
  }
}

/** An answer or an error that says the history is still being prepared (HTTP 202 `{ message: 'still_loading' }`). */
export const isStillLoading = (x: unknown): boolean => {
  if (!x || typeof x !== 'object') return false;
  if ((x as { message?: unknown }).message === 'still_loading') return true;
  const body = (x as { body?: { message?: unknown } }).body;
  return !!body && body.message === 'still_loading';
};

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new DOMException('aborted', 'AbortError'));
    });
  });

/**
 * Spec 4: asks `once()`; while it answers (or fails with) "still_loading" it asks again, up to 5 more times at 3 s
 * intervals, then throws StillLoadingError. `onRetry` is told which retry is next (1..5).
 */
export async function withStillLoadingRetry<T>(once: () => Promise<T>, opts: { signal?: AbortSignal; onRetry?: (attempt: number) => void; retryMs?: number } = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let answer: T | undefined;
    try {
      answer = await once();
    } catch (e) {
      if (!isStillLoading(e)) throw e;
    }
    if (answer !== undefined && !isStillLoading(answer)) return answer;
    if (attempt >= STILL_LOADING_RETRIES) throw new StillLoadingError();
    opts.onRetry?.(attempt + 1);
    await sleep(opts.retryMs ?? STILL_LOADING_RETRY_MS, opts.signal);
  }
}
