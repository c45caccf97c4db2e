import { useEffect, useRef, useState } from 'react';

/** Calls `fn` every `ms` while `active`; the latest `fn` is used, so callers need not memoise it. */
export function useInterval(fn: () => void, ms: number, active = true): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return undefined;
    const timer = window.setInterval(() => saved.current(), ms);
    return () => window.clearInterval(timer);
  }, [ms, active]);
}

/** `value`, once it has stopped changing for `ms`. Compared by JSON, so a rebuilt but equal object does not restart it. */
export function useDebounced<T>(value: T, ms: number): T {
  const [state, setState] = useState<T>(value);
  const key = JSON.stringify(value);
  const latest = useRef(value);
  latest.current = value;
  useEffect(() => {
    const timer = window.setTimeout(() => setState(latest.current), ms);
    return () => window.clearTimeout(timer);
  }, [key, ms]);
  return state;
}
