import CloseIcon from '@mui/icons-material/Close';
import { Box, Divider, Drawer, IconButton, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { RIGHT_SIDEBAR_WIDTH } from '../constants';

export interface RightSidebarProps {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  actions?: ReactNode;
}

/** The 600 px panel sliding in from the right (spec 2), used for details and side editors. */
export const RightSidebar = ({ open, onClose, title, children, actions }: RightSidebarProps) => {
  const translate = useTranslate();
  return (
    <Drawer
      anchor="right"
      open={open}
      onClose={onClose}
      slotProps={{ paper: { sx: { width: { xs: '100%', sm: RIGHT_SIDEBAR_WIDTH }, maxWidth: '100%' }, 'data-testid': 'right-sidebar' } as object }}
    >
      <Box sx={{ display: 'flex', alignItems: 'center', px: 3, py: 2, gap: 2 }}>
        <Typography variant="h6" sx={{ flex: 1 }} component="h2">
          {title}
        </Typography>
        <IconButton onClick={onClose} aria-label={translate('sidebar.close')} data-testid="right-sidebar-close">
          <CloseIcon />
        </IconButton>
      </Box>
      <Divider />
      <Box sx={{ flex: 1, overflowY: 'auto', p: 3 }}>{children}</Box>
      {actions && (
        <>
          <Divider />
          <Box sx={{ display: 'flex', justifyContent: 'flex-end', gap: 1, px: 3, py: 2 }}>{actions}</Box>
        </>
      )}
    </Drawer>
  );
};
