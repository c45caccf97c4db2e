import { Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { teamApi } from '../api';
import type { Role } from '../types';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { errorText } from '../widgets/errors';
import { pairIds, pairOf, RoleSelects, type RolePair } from './RoleSelects';

export interface RolesTarget {
  kind: 'member' | 'invite';
  id: number;
  email: string;
  roleIds: number[];
}

/** Changes a member's roles (POST /users/roles) or a pending invite's (PUT /user_invites/{id}). */
export const MemberRolesDialog = ({ target, roles, onClose, onSaved }: { target: RolesTarget | null; roles: Role[]; onClose: () => void; onSaved: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const [pair, setPair] = useState<RolePair>({ platform: '', inbox: '' });
  const [busy, setBusy] = useState(false);
  const [banner, setBanner] = useState<string | null>(null);

  useEffect(() => {
    if (target) {
      setPair(pairOf(target.roleIds, roles));
      setBanner(null);
    }
  }, [target, roles]);

  const save = async () => {
    if (!target) return;
    if (target.kind === 'invite' && pairIds(pair).length === 0) {
      setBanner(translate('team.invite.roleRequired'));
      return;
    }
    setBusy(true);
    setBanner(null);
    try {
      if (target.kind === 'member') await teamApi.setMemberRoles(target.id, pairIds(pair));
      else await teamApi.updateInvite(target.id, { user_roles_ids: pairIds(pair) });
      notify('team.members.rolesSaved', { type: 'success' });
      onSaved();
      onClose();
    } catch (error) {
      setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      open={!!target}
      onClose={onClose}
      size="m"
      title={translate('team.members.changeRoles')}
      testId="member-roles-dialog"
      busy={busy}
      hideCloseWhenLocked
      submitLabel={translate('team.actions.save')}
      submitTestId="member-roles-save"
      onSubmit={() => void save()}
      error={banner}
      intro={
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2.5 }}>
          {translate('team.members.changeRolesText', { email: target?.email ?? '' })}
        </Typography>
      }
    >
      <RoleSelects roles={roles} value={pair} onChange={setPair} disabled={busy} />
    </FormDialog>
  );
};
