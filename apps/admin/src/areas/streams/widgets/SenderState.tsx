import { Alert, Button } from '@mui/material';
import { useMemo } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { useCan, useIsSuperAdmin } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { useProfile } from '../../../ui/useProfile';
import { streamsApi } from '../api';
import { P, SenderApproval, isSmsType } from '../constants';
import type { SenderOption, Stream } from '../types';

/** What the account's senders say about a stream's default sender: approved, pending, declined, or not a sender yet. */
export type SenderState = 'approved' | 'pending' | 'declined' | 'unknown';

/** The account's senders by value (lower case), to show each SMS stream's sender approval. */
export function useSenderStates(): { stateOf: (s: Pick<Stream, 'streamType' | 'sender'>) => SenderState | null; reload: () => Promise<void> } {
  const can = useCan();
  const { profile } = useProfile();
  const accountId = profile?.customer?.id;
  const senders = useApi(() => streamsApi.senderDropdown(), [], can(P.SenderView));
  // approval matters only where the account checks senders (customSettings.streams_validate_senders, on by default)
  const account = useApi(() => streamsApi.account(accountId as number).catch(() => null), [accountId], !!accountId);
  const checked = account.data?.customSettings?.streams_validate_senders;
  const validates = !(checked === false || checked === 0 || checked === '0' || checked === 'false');
  const byValue = useMemo(() => new Map((senders.data?.items ?? []).map((o: SenderOption) => [o.value.toLowerCase(), o])), [senders.data]);
  return {
    reload: senders.refresh,
    stateOf: (s) => {
      if (!senders.data || account.loading || !validates || !isSmsType(s.streamType) || !s.sender) return null;
      const o = byValue.get(s.sender.toLowerCase());
      if (!o) return 'unknown';
      return o.approved === SenderApproval.Approved ? 'approved' : o.approved === SenderApproval.Declined ? 'declined' : 'pending';
    },
  };
}

/**
 * Why a stream whose sender is not approved cannot send, and how to get it approved: the sender's state from the
 * senders list, with a link to it (a super administrator's goes to the approval screen).
 */
export const SenderStateAlert = ({ state, sender }: { state: SenderState | null; sender: string | null }) => {
  const translate = useTranslate();
  const superAdmin = useIsSuperAdmin();
  if (!state || state === 'approved' || !sender) return null;
  const to = superAdmin && state === 'pending' ? '/superadmin/senders' : '/senders';
  return (
    <Alert
      severity={state === 'declined' ? 'error' : 'warning'}
      sx={{ mb: 2 }}
      data-testid="stream-sender-alert"
      data-state={state}
      action={
        <Button component={RouterLink} to={to} color="inherit" size="small" data-testid="stream-sender-link">
          {translate(superAdmin && state === 'pending' ? 'streams.senderState.approveLink' : 'streams.senderState.sendersLink')}
        </Button>
      }
    >
      {translate(`streams.senderState.${state}`, { sender })}
    </Alert>
  );
};
