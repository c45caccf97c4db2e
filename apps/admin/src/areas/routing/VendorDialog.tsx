import StorefrontRoundedIcon from '@mui/icons-material/StorefrontRounded';
import { Box, FormControlLabel, MenuItem, Switch, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { mono } from '../streams/labels';
import { FormDialog } from '../../ui/modal/FormDialog';
import { errorText, fieldErrors } from '../streams/widgets/errors';
import { FormSection } from '../streams/widgets/InfoBox';
import { routingApi } from './api';
import { ADAPTERS_OF, CURRENCY, ROUTING_PROVIDERS, SERVICE_TYPES, type ServiceType } from './constants';
import type { Vendor, VendorInput } from './types';

interface Values {
  name: string;
  service_type: ServiceType;
  adapter: string;
  carrier: string;
  product_name: string;
  product_id: string;
  currency: string;
  active: boolean;
  config: string;
  routingProvider: number;
}

/** How the server shows a saved secret of the config. */
const MASKED = '********';

const blank: Values = { name: '', service_type: 'sms', adapter: 'smpp', carrier: '', product_name: '', product_id: '', currency: 'EUR', active: true, config: '{\n  \n}', routingProvider: 1 };
const SAMPLE: Record<string, string> = {
  smpp: '{\n  "host": "smsc.example.net",\n  "port": 2775,\n  "systemId": "switchboard",\n  "password": "",\n  "tps": 50\n}',
  simulator: '{\n  "deliveryRatio": 1,\n  "delayMs": 1000\n}',
};

/**
 * Create or edit a vendor (spec 3: service_type, carrier, product_name, active, product_id, currency) with the
 * adapter's connection settings as JSON. Secrets come back masked; the server replaces the whole config, so an unchanged config is not sent and a changed
 * one must carry its secrets again.
 */
export const VendorDialog = ({ open, vendor, onClose, onSaved }: { open: boolean; vendor: Vendor | null; onClose: () => void; onSaved: (v: Vendor) => void }) => {
  const translate = useTranslate();
  const [v, setV] = useState<Values>(blank);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [server, setServer] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    setV(
      vendor
        ? { name: vendor.name, service_type: vendor.service_type as ServiceType, adapter: vendor.adapter, carrier: vendor.carrier, product_name: vendor.product_name, product_id: vendor.product_id, currency: vendor.currency, active: vendor.active, config: JSON.stringify(vendor.config ?? {}, null, 2), routingProvider: 1 }
        : { ...blank, config: SAMPLE.smpp },
    );
    setSubmitted(false);
    setServer({});
    setBanner(null);
  }, [open, vendor]);

  let config: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(v.config || '{}');
    config = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch (_e) {
    config = null;
  }
  const errors: Record<string, string | undefined> = {
    name: v.name.trim() ? undefined : translate('streams.errors.client.required'),
    currency: CURRENCY.test(v.currency) ? undefined : translate('routing.vendors.currencyInvalid'),
    config: !config
      ? translate('routing.vendors.configInvalid')
      : vendor && JSON.stringify(config) !== JSON.stringify(vendor.config ?? {}) && Object.values(config).includes(MASKED)
        ? translate('routing.vendors.reenterSecrets')
        : undefined,
  };
  const shown = (f: string) => server[f] || (submitted ? errors[f] : undefined);

  const submit = async () => {
    setSubmitted(true);
    if (Object.values(errors).some(Boolean) || busy || !config) return;
    setBusy(true);
    setBanner(null);
    try {
      const common = { name: v.name.trim(), carrier: v.carrier.trim(), product_name: v.product_name.trim(), product_id: v.product_id.trim(), currency: v.currency, active: v.active };
      // The server replaces the whole config: an unchanged one is not sent (its masked secrets stay as saved).
      const changed = !vendor || JSON.stringify(config) !== JSON.stringify(vendor.config ?? {});
      const body: VendorInput = vendor ? { ...common, ...(changed ? { config } : {}) } : { ...common, service_type: v.service_type, adapter: v.adapter, config, routingProvider: v.routingProvider };
      onSaved(vendor ? await routingApi.updateVendor(vendor.id, body) : await routingApi.createVendor(body));
    } catch (error) {
      const f = fieldErrors(error, translate);
      setServer(f);
      if (!Object.keys(f).length) setBanner(errorText(error, translate));
    } finally {
      setBusy(false);
    }
  };

  const text = (f: keyof Values, label: string, props: Record<string, unknown> = {}) => (
    <TextField label={label} value={v[f] as string} onChange={(e) => setV({ ...v, [f]: e.target.value })} error={!!shown(f)} helperText={shown(f) ?? ' '} slotProps={{ htmlInput: { 'data-testid': `vendor-${f}` } }} {...props} />
  );

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      size="m"
      icon={<StorefrontRoundedIcon fontSize="small" />}
      title={translate(vendor ? 'routing.vendors.edit' : 'routing.vendors.create')}
      subtitle={vendor ? `${vendor.name} · ${translate(`routing.serviceTypes.${vendor.service_type}`, { _: vendor.service_type })}` : undefined}
      testId="vendor-dialog"
      busy={busy}
      submitLabel={translate(vendor ? 'streams.ui.saveChanges' : 'routing.vendors.createSubmit')}
      submitTestId="vendor-submit"
      onSubmit={() => void submit()}
      formId="vendor-form"
      error={banner}
    >
      <FormSection title={translate('routing.vendors.general')}>
        {text('name', translate('routing.vendors.name'), { required: true, autoFocus: !vendor })}
        {!vendor && (
          <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr 1fr' }, columnGap: 2 }}>
            <TextField select label={translate('routing.vendors.serviceType')} value={v.service_type} onChange={(e) => { const st = e.target.value as ServiceType; const adapter = ADAPTERS_OF[st][0]; setV({ ...v, service_type: st, adapter, config: SAMPLE[adapter] ?? '{\n  \n}' }); }} helperText=" " slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'vendor-service_type' } as object } }}>
              {SERVICE_TYPES.map((s) => <MenuItem key={s} value={s}>{translate(`routing.serviceTypes.${s}`)}</MenuItem>)}
            </TextField>
            <TextField select label={translate('routing.vendors.adapter')} value={v.adapter} onChange={(e) => setV({ ...v, adapter: e.target.value, config: SAMPLE[e.target.value] ?? v.config })} helperText=" " slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'vendor-adapter' } as object } }}>
              {ADAPTERS_OF[v.service_type].map((a) => <MenuItem key={a} value={a}>{translate(`routing.adapters.${a}`)}</MenuItem>)}
            </TextField>
            <TextField select label={translate('routing.vendors.routingProvider')} value={v.routingProvider} onChange={(e) => setV({ ...v, routingProvider: Number(e.target.value) })} helperText={translate('routing.vendors.routingProviderHint')}>
              {ROUTING_PROVIDERS.map((p) => <MenuItem key={p} value={p}>{p}</MenuItem>)}
            </TextField>
          </Box>
        )}
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr' }, columnGap: 2 }}>
          {text('carrier', translate('routing.vendors.carrier'))}
          {text('currency', translate('routing.vendors.currency'), { slotProps: { htmlInput: { 'data-testid': 'vendor-currency', maxLength: 3, style: { textTransform: 'uppercase' } } }, onChange: (e: { target: { value: string } }) => setV({ ...v, currency: e.target.value.toUpperCase() }) })}
          {text('product_name', translate('routing.vendors.productName'))}
          {text('product_id', translate('routing.vendors.productId'))}
        </Box>
        <FormControlLabel control={<Switch checked={v.active} onChange={(e) => setV({ ...v, active: e.target.checked })} />} label={<Typography variant="body2">{translate('routing.vendors.active')}</Typography>} />
      </FormSection>
      <FormSection title={translate('routing.vendors.connection')} hint={translate('routing.vendors.connectionHint')}>
        <TextField
          multiline
          minRows={6}
          value={v.config}
          onChange={(e) => setV({ ...v, config: e.target.value })}
          error={!!shown('config')}
          helperText={shown('config') ?? translate('routing.vendors.configHint')}
          slotProps={{ htmlInput: { 'data-testid': 'vendor-config', spellCheck: false, style: { ...mono, fontSize: 12.5, lineHeight: 1.6 } } }}
        />
      </FormSection>
    </FormDialog>
  );
};
