import { useCallback, useEffect, useRef, useState } from 'react';

export interface ApiState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => Promise<void>;
  /** Reloads without showing the loading state (polling, refresh after a change). */
  refresh: () => Promise<void>;
}

/**
 * Loads `load()` on mount and whenever `deps` change; `reload()` loads again. An answer that arrives after a newer
 * request started is dropped, so a slow first answer never overwrites a fresh one.
 */
export function useApi<T>(load: () => Promise<T>, deps: unknown[] = [], enabled = true): ApiState<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(enabled);
  const seq = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const run = useCallback(async (quiet: boolean) => {
    const mine = ++seq.current;
    if (!quiet) setLoading(true);
    try {
      const value = await loader.current();
      if (mine === seq.current) {
        setData(value);
        setError(null);
      }
    } catch (e) {
      if (mine === seq.current) setError(e);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, []);
  const reload = useCallback(() => run(false), [run]);
  const refresh = useCallback(() => run(true), [run]);

  useEffect(() => {
    if (enabled) void reload();
    else setLoading(false);
    // the caller lists in `deps` what the request depends on
  }, [enabled, reload, ...deps]);

  return { data, error, loading, reload, refresh };
}
