/**
 * One promise for many queued items: `done` once per item that committed, `fail` once per item that failed; the promise
 * settles when every item did, rejecting with the first failure. One pair of callbacks for all the items of a chunk,
 * not a promise per item (docs/decisions/0077, 0173).
 */
export function countdown(items: number, settle: { resolve: () => void; reject: (e: unknown) => void }): { done: () => void; fail: (error: unknown) => void } {
  let left = items;
  let failure: { error: unknown } | null = null;
  const done = () => {
    if (--left > 0) return;
    if (failure) settle.reject(failure.error);
    else settle.resolve();
  };
  const fail = (error: unknown) => {
    failure ??= { error };
    done();
  };
  return { done, fail };
}
