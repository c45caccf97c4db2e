import { useCallback, useState } from 'react';

export interface SubmitState {
  /** An action is in flight: disable what would start it again. */
  busy: boolean;
  /** The last action's error message, cleared when the next one starts. */
  error: string | null;
  setError: (error: string | null) => void;
  /** Runs `action` with `busy` set; a thrown error becomes `error` instead of escaping. */
  submit: (action: () => Promise<unknown>) => Promise<void>;
}

/** The state of a form's or dialog's save button: busy while its call runs, the call's error shown beside it. */
export function useSubmit(): SubmitState {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, submit };
}
