import { Box, Checkbox, FormControlLabel, Stack, Switch, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useTranslate } from 'react-admin';
import { isSuperAdmin } from '../../../providers/types';
import { useProfile } from '../../../ui/useProfile';
import { API_KEY_FORBIDDEN } from '../constants';
import { usePermissionLabel } from '../roles/PermissionMatrix';
import type { ApiKey, PermissionGroup } from '../types';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { FormDialog } from '../../../ui/modal/FormDialog';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { charLimit, check, ipList, noXss, required } from '../widgets/validation';

export interface ApiKeyValues {
  name: string;
  ipAcl: string;
  permissions: string[];
  active: 0 | 1;
}

interface Props {
  open: boolean;
  apiKey: ApiKey | null;
  groups: PermissionGroup[] | undefined;
  onClose: () => void;
  onSubmit: (values: ApiKeyValues) => Promise<void>;
}

/** Create or edit an API key: name, IP ACL (comma-joined, spec 3), the permissions it carries, active. */
export const ApiKeyDialog = ({ open, apiKey, groups, onClose, onSubmit }: Props) => {
  const translate = useTranslate();
  const label = usePermissionLabel();
  const { profile } = useProfile();
  const [values, setValues] = useState<ApiKeyValues>({ name: '', ipAcl: '', permissions: [], active: 1 });
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [confirmEmpty, setConfirmEmpty] = useState(false);

  useEffect(() => {
    if (!open) return;
    setValues(apiKey ? { name: apiKey.name, ipAcl: apiKey.ipAcl, permissions: apiKey.permissions, active: apiKey.active } : { name: '', ipAcl: '', permissions: [], active: 1 });
    setSubmitted(false);
    setServerFields({});
    setBanner(null);
    setConfirmEmpty(false);
  }, [open, apiKey]);

  // what a key may carry: the user's own permissions (all for a super admin), never team, role or key management
  const choices = useMemo(() => {
    const held = (p: string) => !API_KEY_FORBIDDEN.has(p) && (isSuperAdmin(profile) || !!profile?.userPermissions.includes(p));
    const source: PermissionGroup[] = groups?.length
      ? groups
      : [{ key: 'own', label: translate('team.apiKeys.permissions'), roleType: 'platform', permissions: profile?.userPermissions ?? [] }];
    return source.map((g) => ({ ...g, permissions: g.permissions.filter(held) })).filter((g) => g.permissions.length > 0);
  }, [groups, profile, translate]);

  const errors = {
    name: check(values.name, required, charLimit(200), noXss),
    ipAcl: check(values.ipAcl, ipList),
  };
  const shown = (f: 'name' | 'ipAcl') => serverFields[f] || (errors[f] && submitted ? messageText(errors[f] as string, translate, { limit: 200 }) : undefined);

  const toggle = (perms: string[], on: boolean) =>
    setValues((v) => ({ ...v, permissions: on ? [...new Set([...v.permissions, ...perms])] : v.permissions.filter((p) => !perms.includes(p)) }));

  const submit = async (confirmed = false) => {
    setSubmitted(true);
    if (errors.name || errors.ipAcl || busy) return;
    // a key without permissions authenticates but may do nothing: the user confirms that this is meant
    if (values.permissions.length === 0 && !confirmed) {
      setConfirmEmpty(true);
      return;
    }
    setConfirmEmpty(false);
    setBusy(true);
    setBanner(null);
    try {
      const ipAcl = values.ipAcl
        .split(/[,\s]+/)
        .map((s) => s.trim())
        .filter(Boolean)
        .join(',');
      await onSubmit({ ...values, name: values.name.trim(), ipAcl });
    } catch (error) {
      const fields = fieldErrors(error, translate);
      setServerFields(fields);
      if (!fields.name && !fields.ipAcl) setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="m"
      title={translate(apiKey ? 'team.apiKeys.edit' : 'team.apiKeys.create')}
      testId="api-key-dialog"
      busy={busy}
      hideCloseWhenLocked
      submitLabel={translate(apiKey ? 'team.actions.save' : 'team.apiKeys.createSubmit')}
      submitTestId="api-key-submit"
      onSubmit={() => void submit()}
      formId="api-key-form"
      error={banner}
      errorTestId="api-key-error"
    >
      <Stack spacing={1}>
        <TextField
          label={translate('team.apiKeys.name')}
          value={values.name}
          required
          autoFocus
          onChange={(e) => setValues({ ...values, name: e.target.value })}
          error={!!shown('name')}
          helperText={shown('name') ?? ' '}
          slotProps={{ htmlInput: { 'data-testid': 'api-key-name' } }}
        />
        <TextField
          label={translate('team.apiKeys.ipAcl')}
          value={values.ipAcl}
          placeholder="203.0.113.10, 10.0.0.0/8, 2001:db8::1"
          onChange={(e) => setValues({ ...values, ipAcl: e.target.value })}
          error={!!shown('ipAcl')}
          helperText={shown('ipAcl') ?? translate('team.apiKeys.ipAclHint')}
          slotProps={{ htmlInput: { 'data-testid': 'api-key-ip' }, inputLabel: { shrink: true } }}
        />
        <FormControlLabel
          control={<Switch checked={values.active === 1} onChange={(e) => setValues({ ...values, active: e.target.checked ? 1 : 0 })} />}
          label={translate('team.apiKeys.activeLabel')}
        />
      </Stack>
      <Typography sx={{ fontWeight: 700, mt: 2, mb: 1 }}>{translate('team.apiKeys.permissions')}</Typography>
      <Box sx={{ border: 1, borderColor: 'divider', borderRadius: '8px', maxHeight: 280, overflowY: 'auto' }} data-testid="api-key-permissions">
        {choices.length === 0 && (
          <Typography variant="body2" color="text.secondary" sx={{ p: 2 }}>
            {translate('team.apiKeys.noPermissions')}
          </Typography>
        )}
        {choices.map((g) => {
          const held = g.permissions.filter((p) => values.permissions.includes(p)).length;
          return (
            <Box key={g.key} sx={{ px: 1.5, py: 1, borderBottom: 1, borderColor: 'divider', '&:last-child': { borderBottom: 0 } }}>
              <FormControlLabel
                control={<Checkbox size="small" checked={held === g.permissions.length} indeterminate={held > 0 && held < g.permissions.length} onChange={(e) => toggle(g.permissions, e.target.checked)} />}
                label={<Typography sx={{ fontWeight: 600, fontSize: 14 }}>{translate(`team.permissions.groups.${g.key}`, { _: g.label })}</Typography>}
              />
              <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, pl: 3 }}>
                {g.permissions.map((p) => (
                  <FormControlLabel
                    key={p}
                    control={<Checkbox size="small" checked={values.permissions.includes(p)} onChange={(e) => toggle([p], e.target.checked)} slotProps={{ input: { 'data-testid': `key-perm-${p}` } as object }} />}
                    label={<Typography variant="body2">{label(p)}</Typography>}
                  />
                ))}
              </Box>
            </Box>
          );
        })}
      </Box>
      <ConfirmDialog
        open={confirmEmpty}
        testId="api-key-empty-confirm"
        title={translate('team.apiKeys.emptyConfirm.title')}
        text={translate('team.apiKeys.emptyConfirm.text')}
        confirmLabel={translate(apiKey ? 'team.apiKeys.emptyConfirm.save' : 'team.apiKeys.emptyConfirm.create')}
        onConfirm={() => void submit(true)}
        onClose={() => setConfirmEmpty(false)}
      />
    </FormDialog>
  );
};
