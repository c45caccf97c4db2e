import { useEffect, useRef } from 'react';
import { useProfile } from '../../ui/useProfile';
import { useRealtime } from '../contacts/realtime';
import { domainChange, type DomainChange } from './live';

export { domainChange, type DomainChange } from './live';

/** Frames closer together than this lead to one reload of the list. */
const RELOAD_MS = 250;

/**
 * Follows the `domains` topic while `enabled`: every valid change of this account's domains (DNS verification by the
 * scheduler, a limit reached by minting, another user's action) reloads what the page shows, once per burst. Answers
 * whether the stream is open.
 */
export function useDomainsRealtime(reload: (changes: DomainChange[]) => void, enabled = true): boolean {
  const { profile } = useProfile();
  const accountId = profile?.customer?.id;
  const latest = useRef(reload);
  latest.current = reload;
  const pending = useRef<DomainChange[]>([]);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const flush = () => {
    timer.current = undefined;
    const changes = pending.current;
    pending.current = [];
    latest.current(changes);
  };
  return useRealtime(
    ['domains'],
    {
      onFrame: (f) => {
        const c = domainChange(f, accountId);
        if (!c) return;
        pending.current.push(c);
        if (timer.current === undefined) timer.current = window.setTimeout(flush, RELOAD_MS);
      },
      onResync: () => latest.current([]),
    },
    enabled && accountId !== undefined,
  );
}
