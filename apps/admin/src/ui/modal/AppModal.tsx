import CheckCircleOutlineRoundedIcon from '@mui/icons-material/CheckCircleOutlineRounded';
import CloseIcon from '@mui/icons-material/Close';
import ErrorOutlineRoundedIcon from '@mui/icons-material/ErrorOutlineRounded';
import WarningAmberRoundedIcon from '@mui/icons-material/WarningAmberRounded';
import { Box, Dialog, DialogActions, DialogContent, DialogTitle, IconButton, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { MODAL_WIDTHS, type ModalSize } from '../../constants';

export type ModalType = 'success' | 'error' | 'warning';

export interface AppModalProps {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  /** A line under the title (the stream a modal is about, a step counter). */
  subtitle?: ReactNode;
  /** An icon tile left of the title. */
  icon?: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  /** Spec 2: xs 360, s 480 (default), m 640, l 800 px. */
  size?: ModalSize;
  /** A typed modal is centred, with an icon and no dividers (spec 2). */
  type?: ModalType;
  testId?: string;
  /** Closing by backdrop or Escape (default true); a form being saved turns it off. */
  dismissible?: boolean;
  /** The content fills the dialog edge to edge (tables, tabs, matrices). */
  flush?: boolean;
  /** While not dismissible, the close button is hidden instead of disabled. */
  hideCloseWhenLocked?: boolean;
  /** Only the close button closes (Escape and the backdrop do not): a form with typed-in work. */
  onlyButtonCloses?: boolean;
}

const typeIcon: Record<ModalType, ReactNode> = {
  success: <CheckCircleOutlineRoundedIcon sx={{ fontSize: 52, color: 'success.main' }} />,
  error: <ErrorOutlineRoundedIcon sx={{ fontSize: 52, color: 'error.main' }} />,
  warning: <WarningAmberRoundedIcon sx={{ fontSize: 52, color: 'warning.main' }} />,
};

/** The console's modal (spec 2 "Shared components"): fixed widths, 8 px radius, typed (centred) or plain (dividers). */
export const AppModal = ({ open, onClose, title, subtitle, icon, children, actions, size = 's', type, testId, dismissible = true, flush = false, hideCloseWhenLocked = false, onlyButtonCloses = false }: AppModalProps) => {
  const translate = useTranslate();
  const close = () => dismissible && onClose();
  return (
    <Dialog
      open={open}
      onClose={onlyButtonCloses ? undefined : close}
      maxWidth={false}
      data-testid={testId}
      slotProps={{ paper: { sx: { width: MODAL_WIDTHS[size], maxWidth: 'calc(100% - 32px)', borderRadius: '8px' } } }}
    >
      {type ? (
        <>
          <DialogContent sx={{ textAlign: 'center', pt: 4, px: 4 }}>
            <Box sx={{ mb: 1.5 }}>{typeIcon[type]}</Box>
            <Typography variant="h6" component="h2" gutterBottom>
              {title}
            </Typography>
            <Box sx={{ color: 'text.secondary' }}>{children}</Box>
          </DialogContent>
          {actions && <DialogActions sx={{ justifyContent: 'center', gap: 1, pb: 3, px: 3 }}>{actions}</DialogActions>}
        </>
      ) : (
        <>
          <DialogTitle component="div" sx={{ display: 'flex', alignItems: 'center', gap: 1.5, pr: 1.5, py: 1.75 }}>
            {icon && (
              <Box sx={{ width: 36, height: 36, borderRadius: '10px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main', flexShrink: 0 }}>
                {icon}
              </Box>
            )}
            <Box sx={{ flex: 1, minWidth: 0 }}>
              <Typography variant="h6" component="h2" sx={{ fontSize: 18, lineHeight: 1.3 }}>
                {title}
              </Typography>
              {subtitle && (
                <Typography variant="body2" color="text.secondary" noWrap component="div">
                  {subtitle}
                </Typography>
              )}
            </Box>
            {(dismissible || !hideCloseWhenLocked) && (
              <IconButton onClick={close} size="small" aria-label={translate('ui.actions.close')} disabled={!dismissible} data-testid="modal-close">
                <CloseIcon fontSize="small" />
              </IconButton>
            )}
          </DialogTitle>
          <DialogContent dividers sx={flush ? { p: 0 } : { py: 2.5 }}>
            {children}
          </DialogContent>
          {actions && <DialogActions sx={{ px: 3, py: 1.75, gap: 1 }}>{actions}</DialogActions>}
        </>
      )}
    </Dialog>
  );
};
