import AccountCircleRoundedIcon from '@mui/icons-material/AccountCircleRounded';
import LockResetRoundedIcon from '@mui/icons-material/LockResetRounded';
import { Alert, Autocomplete, Avatar, Box, Button, Card, CardContent, Chip, CircularProgress, Grid, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { fetchProfile } from '../../../providers/auth-provider';
import { readTokens, saveTokens } from '../../../providers/token-store';
import { isSuperAdmin } from '../../../providers/types';
import { useProfile } from '../../../ui/useProfile';
import { enterPicksNotSubmits } from '../../../ui/modal/FormDialog';
import { teamApi } from '../api';
import type { Timezone } from '../types';
import { errorText, fieldErrors, messageText } from '../widgets/errors';
import { PageHeading } from '../../../ui/PageHeading';
import { personInitials } from '../widgets/PersonCell';
import { useApi } from '../../../ui/useApi';
import { charLimit, check, minPassword, noXss, required, sameAs } from '../widgets/validation';

/** Spec 3: the profile's timezone is a prefixed id (`/api/timezones/{id}`); an IANA name from older data still matches. */
export const timezoneIri = (t: Timezone) => `/api/timezones/${t.id}`;
export function findTimezone(value: string, zones: Timezone[]): Timezone | null {
  if (!value) return null;
  const m = /^\/api\/timezones\/(\d+)$/.exec(value);
  return (m ? zones.find((z) => z.id === Number(m[1])) : zones.find((z) => z.name === value)) ?? null;
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '−' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const DetailsCard = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const { profile, refetch } = useProfile();
  const zones = useApi(() => teamApi.timezones(), []);
  const [values, setValues] = useState({ firstName: '', lastName: '', timezone: '' });
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});

  useEffect(() => {
    if (profile) setValues({ firstName: profile.firstName, lastName: profile.lastName, timezone: profile.timezone });
  }, [profile]);

  const options = useMemo(() => zones.data?.items ?? [], [zones.data]);
  const selected = findTimezone(values.timezone, options);
  const errors = { firstName: check(values.firstName, charLimit(100), noXss), lastName: check(values.lastName, charLimit(100), noXss) };
  const shown = (f: 'firstName' | 'lastName') => serverFields[f] || (errors[f] ? messageText(errors[f] as string, translate, { limit: 100 }) : undefined);
  const changed = !!profile && (values.firstName !== profile.firstName || values.lastName !== profile.lastName || values.timezone !== profile.timezone);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (errors.firstName || errors.lastName || busy) return;
    setBusy(true);
    setServerFields({});
    try {
      await teamApi.updateProfile({ firstName: values.firstName.trim(), lastName: values.lastName.trim(), timezone: values.timezone || null });
      await fetchProfile(true);
      await refetch();
      notify('team.profile.saved', { type: 'success' });
    } catch (error) {
      const fields = fieldErrors(error, translate);
      setServerFields(fields);
      if (!Object.keys(fields).length) notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card component="form" noValidate onSubmit={submit} onKeyDown={enterPicksNotSubmits} data-testid="profile-details-card">
      <CardContent sx={{ p: 3 }}>
        <Typography variant="h6" gutterBottom>
          {translate('team.profile.details')}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 3 }}>
          {translate('team.profile.detailsText')}
        </Typography>
        <Stack spacing={1}>
          <TextField label={translate('team.profile.email')} value={profile?.email ?? ''} disabled helperText=" " />
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField
              label={translate('team.profile.firstName')}
              value={values.firstName}
              onChange={(e) => setValues({ ...values, firstName: e.target.value })}
              error={!!shown('firstName')}
              helperText={shown('firstName') ?? ' '}
              slotProps={{ htmlInput: { 'data-testid': 'profile-first-name' } }}
            />
            <TextField
              label={translate('team.profile.lastName')}
              value={values.lastName}
              onChange={(e) => setValues({ ...values, lastName: e.target.value })}
              error={!!shown('lastName')}
              helperText={shown('lastName') ?? ' '}
              slotProps={{ htmlInput: { 'data-testid': 'profile-last-name' } }}
            />
          </Stack>
          <Autocomplete
            options={options}
            loading={zones.loading}
            value={selected}
            onChange={(_e, z) => setValues({ ...values, timezone: z ? timezoneIri(z) : '' })}
            getOptionLabel={(z) => `${z.name} (${z.countryCode})`}
            isOptionEqualToValue={(a, b) => a.id === b.id}
            renderOption={({ key, ...props }, z) => (
              <Box component="li" key={key} {...props} sx={{ display: 'flex', justifyContent: 'space-between', gap: 2 }}>
                <span>
                  {z.name} <Typography component="span" variant="body2" color="text.secondary">({z.countryCode})</Typography>
                </span>
                <Typography component="span" variant="caption" color="text.secondary">
                  {offsetText(z.utcOffset)}
                </Typography>
              </Box>
            )}
            renderInput={(params) => (
              <TextField
                {...params}
                label={translate('team.profile.timezone')}
                error={!!serverFields.timezone}
                helperText={serverFields.timezone || translate('team.profile.timezoneHint')}
                inputProps={{ ...params.inputProps, 'data-testid': 'profile-timezone' }}
              />
            )}
          />
        </Stack>
        <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: 3 }}>
          <Button type="submit" variant="contained" disabled={busy || !changed} data-testid="profile-save" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('team.actions.saveChanges')}
          </Button>
        </Box>
      </CardContent>
    </Card>
  );
};

const PasswordCard = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const [values, setValues] = useState({ oldPassword: '', password: '', confirm: '' });
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});

  const errors: Record<string, string | undefined> = {
    oldPassword: check(values.oldPassword, required),
    password: check(values.password, required, minPassword),
    confirm: check(values.confirm, required, sameAs(values.password)),
  };
  const shown = (f: string) => serverFields[f] || (errors[f] && (submitted || (f === 'confirm' && values.confirm !== '')) ? messageText(errors[f] as string, translate, { min: 8 }) : undefined);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.values(errors).some(Boolean) || busy) return;
    setBusy(true);
    setServerFields({});
    try {
      const answer = await teamApi.changePassword(values.oldPassword, values.password);
      // every other session ended; this one goes on with the tokens the answer carries
      if (answer.token) saveTokens({ token: answer.token, refresh_token: answer.refresh_token }, readTokens()?.remember);
      setValues({ oldPassword: '', password: '', confirm: '' });
      setSubmitted(false);
      notify('team.profile.passwordChanged', { type: 'success' });
    } catch (error) {
      const fields = fieldErrors(error, translate);
      setServerFields(fields);
      if (!Object.keys(fields).length) notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  const field = (name: 'oldPassword' | 'password' | 'confirm', autoComplete: string) => (
    <TextField
      type="password"
      label={translate(`team.profile.${name}`)}
      value={values[name]}
      autoComplete={autoComplete}
      onChange={(e) => {
        setValues({ ...values, [name]: e.target.value });
        setServerFields({ ...serverFields, [name]: '' });
      }}
      error={!!shown(name)}
      helperText={shown(name) ?? ' '}
      slotProps={{ htmlInput: { 'data-testid': `profile-${name}` } }}
    />
  );

  return (
    <Card component="form" noValidate onSubmit={submit} data-testid="profile-password-card">
      <CardContent sx={{ p: 3 }}>
        <Typography variant="h6" gutterBottom>
          {translate('team.profile.passwordTitle')}
        </Typography>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 3 }}>
          {translate('team.profile.passwordText')}
        </Typography>
        <Stack spacing={1}>
          {field('oldPassword', 'current-password')}
          {field('password', 'new-password')}
          {field('confirm', 'new-password')}
        </Stack>
        <Box sx={{ display: 'flex', justifyContent: 'flex-end', mt: 2 }}>
          <Button type="submit" variant="outlined" disabled={busy} startIcon={busy ? <CircularProgress size={16} color="inherit" /> : <LockResetRoundedIcon />} data-testid="profile-password-save">
            {translate('team.profile.changePassword')}
          </Button>
        </Box>
      </CardContent>
    </Card>
  );
};

/** /profile: names, time zone (GET /api/timezones) and password change (spec 3, 7). */
export const ProfilePage = () => {
  const translate = useTranslate();
  const { profile } = useProfile();
  return (
    <Box sx={{ maxWidth: 1100 }} data-testid="profile-page">
      <PageHeading title={translate('team.profile.title')} subtitle={translate('team.profile.subtitle')} icon={<AccountCircleRoundedIcon />} />
      {profile && (
        <Card sx={{ mb: 3 }}>
          <CardContent sx={{ display: 'flex', alignItems: 'center', gap: 2.5, p: 3, '&:last-child': { pb: 3 }, flexWrap: 'wrap' }}>
            <Avatar sx={{ width: 64, height: 64, fontSize: 24, fontWeight: 700, bgcolor: 'primary.main' }}>{personInitials(profile.firstName, profile.lastName, profile.email)}</Avatar>
            <Box sx={{ flex: 1, minWidth: 200 }}>
              <Typography variant="h6">{[profile.firstName, profile.lastName].filter(Boolean).join(' ') || profile.email}</Typography>
              <Typography color="text.secondary">{profile.email}</Typography>
            </Box>
            <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap' }}>
              {isSuperAdmin(profile) && <Chip color="primary" label={translate('team.profile.superAdmin')} />}
              {profile.customer && <Chip variant="outlined" label={profile.customer.name} />}
            </Stack>
          </CardContent>
        </Card>
      )}
      {!profile && <Alert severity="info">{translate('team.profile.loading')}</Alert>}
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 7 }}>
          <DetailsCard />
        </Grid>
        <Grid size={{ xs: 12, md: 5 }}>
          <PasswordCard />
        </Grid>
      </Grid>
    </Box>
  );
};
