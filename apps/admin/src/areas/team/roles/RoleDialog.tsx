import { Stack, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { ROLE_NAME_LIMIT } from '../constants';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { charLimit, check, noXss, required } from '../widgets/validation';

export interface RoleDraft {
  name: string;
  description: string;
}

interface Props {
  open: boolean;
  mode: 'create' | 'copy' | 'edit';
  initial: RoleDraft;
  /** Names already used (other roles), for the uniqueness check of a rename. */
  taken: string[];
  onClose: () => void;
  onSubmit: (draft: RoleDraft) => Promise<void>;
}

/** Name and description of a role (spec 5 defaults: "Custom role name", "Role description"; a copy is "Copy of X"). */
export const RoleDialog = ({ open, mode, initial, taken, onClose, onSubmit }: Props) => {
  const translate = useTranslate();
  const [draft, setDraft] = useState<RoleDraft>(initial);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);

  useEffect(() => {
    if (open) {
      setDraft(initial);
      setSubmitted(false);
      setServerFields({});
      setBanner(null);
    }
  }, [open, initial]);

  const nameTaken = mode === 'edit' && taken.some((t) => t.trim().toLowerCase() === draft.name.trim().toLowerCase());
  const nameError = check(draft.name, required, charLimit(ROLE_NAME_LIMIT), noXss) ?? (nameTaken ? 'team.roles.nameTaken' : undefined);
  const descriptionError = check(draft.description, charLimit(1000));
  const shownName = serverFields.name || (nameError && (submitted || draft.name !== initial.name) ? messageText(nameError, translate, { limit: ROLE_NAME_LIMIT }) : undefined);
  const shownDescription = serverFields.description || (descriptionError && submitted ? messageText(descriptionError, translate, { limit: 1000 }) : undefined);

  const submit = async () => {
    setSubmitted(true);
    if (nameError || descriptionError || busy) return;
    setBusy(true);
    setBanner(null);
    try {
      await onSubmit({ name: draft.name.trim(), description: draft.description.trim() });
      onClose();
    } catch (error) {
      const fields = fieldErrors(error, translate);
      setServerFields(fields);
      if (!Object.keys(fields).length) setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={translate(`team.roles.dialog.${mode}`)}
      testId="role-dialog"
      busy={busy}
      hideCloseWhenLocked
      submitLabel={translate(mode === 'edit' ? 'team.actions.save' : mode === 'create' ? 'team.roles.dialog.addSubmit' : 'team.roles.dialog.createSubmit')}
      submitTestId="role-dialog-submit"
      onSubmit={() => void submit()}
      formId="role-form"
      error={banner}
      intro={
        mode !== 'edit' && (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {translate(mode === 'create' ? 'team.roles.dialog.draftHint' : 'team.roles.dialog.hint')}
          </Typography>
        )
      }
    >
      <Stack spacing={1.5}>
        <TextField
          label={translate('team.roles.name')}
          value={draft.name}
          autoFocus
          required
          onChange={(e) => {
            setDraft({ ...draft, name: e.target.value });
            setServerFields({ ...serverFields, name: '' });
          }}
          error={!!shownName}
          helperText={shownName ?? ' '}
          slotProps={{ htmlInput: { 'data-testid': 'role-name', maxLength: 200 } }}
        />
        <TextField
          label={translate('team.roles.description')}
          value={draft.description}
          multiline
          minRows={2}
          onChange={(e) => setDraft({ ...draft, description: e.target.value })}
          error={!!shownDescription}
          helperText={shownDescription ?? ' '}
          slotProps={{ htmlInput: { 'data-testid': 'role-description' } }}
        />
      </Stack>
    </FormDialog>
  );
};
