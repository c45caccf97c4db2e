import CodeRoundedIcon from '@mui/icons-material/CodeRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import HealthAndSafetyRoundedIcon from '@mui/icons-material/HealthAndSafetyRounded';
import OpenInNewRoundedIcon from '@mui/icons-material/OpenInNewRounded';
import { Divider, ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import { useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import { P } from '../constants';
import { SendMessageDialog } from '../send/SendMessageDialog';
import type { Stream } from '../types';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { errorText } from '../widgets/errors';
import { GatedMenuItem } from '../../../ui/Gated';
import { DiagnosticsDialog } from './DiagnosticsDialog';
import { StreamDialog } from './StreamDialog';
import { TokenDialog } from './TokenDialog';

export type StreamAction = 'send' | 'token' | 'edit' | 'diagnostics' | 'delete' | 'code' | 'otp';

/**
 * The modals one stream opens (send-message popup, token display, edit, diagnostics, delete confirm), shared by the
 * list and the detail page. `open(action, stream)` shows one; `onChanged` runs after an edit, delete or send.
 */
export function useStreamActions(onChanged: (action: StreamAction, stream: Stream | null) => void) {
  const translate = useTranslate();
  const notify = useNotify();
  const [current, setCurrent] = useState<{ action: StreamAction; stream: Stream } | null>(null);
  const [busy, setBusy] = useState(false);
  const close = () => setCurrent(null);
  const is = (a: StreamAction) => (current?.action === a ? current.stream : null);

  const remove = async () => {
    const s = is('delete');
    if (!s) return;
    setBusy(true);
    try {
      await streamsApi.deleteStream(s.id);
      notify('streams.list.deleted', { type: 'success', messageArgs: { name: s.name } });
      onChanged('delete', s);
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
      close();
    }
  };

  const modals = (
    <>
      <SendMessageDialog open={!!is('send')} stream={is('send')} onClose={close} onSent={() => onChanged('send', current?.stream ?? null)} />
      <TokenDialog stream={is('token') ?? is('code')} onClose={close} />
      <DiagnosticsDialog stream={is('diagnostics')} onClose={close} />
      <StreamDialog
        open={!!is('edit') || !!is('otp')}
        stream={is('edit') ?? is('otp')}
        otpStep={!!is('otp')}
        onClose={close}
        onSaved={(s) => {
          notify('streams.list.saved', { type: 'success', messageArgs: { name: s.name } });
          close();
          onChanged('edit', s);
        }}
      />
      <ConfirmDialog
        open={!!is('delete')}
        busy={busy}
        danger
        title={translate('streams.list.confirmDelete.title')}
        text={is('delete') ? translate('streams.list.confirmDelete.text', { name: is('delete')?.name ?? '' }) : ''}
        confirmLabel={translate('streams.list.confirmDelete.ok')}
        onConfirm={() => void remove()}
        onClose={close}
      />
    </>
  );
  return { open: (action: StreamAction, stream: Stream) => setCurrent({ action, stream }), modals };
}

/** The "more" menu of a stream row. */
export const StreamMenu = ({ anchor, stream, onClose, onAction, onOpen }: { anchor: HTMLElement | null; stream: Stream | null; onClose: () => void; onAction: (a: StreamAction, s: Stream) => void; onOpen?: (s: Stream) => void }) => {
  const translate = useTranslate();
  const act = (a: StreamAction) => () => {
    if (stream) onAction(a, stream);
    onClose();
  };
  return (
    <Menu anchorEl={anchor} open={!!anchor && !!stream} onClose={onClose} slotProps={{ paper: { sx: { minWidth: 220 } } }}>
      {onOpen && (
        <MenuItem onClick={() => { if (stream) onOpen(stream); onClose(); }}>
          <ListItemIcon><OpenInNewRoundedIcon fontSize="small" /></ListItemIcon>
          <ListItemText>{translate('streams.list.open')}</ListItemText>
        </MenuItem>
      )}
      <GatedMenuItem permission={P.StreamAddEdit} onClick={act('edit')} data-testid="stream-menu-edit">
        <ListItemIcon><EditRoundedIcon fontSize="small" /></ListItemIcon>
        <ListItemText>{translate('streams.list.edit')}</ListItemText>
      </GatedMenuItem>
      <MenuItem onClick={act('diagnostics')} data-testid="stream-menu-diagnostics">
        <ListItemIcon><HealthAndSafetyRoundedIcon fontSize="small" /></ListItemIcon>
        <ListItemText>{translate('streams.list.diagnostics')}</ListItemText>
      </MenuItem>
      <GatedMenuItem permission={P.StreamToken} onClick={act('code')} data-testid="stream-menu-code">
        <ListItemIcon><CodeRoundedIcon fontSize="small" /></ListItemIcon>
        <ListItemText>{translate('streams.list.code')}</ListItemText>
      </GatedMenuItem>
      <Divider />
      <GatedMenuItem permission={P.StreamRemove} onClick={act('delete')} sx={{ color: 'error.main' }} data-testid="stream-menu-delete">
        <ListItemIcon><DeleteOutlineRoundedIcon fontSize="small" color="error" /></ListItemIcon>
        <ListItemText>{translate('streams.list.delete')}</ListItemText>
      </GatedMenuItem>
    </Menu>
  );
};
