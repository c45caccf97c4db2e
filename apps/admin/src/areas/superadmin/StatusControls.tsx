import { useTranslate } from 'react-admin';
import { StatusChip, type Tone } from '../../ui/StatusChip';
import type { AccountStatus } from './api';

const tone: Record<AccountStatus, Tone> = { active: 'success', restrict: 'warning', disable: 'danger', delete: 'neutral' };

export const AccountStatusChip = ({ status }: { status: AccountStatus }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={tone[status]} testId="account-status">
      {translate(`superadmin.status.${status}`)}
    </StatusChip>
  );
};
