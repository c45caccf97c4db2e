import { Button, CircularProgress } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { AppModal, type ModalType } from './AppModal';

export interface ConfirmDialogProps {
  open: boolean;
  title: ReactNode;
  text?: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string | null;
  danger?: boolean;
  busy?: boolean;
  type?: ModalType;
  onConfirm: () => void;
  onClose: () => void;
  testId?: string;
}

/** The generic confirm popup of spec 2. */
export const ConfirmDialog = ({ open, title, text, confirmLabel, cancelLabel, danger, busy, type = 'warning', onConfirm, onClose, testId = 'confirm-dialog' }: ConfirmDialogProps) => {
  const translate = useTranslate();
  return (
    <AppModal
      open={open}
      onClose={onClose}
      title={title}
      type={type}
      size="s"
      testId={testId}
      dismissible={!busy}
      actions={
        <>
          {cancelLabel !== null && (
            <Button variant="outlined" color="inherit" onClick={onClose} disabled={busy} sx={{ borderColor: 'divider', minWidth: 110 }}>
              {cancelLabel ?? translate('ui.actions.cancel')}
            </Button>
          )}
          <Button
            variant="contained"
            color={danger ? 'error' : 'primary'}
            onClick={onConfirm}
            disabled={busy}
            data-testid="confirm-ok"
            startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}
            sx={{ minWidth: 110 }}
          >
            {confirmLabel ?? translate('ui.actions.confirm')}
          </Button>
        </>
      }
    >
      {text}
    </AppModal>
  );
};
