import { useEffect, useRef, useState } from 'react';

/**
 * Calls `tick` every `ms` while `active`; the latest `tick` is used, so callers need not memoise it. With
 * `pauseWhenHidden` a tick is skipped while the tab is hidden (statistics nobody is looking at).
 */
export function useInterval(tick: () => void, ms: number, active = true, pauseWhenHidden = false): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return undefined;
    const id = window.setInterval(() => {
      if (!pauseWhenHidden || document.visibilityState !== 'hidden') saved.current();
    }, ms);
    return () => window.clearInterval(id);
  }, [ms, active, pauseWhenHidden]);
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
