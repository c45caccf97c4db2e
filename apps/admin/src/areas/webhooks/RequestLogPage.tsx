import ReceiptLongRoundedIcon from '@mui/icons-material/ReceiptLongRounded';
import { Alert, Box, Drawer, MenuItem, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { PageHeading } from '../../ui/PageHeading';
import { useCan } from '../../ui/permissions';
import { StatusChip } from '../../ui/StatusChip';
import { DataTable, type Column } from '../../ui/table/DataTable';
import { TableToolbar } from '../../ui/table/TableToolbar';
import { useServerTable } from '../../ui/table/useTable';
import { useApi } from '../../ui/useApi';
import { RIGHT_SIDEBAR_WIDTH } from '../../constants';
import { P, webhooksApi } from './api';
import { MethodBadge, RequestPreviewCard, truncateUri } from './RequestPreviewCard';
import type { RequestLogEntry } from './types';

const TONE = { success: 'success', failed: 'danger', timeout: 'warning' } as const;

/** /webhook-requests: every delivery attempt (spec 3, Webhook request log), filtered by webhook and status, a side panel per attempt. */
export const RequestLogPage = () => {
  const translate = useTranslate();
  const can = useCan();
  const hooks = useApi(() => webhooksApi.list(), [], can(P.WebhookView));
  const table = useServerTable<RequestLogEntry>(
    'webhookRequests',
    (q) => webhooksApi.log({ page: q.page, perPage: q.perPage, webhook: q.filter.webhook ? Number(q.filter.webhook) : undefined, status: q.filter.status ? String(q.filter.status) : undefined }),
    { field: 'id', order: 'desc' },
    {},
    can(P.WebhookRequestView),
  );
  const [open, setOpen] = useState<RequestLogEntry | null>(null);
  const name = (id: number) => hooks.data?.items.find((w) => w.id === id)?.name ?? `#${id}`;

  const columns: Column<RequestLogEntry>[] = [
    { key: 'sentAt', label: translate('webhooks.log.sentAt'), render: (r) => new Date(r.sentAt).toLocaleString() },
    { key: 'webhook', label: translate('webhooks.log.webhook'), render: (r) => name(r.webhookId) },
    { key: 'request', label: translate('webhooks.log.request'), render: (r) => <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}><MethodBadge method={r.request.method} /><Typography noWrap sx={{ fontSize: 13 }}>{truncateUri(r.request.uri)}</Typography></Box> },
    { key: 'status', label: translate('webhooks.log.status'), render: (r) => <StatusChip tone={TONE[r.status]} testId="log-status">{translate(`webhooks.test.${r.status}`)}</StatusChip> },
    { key: 'response', label: translate('webhooks.log.response'), render: (r) => (r.response ? `HTTP ${r.response.status}` : (r.error ?? '—')) },
    { key: 'attempt', label: translate('webhooks.log.attempt'), render: (r) => (r.test ? translate('webhooks.log.test') : r.attempt) },
    { key: 'durationMs', label: translate('webhooks.log.duration'), render: (r) => `${r.durationMs} ms` },
  ];

  if (!can(P.WebhookRequestView)) {
    return (
      <Box>
        <PageHeading title={translate('webhooks.log.title')} icon={<ReceiptLongRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.WebhookRequestView })}</Alert>
      </Box>
    );
  }

  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="webhook-requests-page">
      <PageHeading title={translate('webhooks.log.title')} subtitle={translate('webhooks.log.subtitle')} icon={<ReceiptLongRoundedIcon />} />
      {table.error ? <Alert severity="error" sx={{ mb: 2 }}>{isApiError(table.error) ? table.error.message : String(table.error)}</Alert> : null}
      <DataTable
        testId="webhook-requests-table"
        rowTestId="webhook-request-row"
        columns={columns}
        rows={table.rows}
        rowKey={(r) => r.id}
        loading={table.loading}
        pagination={table.pagination}
        onRowClick={setOpen}
        toolbar={
          <TableToolbar>
            <TextField select size="small" sx={{ minWidth: 220 }} label={translate('webhooks.log.webhook')} value={table.filter.webhook ?? ''} onChange={(e) => table.setFilter({ webhook: e.target.value || undefined })}>
              <MenuItem value="">{translate('webhooks.log.all')}</MenuItem>
              {(hooks.data?.items ?? []).map((w) => <MenuItem key={w.id} value={String(w.id)}>{w.name}</MenuItem>)}
            </TextField>
            <TextField select size="small" sx={{ minWidth: 160 }} label={translate('webhooks.log.status')} value={table.filter.status ?? ''} onChange={(e) => table.setFilter({ status: e.target.value || undefined })}>
              <MenuItem value="">{translate('webhooks.log.all')}</MenuItem>
              {(['success', 'failed', 'timeout'] as const).map((s) => <MenuItem key={s} value={s}>{translate(`webhooks.test.${s}`)}</MenuItem>)}
            </TextField>
          </TableToolbar>
        }
      />
      <Drawer anchor="right" open={!!open} onClose={() => setOpen(null)} slotProps={{ paper: { sx: { width: RIGHT_SIDEBAR_WIDTH, maxWidth: '100%', p: 3 } } }}>
        {open && (
          <Box data-testid="webhook-request-panel" sx={{ display: 'grid', gap: 1.5 }}>
            <Typography variant="h6">{name(open.webhookId)}</Typography>
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
              <StatusChip tone={TONE[open.status]}>{translate(`webhooks.test.${open.status}`)}</StatusChip>
              <Typography color="text.secondary" sx={{ fontSize: 13 }}>
                {new Date(open.sentAt).toLocaleString()} · {open.durationMs} ms · {open.error ?? ''}
              </Typography>
            </Box>
            {open.eventId && <Typography sx={{ fontSize: 12, fontFamily: 'monospace' }}>webhook-id: {open.eventId}</Typography>}
            <RequestPreviewCard request={open.request} response={open.response} defaultOpen />
          </Box>
        )}
      </Drawer>
    </Box>
  );
};
