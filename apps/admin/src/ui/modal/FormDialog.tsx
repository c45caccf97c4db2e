import { Alert, Box, Button, CircularProgress, type SxProps, type Theme } from '@mui/material';
import type { KeyboardEvent, ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { AppModal, type AppModalProps } from './AppModal';

export interface FormDialogProps extends Omit<AppModalProps, 'actions' | 'dismissible' | 'type'> {
  submitLabel: ReactNode;
  onSubmit: () => void;
  /** While saving: the buttons are disabled, the submit button spins and the modal cannot be dismissed. */
  busy: boolean;
  /**
   * With an id the content is a `<form>` the submit button submits (Enter in a field submits too); without one the
   * content is not a form and only the button submits (dialogs whose fields must not submit on Enter).
   */
  formId?: string;
  formSx?: SxProps<Theme>;
  /** The server's error for the whole form, shown as a banner above the fields. */
  error?: string | null;
  errorTestId?: string;
  submitTestId?: string;
  /** The submit button's icon while not busy. */
  submitIcon?: ReactNode;
  /** Disables the submit button besides while busy (nothing to save yet). */
  submitDisabled?: boolean;
  cancelLabel?: ReactNode;
  /** Buttons left of Cancel (a destructive "remove"). */
  extraActions?: ReactNode;
  /** Text above the error banner (what the form is for). */
  intro?: ReactNode;
}

/**
 * A form's onKeyDown: Enter in an autocomplete or a chip field picks an option or adds a chip and never submits the
 * form (it created a stream twice and an API key with nothing chosen). Other fields keep Enter-submits.
 */
export const enterPicksNotSubmits = (e: KeyboardEvent<HTMLElement>) => {
  if (e.key !== 'Enter') return;
  const target = e.target as HTMLElement;
  if (target.closest('.MuiAutocomplete-root, [data-enter-picks]')) e.preventDefault();
};

/** The console's form modal: AppModal with Cancel and a submit button with a spinner, an error banner and the form. */
export const FormDialog = ({
  submitLabel,
  onSubmit,
  busy,
  formId,
  formSx,
  error,
  errorTestId,
  submitTestId,
  submitIcon,
  submitDisabled = false,
  cancelLabel,
  extraActions,
  intro,
  children,
  onClose,
  ...modal
}: FormDialogProps) => {
  const translate = useTranslate();
  const content = (
    <>
      {intro}
      {error && (
        <Alert severity="error" sx={{ mb: 2 }} data-testid={errorTestId}>
          {error}
        </Alert>
      )}
      {children}
    </>
  );
  return (
    <AppModal
      {...modal}
      onClose={onClose}
      dismissible={!busy}
      actions={
        <>
          {extraActions}
          <Button color="inherit" onClick={onClose} disabled={busy}>
            {cancelLabel ?? translate('ui.actions.cancel')}
          </Button>
          <Button
            variant="contained"
            disabled={busy || submitDisabled}
            data-testid={submitTestId}
            startIcon={busy ? <CircularProgress size={16} color="inherit" /> : submitIcon}
            {...(formId ? { type: 'submit' as const, form: formId } : { onClick: onSubmit })}
          >
            {submitLabel}
          </Button>
        </>
      }
    >
      {formId ? (
        <Box
          component="form"
          id={formId}
          noValidate
          onKeyDown={enterPicksNotSubmits}
          onSubmit={(e) => {
            e.preventDefault();
            onSubmit();
          }}
          sx={formSx}
        >
          {content}
        </Box>
      ) : (
        content
      )}
    </AppModal>
  );
};
