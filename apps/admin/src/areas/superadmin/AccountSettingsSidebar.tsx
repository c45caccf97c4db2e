import AccountBalanceWalletRoundedIcon from '@mui/icons-material/AccountBalanceWalletRounded';
import { Alert, Box, Button, CircularProgress, Divider, FormControlLabel, MenuItem, Stack, Switch, TextField, Typography } from '@mui/material';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { AccountAvatar } from '../../ui/AccountAvatar';
import { RightSidebar } from '../../ui/RightSidebar';
import { errorText, fieldErrors, messageText } from '../team/widgets/errors';
import { useApi } from '../../ui/useApi';
import { charLimit, check, noXss, required } from '../team/widgets/validation';
import { FEATURE_FLAGS, GEN_FLAGS, GENERATIVE_SERVICES, money, superAdminApi, type Customer, type CustomSettings, type GenSettings } from './api';
import { AccountStatusChip } from './StatusControls';

const Section = ({ title, text, children }: { title: string; text?: string; children: ReactNode }) => (
  <Box sx={{ mb: 3.5 }}>
    <Typography sx={{ fontWeight: 700, mb: 0.25 }}>{title}</Typography>
    {text && (
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>
        {text}
      </Typography>
    )}
    {children}
  </Box>
);

const DIGITS = /^\d+$/;
const DECIMAL = /^-?\d+(\.\d{1,6})?$/;
const POSITIVE_DECIMAL = /^\d+(\.\d{1,6})?$/;

interface Form {
  name: string;
  shortName: string;
  tps: string;
  dailyLimit: string;
  unlimited: boolean;
  balanceLimit: string;
  custom: Record<string, boolean>;
  gen: Record<string, boolean>;
  service: GenSettings['default_generative_service'];
}

const formOf = (a: Customer): Form => ({
  name: a.name,
  shortName: a.shortName ?? '',
  tps: String(a.tps),
  dailyLimit: a.customSettings.streams_max_messages_per_day === null ? '' : String(a.customSettings.streams_max_messages_per_day),
  unlimited: a.customSettings.streams_max_messages_per_day === null,
  balanceLimit: String(a.customSettings.balance_limit),
  custom: Object.fromEntries(FEATURE_FLAGS.map((f) => [f, !!a.customSettings[f]])),
  gen: Object.fromEntries(GEN_FLAGS.map((f) => [f, !!a.genSettings[f]])),
  service: a.genSettings.default_generative_service,
});

/** Settings and limits of one account in the 600 px side panel: names, TPS, daily limit, feature flags, balance. */
export const AccountSettingsSidebar = ({ account, onClose, onChanged }: { account: Customer | null; onClose: () => void; onChanged: () => void }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const locale = translate('team.locale');
  const [form, setForm] = useState<Form | null>(null);
  const [busy, setBusy] = useState(false);
  const [serverFields, setServerFields] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [adjust, setAdjust] = useState({ amount: '', reason: '' });
  const [adjustSubmitted, setAdjustSubmitted] = useState(false);
  const [adjusting, setAdjusting] = useState(false);
  const entries = useApi(() => superAdminApi.balanceEntries(account?.id ?? 0), [account?.id, account?.balance], !!account);

  useEffect(() => {
    if (account) {
      setForm(formOf(account));
      setServerFields({});
      setBanner(null);
    }
    // a fresh form only when another account opens: saving reloads the row and must not reset what is being typed
  }, [account?.id]);

  if (!account || !form) return <RightSidebar open={false} onClose={onClose} title="">{null}</RightSidebar>;

  const errors: Record<string, string | undefined> = {
    name: check(form.name, required, charLimit(255), noXss),
    shortName: check(form.shortName, charLimit(32), noXss),
    tps: !DIGITS.test(form.tps) ? 'errors.client.digits' : Number(form.tps) > 100000 ? 'errors.client.maxNumber' : undefined,
    dailyLimit: form.unlimited ? undefined : !DIGITS.test(form.dailyLimit) ? 'errors.client.digits' : undefined,
    balanceLimit: !POSITIVE_DECIMAL.test(form.balanceLimit) ? 'errors.client.onlyPositive' : undefined,
  };
  const shown = (f: string) => serverFields[f] || (errors[f] ? messageText(errors[f] as string, translate, { limit: f === 'shortName' ? 32 : 255, max: 100000 }) : undefined);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (Object.values(errors).some(Boolean) || busy) return;
    setBusy(true);
    setServerFields({});
    setBanner(null);
    const customSettings: Partial<CustomSettings> = {
      ...(form.custom as Partial<CustomSettings>),
      streams_max_messages_per_day: form.unlimited ? null : Number(form.dailyLimit),
      balance_limit: Number(form.balanceLimit),
    };
    try {
      await superAdminApi.update(account.id, {
        name: form.name.trim(),
        shortName: form.shortName.trim() || null,
        tps: Number(form.tps),
        customSettings,
        genSettings: { ...(form.gen as Partial<GenSettings>), default_generative_service: form.service },
      });
      notify('superadmin.settings.saved', { type: 'success', messageArgs: { name: form.name.trim() } });
      onChanged();
    } catch (error) {
      const fields = fieldErrors(error, translate);
      setServerFields(fields);
      setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  const adjustErrors = {
    amount: !DECIMAL.test(adjust.amount.trim()) || Number(adjust.amount) === 0 ? 'superadmin.balance.amountInvalid' : undefined,
    reason: check(adjust.reason, required, charLimit(500)),
  };
  const applyAdjustment = async (e: FormEvent) => {
    e.preventDefault();
    setAdjustSubmitted(true);
    if (adjustErrors.amount || adjustErrors.reason || adjusting) return;
    setAdjusting(true);
    try {
      const r = await superAdminApi.adjustBalance(account.id, adjust.amount.trim(), adjust.reason.trim());
      notify('superadmin.balance.adjusted', { type: 'success', messageArgs: { balance: money(r.balance, r.currency, locale) } });
      setAdjust({ amount: '', reason: '' });
      setAdjustSubmitted(false);
      onChanged();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      setAdjusting(false);
    }
  };

  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });
  return (
    <RightSidebar
      open={!!account}
      onClose={onClose}
      title={translate('superadmin.settings.title')}
      actions={
        <>
          <Button color="inherit" onClick={onClose}>
            {translate('team.actions.close')}
          </Button>
          <Button type="submit" form="account-settings" variant="contained" disabled={busy} data-testid="account-settings-save" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('team.actions.saveChanges')}
          </Button>
        </>
      }
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 3 }} data-testid="account-settings-panel">
        <AccountAvatar name={account.name} size={52} />
        <Box sx={{ flex: 1, minWidth: 0 }}>
          <Typography variant="h6" noWrap>
            {account.name}
          </Typography>
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <AccountStatusChip status={account.status} />
            <Typography variant="body2" color="text.secondary">
              #{account.id} · {account.currency}
            </Typography>
          </Stack>
        </Box>
      </Box>

      <Box component="form" id="account-settings" noValidate onSubmit={save}>
        {banner && (
          <Alert severity="error" sx={{ mb: 2 }}>
            {banner}
          </Alert>
        )}
        <Section title={translate('superadmin.settings.general')}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField size="small" label={translate('superadmin.fields.name')} value={form.name} onChange={(e) => set({ name: e.target.value })} error={!!shown('name')} helperText={shown('name') ?? ' '} />
            <TextField size="small" label={translate('superadmin.fields.shortName')} value={form.shortName} onChange={(e) => set({ shortName: e.target.value })} error={!!shown('shortName')} helperText={shown('shortName') ?? ' '} sx={{ maxWidth: { sm: 180 } }} />
          </Stack>
        </Section>

        <Section title={translate('superadmin.settings.limits')} text={translate('superadmin.settings.limitsText')}>
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <TextField
              size="small"
              label={translate('superadmin.fields.tps')}
              value={form.tps}
              onChange={(e) => set({ tps: e.target.value })}
              error={!!shown('tps')}
              helperText={shown('tps') ?? translate('superadmin.fields.tpsHint')}
              slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'settings-tps' } }}
            />
            <TextField
              size="small"
              label={translate('superadmin.fields.balanceLimit', { sign: account.currencySign })}
              value={form.balanceLimit}
              onChange={(e) => set({ balanceLimit: e.target.value })}
              error={!!shown('balanceLimit')}
              helperText={shown('balanceLimit') ?? translate('superadmin.fields.balanceLimitHint')}
              slotProps={{ htmlInput: { inputMode: 'decimal', 'data-testid': 'settings-balance-limit' } }}
            />
          </Stack>
          <Stack direction="row" spacing={2} sx={{ alignItems: 'flex-start', mt: 1 }}>
            <TextField
              size="small"
              label={translate('superadmin.fields.dailyLimit')}
              value={form.unlimited ? '' : form.dailyLimit}
              disabled={form.unlimited}
              onChange={(e) => set({ dailyLimit: e.target.value })}
              error={!!shown('dailyLimit')}
              helperText={shown('dailyLimit') ?? translate('superadmin.fields.dailyLimitHint')}
              slotProps={{ htmlInput: { inputMode: 'numeric', 'data-testid': 'settings-daily-limit' } }}
            />
            <FormControlLabel
              sx={{ mt: 0.5, whiteSpace: 'nowrap' }}
              control={<Switch checked={form.unlimited} onChange={(e) => set({ unlimited: e.target.checked, dailyLimit: e.target.checked ? '' : form.dailyLimit || '10000' })} />}
              label={translate('superadmin.noLimit')}
            />
          </Stack>
        </Section>

        <Section title={translate('superadmin.settings.features')} text={translate('superadmin.settings.featuresText')}>
          <Box sx={{ border: 1, borderColor: 'divider', borderRadius: '8px' }}>
            {FEATURE_FLAGS.map((f, i) => (
              <Box key={f} sx={{ display: 'flex', alignItems: 'center', px: 1.5, py: 0.5, borderTop: i ? 1 : 0, borderColor: 'divider' }}>
                <Box sx={{ flex: 1 }}>
                  <Typography variant="body2" sx={{ fontWeight: 500 }}>
                    {translate(`superadmin.flags.${f}`)}
                  </Typography>
                  <Typography variant="caption" color="text.secondary" sx={{ fontFamily: 'ui-monospace, monospace' }}>
                    {f}
                  </Typography>
                </Box>
                <Switch checked={form.custom[f]} onChange={(e) => set({ custom: { ...form.custom, [f]: e.target.checked } })} slotProps={{ input: { 'aria-label': f, 'data-testid': `flag-${f}` } as object }} />
              </Box>
            ))}
          </Box>
        </Section>

        <Section title={translate('superadmin.settings.generative')}>
          <Box sx={{ border: 1, borderColor: 'divider', borderRadius: '8px', mb: 2 }}>
            {GEN_FLAGS.map((f, i) => (
              <Box key={f} sx={{ display: 'flex', alignItems: 'center', px: 1.5, py: 0.5, borderTop: i ? 1 : 0, borderColor: 'divider' }}>
                <Typography variant="body2" sx={{ flex: 1, fontWeight: 500 }}>
                  {translate(`superadmin.flags.${f}`)}
                </Typography>
                <Switch checked={form.gen[f]} onChange={(e) => set({ gen: { ...form.gen, [f]: e.target.checked } })} slotProps={{ input: { 'aria-label': f } }} />
              </Box>
            ))}
          </Box>
          <TextField select size="small" label={translate('superadmin.fields.generativeService')} value={form.service} onChange={(e) => set({ service: e.target.value as GenSettings['default_generative_service'] })} sx={{ maxWidth: 260 }}>
            {GENERATIVE_SERVICES.map((s) => (
              <MenuItem key={s} value={s}>
                {translate(`superadmin.services.${s}`)}
              </MenuItem>
            ))}
          </TextField>
        </Section>
      </Box>

      <Divider sx={{ mb: 3 }} />
      <Section title={translate('superadmin.balance.title')}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, p: 2, mb: 2, borderRadius: '10px', bgcolor: '#f5f6fa' }}>
          <Box sx={{ width: 40, height: 40, borderRadius: '10px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main' }}>
            <AccountBalanceWalletRoundedIcon />
          </Box>
          <Box>
            <Typography variant="caption" color="text.secondary">
              {translate('superadmin.balance.current')}
            </Typography>
            <Typography variant="h5" sx={{ fontVariantNumeric: 'tabular-nums', color: account.balance < 0 ? 'error.main' : 'text.primary' }} data-testid="account-balance">
              {money(account.balance, account.currency, locale)}
            </Typography>
          </Box>
        </Box>
        <Box component="form" noValidate onSubmit={applyAdjustment} sx={{ display: 'flex', gap: 1.5, alignItems: 'flex-start', flexWrap: 'wrap' }}>
          <TextField
            size="small"
            label={translate('superadmin.balance.amount', { sign: account.currencySign })}
            value={adjust.amount}
            onChange={(e) => setAdjust({ ...adjust, amount: e.target.value })}
            error={adjustSubmitted && !!adjustErrors.amount}
            helperText={adjustSubmitted && adjustErrors.amount ? translate(adjustErrors.amount) : translate('superadmin.balance.amountHint')}
            sx={{ width: 170 }}
            slotProps={{ htmlInput: { inputMode: 'decimal', 'data-testid': 'balance-amount' } }}
          />
          <TextField
            size="small"
            label={translate('superadmin.balance.reason')}
            value={adjust.reason}
            onChange={(e) => setAdjust({ ...adjust, reason: e.target.value })}
            error={adjustSubmitted && !!adjustErrors.reason}
            helperText={adjustSubmitted && adjustErrors.reason ? messageText(adjustErrors.reason, translate, { limit: 500 }) : ' '}
            sx={{ flex: 1, minWidth: 180 }}
            slotProps={{ htmlInput: { 'data-testid': 'balance-reason' } }}
          />
          <Button type="submit" variant="outlined" disabled={adjusting} sx={{ mt: 0.25 }} data-testid="balance-apply" startIcon={adjusting ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('superadmin.balance.apply')}
          </Button>
        </Box>
        {(entries.data?.items.length ?? 0) > 0 && (
          <Box sx={{ mt: 2 }}>
            <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600, textTransform: 'uppercase', letterSpacing: '.04em' }}>
              {translate('superadmin.balance.recent')}
            </Typography>
            {entries.data?.items.map((e) => (
              <Box key={e.id} sx={{ display: 'flex', alignItems: 'center', gap: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
                <Box sx={{ flex: 1, minWidth: 0 }}>
                  <Typography variant="body2" noWrap>
                    {e.reason || translate(`superadmin.balance.kinds.${e.kind}`, { _: e.kind })}
                  </Typography>
                  <Typography variant="caption" color="text.secondary">
                    {new Date(e.createdAt).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' })}
                  </Typography>
                </Box>
                <Typography variant="body2" sx={{ fontWeight: 600, fontVariantNumeric: 'tabular-nums', color: e.amount < 0 ? 'error.main' : 'success.main' }}>
                  {e.amount > 0 ? '+' : ''}
                  {money(e.amount, e.currency, locale)}
                </Typography>
              </Box>
            ))}
          </Box>
        )}
      </Section>
    </RightSidebar>
  );
};
