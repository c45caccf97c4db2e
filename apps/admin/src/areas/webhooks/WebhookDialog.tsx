import { Box, Checkbox, FormControlLabel, MenuItem, TextField } from '@mui/material';
import { useEffect, useState } from 'react';
import { useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { FormDialog } from '../../ui/modal/FormDialog';
import { TRIGGERS, type Webhook, type WebhookParams } from './types';

const PARAMS: Array<keyof WebhookParams> = ['send_bulk', 'include_message_text', 'include_contact_details', 'include_lead_id'];

interface Values {
  name: string;
  url: string;
  httpMethod: 'GET' | 'POST';
  trigger: string;
  streams: string;
  headers: string;
  params: WebhookParams;
}

const empty: Values = { name: '', url: '', httpMethod: 'POST', trigger: 'message_status_change', streams: '', headers: '', params: { send_bulk: false, include_message_text: true, include_contact_details: false, include_lead_id: false } };

/** Create and edit: name, URL, method, trigger, stream filter, params and headers (one `name: value` per line). */
export const WebhookDialog = ({ open, webhook, onClose, onSubmit }: { open: boolean; webhook: Webhook | null; onClose: () => void; onSubmit: (body: Record<string, unknown>) => Promise<void> }) => {
  const translate = useTranslate();
  const [v, setV] = useState<Values>(empty);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    setErrors({});
    setError(null);
    setV(
      webhook
        ? {
            name: webhook.name,
            url: webhook.url,
            httpMethod: webhook.httpMethod,
            trigger: webhook.trigger,
            streams: webhook.filter.stream_id.join(', '),
            headers: Object.entries(webhook.headers).map(([k, val]) => `${k}: ${val}`).join('\n'),
            params: webhook.params,
          }
        : empty,
    );
  }, [open, webhook]);

  const submit = async () => {
    const local: Record<string, string> = {};
    if (!v.name.trim()) local.name = translate('errors.client.required', { _: 'required' });
    if (!v.url.trim()) local.url = translate('errors.client.required', { _: 'required' });
    const headers: Record<string, string> = {};
    for (const line of v.headers.split('\n').map((l) => l.trim()).filter(Boolean)) {
      const i = line.indexOf(':');
      if (i <= 0) local.headers = translate('webhooks.form.headersHelp');
      else headers[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
    const ids = v.streams.split(/[\s,]+/).filter(Boolean);
    if (ids.some((s) => !/^\d+$/.test(s))) local.streams = translate('errors.client.digits', { _: 'digits only' });
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    setError(null);
    try {
      await onSubmit({
        name: v.name.trim(),
        url: v.url.trim(),
        httpMethod: v.httpMethod,
        trigger: v.trigger,
        headers: Object.keys(headers).length || webhook ? headers : undefined,
        filter: ids.length || webhook ? { stream_id: ids.map(Number) } : undefined,
        params: v.params,
      });
    } catch (e) {
      const fields: Record<string, string> = {};
      if (isApiError(e) && e.status === 400) for (const x of e.body?.violations ?? []) fields[x.propertyPath.split('.')[0]] ??= x.message;
      setErrors(fields);
      setError(Object.keys(fields).length ? null : isApiError(e) ? (e.body?.message ?? e.message) : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <FormDialog
      open={open}
      onClose={onClose}
      title={translate(webhook ? 'webhooks.form.editTitle' : 'webhooks.form.createTitle')}
      submitLabel={translate(webhook ? 'webhooks.form.save' : 'webhooks.form.create')}
      onSubmit={() => void submit()}
      busy={busy}
      formId="webhook-form"
      error={error}
      size="m"
      submitTestId="webhook-submit"
      testId="webhook-dialog"
    >
      <Box sx={{ display: 'grid', gap: 2, pt: 1 }}>
        <TextField label={translate('webhooks.fields.name')} value={v.name} onChange={(e) => setV({ ...v, name: e.target.value })} error={!!errors.name} helperText={errors.name} slotProps={{ htmlInput: { 'data-testid': 'webhook-name' } }} />
        <TextField label={translate('webhooks.fields.url')} value={v.url} onChange={(e) => setV({ ...v, url: e.target.value })} error={!!errors.url} helperText={errors.url} slotProps={{ htmlInput: { 'data-testid': 'webhook-url' } }} />
        <Box sx={{ display: 'grid', gridTemplateColumns: '140px 1fr', gap: 2 }}>
          <TextField select label={translate('webhooks.fields.httpMethod')} value={v.httpMethod} onChange={(e) => setV({ ...v, httpMethod: e.target.value as 'GET' | 'POST' })}>
            <MenuItem value="POST">POST</MenuItem>
            <MenuItem value="GET">GET</MenuItem>
          </TextField>
          <TextField select label={translate('webhooks.fields.trigger')} value={v.trigger} onChange={(e) => setV({ ...v, trigger: e.target.value })} error={!!errors.trigger} helperText={errors.trigger} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'webhook-trigger' } as object } }}>
            {TRIGGERS.map((t) => (
              <MenuItem key={t} value={t} data-testid={`trigger-${t}`}>
                {translate(`webhooks.triggers.${t}`)}
              </MenuItem>
            ))}
          </TextField>
        </Box>
        <TextField label={translate('webhooks.fields.streams')} placeholder="1, 2" value={v.streams} onChange={(e) => setV({ ...v, streams: e.target.value })} error={!!errors.streams || !!errors.filter} helperText={errors.streams ?? errors.filter ?? translate('webhooks.form.streamsHelp')} />
        <TextField label={translate('webhooks.fields.headers')} multiline minRows={2} placeholder="x-api-key: secret" value={v.headers} onChange={(e) => setV({ ...v, headers: e.target.value })} error={!!errors.headers} helperText={errors.headers ?? translate('webhooks.form.headersHelp')} />
        <Box sx={{ display: 'grid', gridTemplateColumns: '1fr 1fr' }}>
          {PARAMS.map((p) => (
            <FormControlLabel key={p} control={<Checkbox checked={v.params[p]} onChange={(e) => setV({ ...v, params: { ...v.params, [p]: e.target.checked } })} />} label={translate(`webhooks.params.${p}`)} />
          ))}
        </Box>
      </Box>
    </FormDialog>
  );
};
