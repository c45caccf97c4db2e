import { MenuItem, Stack, TextField } from '@mui/material';
import { useTranslate } from 'react-admin';
import { RoleType } from '../constants';
import { roleLabel } from '../roles/role-names';
import type { Role } from '../types';

export interface RolePair {
  platform: number | '';
  inbox: number | '';
}

export const pairIds = (pair: RolePair): number[] => [pair.platform, pair.inbox].filter((x): x is number => typeof x === 'number');

export function pairOf(ids: number[], roles: Role[]): RolePair {
  const byId = new Map(roles.map((r) => [r.id, r]));
  const platform = ids.find((id) => byId.get(id)?.roleType === RoleType.Platform);
  const inbox = ids.find((id) => byId.get(id)?.roleType === RoleType.Inbox);
  return { platform: platform ?? '', inbox: inbox ?? '' };
}

/** One platform role and one inbox role (spec 3, Invite); either may be "none", not both. */
export const RoleSelects = ({ roles, value, onChange, error, disabled }: { roles: Role[]; value: RolePair; onChange: (v: RolePair) => void; error?: string; disabled?: boolean }) => {
  const translate = useTranslate();
  const platform = roles.filter((r) => r.roleType === RoleType.Platform && !r.isDeleted);
  const inbox = roles.filter((r) => r.roleType === RoleType.Inbox && !r.isDeleted);
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
      <TextField
        select
        label={translate('team.invite.platformRole')}
        value={value.platform}
        onChange={(e) => onChange({ ...value, platform: e.target.value === '' ? '' : Number(e.target.value) })}
        error={!!error}
        helperText={error ?? ' '}
        disabled={disabled}
        slotProps={{ select: { displayEmpty: true, SelectDisplayProps: { 'data-testid': 'platform-role' } as object }, inputLabel: { shrink: true } }}
      >
        <MenuItem value="">
          <em>{translate('team.invite.noRole')}</em>
        </MenuItem>
        {platform.map((r) => (
          <MenuItem key={r.id} value={r.id} data-testid="platform-role-option">
            {roleLabel(r.name, translate)}
          </MenuItem>
        ))}
      </TextField>
      <TextField
        select
        label={translate('team.invite.inboxRole')}
        value={value.inbox}
        onChange={(e) => onChange({ ...value, inbox: e.target.value === '' ? '' : Number(e.target.value) })}
        error={!!error}
        helperText={error ? ' ' : ' '}
        disabled={disabled}
        slotProps={{ select: { displayEmpty: true, SelectDisplayProps: { 'data-testid': 'inbox-role' } as object }, inputLabel: { shrink: true } }}
      >
        <MenuItem value="">
          <em>{translate('team.invite.noRole')}</em>
        </MenuItem>
        {inbox.map((r) => (
          <MenuItem key={r.id} value={r.id} data-testid="inbox-role-option">
            {roleLabel(r.name, translate)}
          </MenuItem>
        ))}
      </TextField>
    </Stack>
  );
};
