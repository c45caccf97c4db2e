import ContentCopyRoundedIcon from '@mui/icons-material/ContentCopyRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import PauseRoundedIcon from '@mui/icons-material/PauseRounded';
import PlayArrowRoundedIcon from '@mui/icons-material/PlayArrowRounded';
import RocketLaunchRoundedIcon from '@mui/icons-material/RocketLaunchRounded';
import StopRoundedIcon from '@mui/icons-material/StopRounded';
import { useState, type ReactNode } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import type { ActionItem } from '../../contacts/widgets/ActionMenu';
import { campaignsApi, P, PATHS } from '../api';
import { can } from '../status';
import type { Campaign } from '../types';
import { errorText } from './errors';

export type RunAction = 'start' | 'pause' | 'play' | 'abort';

/**
 * The actions spec 4 allows per status (start for a draft, pause, play, abort, edit, duplicate, delete); the others
 * are not offered, and the server refuses them too. Abort and delete ask first.
 */
export function useCampaignActions({ onChanged, onEdit, onDeleted }: { onChanged: (c?: Campaign) => void; onEdit: (c: Campaign) => void; onDeleted?: (c: Campaign) => void }) {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const [confirm, setConfirm] = useState<{ kind: 'abort' | 'delete'; campaign: Campaign } | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (c: Campaign, action: RunAction) => {
    try {
      const next = await campaignsApi.action(c.id, action);
      notify(`campaigns.notification.${action}`, { type: 'success', messageArgs: { name: c.name } });
      onChanged(next);
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };

  const duplicate = async (c: Campaign) => {
    try {
      const copy = await campaignsApi.duplicate(c.id);
      notify('campaigns.notification.duplicated', { type: 'success', messageArgs: { name: copy.name } });
      onChanged(copy);
      navigate(PATHS.campaign(copy.id));
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };

  const items = (c: Campaign): ActionItem[] => [
    { key: 'start', label: translate('campaigns.actions.start'), icon: <RocketLaunchRoundedIcon fontSize="small" />, permission: P.CampaignAddEdit, hidden: !can('start', c), onClick: () => run(c, 'start'), testId: 'action-start' },
    { key: 'pause', label: translate('campaigns.actions.pause'), icon: <PauseRoundedIcon fontSize="small" />, permission: P.CampaignAddEdit, hidden: !can('pause', c), onClick: () => run(c, 'pause'), testId: 'action-pause' },
    { key: 'play', label: translate('campaigns.actions.play'), icon: <PlayArrowRoundedIcon fontSize="small" />, permission: P.CampaignAddEdit, hidden: !can('play', c), onClick: () => run(c, 'play'), testId: 'action-play' },
    { key: 'edit', label: translate('campaigns.actions.edit'), icon: <EditRoundedIcon fontSize="small" />, permission: P.CampaignAddEdit, hidden: !can('edit', c), onClick: () => onEdit(c), testId: 'action-edit' },
    { key: 'duplicate', label: translate('campaigns.actions.duplicate'), icon: <ContentCopyRoundedIcon fontSize="small" />, permission: P.CampaignAddEdit, hidden: !can('duplicate', c), onClick: () => duplicate(c), testId: 'action-duplicate' },
    { key: 'abort', label: translate('campaigns.actions.abort'), icon: <StopRoundedIcon fontSize="small" />, permission: P.CampaignAddEdit, hidden: !can('abort', c), danger: true, onClick: () => setConfirm({ kind: 'abort', campaign: c }), testId: 'action-abort' },
    { key: 'delete', label: translate('campaigns.actions.delete'), icon: <DeleteOutlineRoundedIcon fontSize="small" />, permission: P.CampaignRemove, hidden: !can('delete', c), danger: true, onClick: () => setConfirm({ kind: 'delete', campaign: c }), testId: 'action-delete' },
  ];

  const dialogs: ReactNode = (
    <ConfirmDialog
      open={!!confirm}
      danger
      busy={busy}
      title={translate(`campaigns.confirm.${confirm?.kind ?? 'delete'}.title`)}
      text={translate(`campaigns.confirm.${confirm?.kind ?? 'delete'}.text`, { name: confirm?.campaign.name ?? '' })}
      confirmLabel={translate(`campaigns.actions.${confirm?.kind ?? 'delete'}`)}
      onClose={() => setConfirm(null)}
      onConfirm={() => {
        const c = confirm;
        if (!c) return;
        setBusy(true);
        const done = c.kind === 'abort' ? run(c.campaign, 'abort') : campaignsApi.remove(c.campaign.id).then(
              () => {
                notify('campaigns.notification.deleted', { type: 'success', messageArgs: { name: c.campaign.name } });
                onDeleted?.(c.campaign);
                onChanged();
              },
              (e: unknown) => notify(errorText(e, translate), { type: 'error' }),
            );
        void done.finally(() => {
          setBusy(false);
          setConfirm(null);
        });
      }}
    />
  );
  return { items, dialogs, run };
}
