import ErrorOutlineIcon from '@mui/icons-material/ErrorOutline';
import { Box, Button, Dialog, DialogActions, DialogContent, Typography } from '@mui/material';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useTranslate } from 'react-admin';

/** Spec 8: a render error shows a modal titled errors.renderError.title with a reload button. */
export const RenderErrorModal = () => {
  const translate = useTranslate();
  return (
    <Dialog open maxWidth="xs" fullWidth data-testid="render-error">
      <DialogContent sx={{ textAlign: 'center', pt: 4 }}>
        <Box sx={{ color: 'error.main', mb: 1 }}>
          <ErrorOutlineIcon sx={{ fontSize: 48 }} />
        </Box>
        <Typography variant="h6" gutterBottom>
          {translate('errors.renderError.title')}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {translate('errors.renderError.text')}
        </Typography>
      </DialogContent>
      <DialogActions sx={{ justifyContent: 'center', pb: 3 }}>
        <Button variant="contained" onClick={() => window.location.reload()}>
          {translate('errors.renderError.reload')}
        </Button>
      </DialogActions>
    </Dialog>
  );
};

/** The `error` component of react-admin's Layout (errors inside the shell). */
export const LayoutError = () => <RenderErrorModal />;

/** For the pages outside the shell (login, select-account): the same modal. */
export class RenderErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('render error', error, info.componentStack);
  }

  render(): ReactNode {
    return this.state.failed ? <RenderErrorModal /> : this.props.children;
  }
}
