import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import SendRoundedIcon from '@mui/icons-material/SendRounded';
import WebhookRoundedIcon from '@mui/icons-material/WebhookRounded';
import { Alert, Box, Button, Tab, Tabs, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { GatedButton, GatedIconButton } from '../../ui/Gated';
import { AppModal } from '../../ui/modal/AppModal';
import { ConfirmDialog } from '../../ui/modal/ConfirmDialog';
import { PageHeading } from '../../ui/PageHeading';
import { useCan } from '../../ui/permissions';
import { StatusChip } from '../../ui/StatusChip';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { useClientTable } from '../../ui/table/useTable';
import { useApi } from '../../ui/useApi';
import { P, webhooksApi } from './api';
import { MethodBadge, RequestPreviewCard, truncateUri, URI_MAX } from './RequestPreviewCard';
import type { TestResult, Webhook } from './types';
import { WebhookDialog } from './WebhookDialog';

const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 13 };
const errText = (e: unknown) => (isApiError(e) ? (e.body?.message ?? e.message) : String(e));

/** Spec 2: the webhook test result modal: pending, then success, timeout (E-CONNECTION_TIMEOUT) or failed. */
const TestResultModal = ({ state, onClose }: { state: { pending: true } | { pending: false; result: TestResult } | null; onClose: () => void }) => {
  const translate = useTranslate();
  if (!state) return null;
  const status = state.pending ? 'pending' : state.result.code === 'E-CONNECTION_TIMEOUT' ? 'timeout' : state.result.status;
  return (
    <AppModal
      open
      onClose={onClose}
      size="m"
      type={status === 'success' ? 'success' : status === 'pending' ? undefined : status === 'timeout' ? 'warning' : 'error'}
      title={translate(`webhooks.test.${status}`)}
      testId="webhook-test-result"
      actions={<Button onClick={onClose}>{translate('ui.actions.close', { _: 'Close' })}</Button>}
    >
      <Box data-testid={`webhook-test-${status}`} sx={{ display: 'grid', gap: 1.5 }}>
        {state.pending ? (
          <Typography color="text.secondary">{translate('webhooks.test.pendingText')}</Typography>
        ) : (
          <>
            <Typography color="text.secondary">
              {state.result.response ? `HTTP ${state.result.response.status} · ${state.result.durationMs} ms` : (state.result.code ?? '')}
            </Typography>
            <RequestPreviewCard request={state.result.request} response={state.result.response} defaultOpen />
          </>
        )}
      </Box>
    </AppModal>
  );
};

/** /webhooks: the account's webhooks (spec 3, 7), create and edit, the test button, the code snippets. */
export const WebhooksPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const list = useApi(() => webhooksApi.list(), [], can(P.WebhookView));
  const snippets = useApi(() => webhooksApi.snippets(), [], can(P.WebhookView));
  const [dialog, setDialog] = useState<{ webhook: Webhook | null } | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [test, setTest] = useState<{ pending: true } | { pending: false; result: TestResult } | null>(null);
  const [removing, setRemoving] = useState<Webhook | null>(null);
  const [lang, setLang] = useState<'node' | 'python' | 'php' | 'curl'>('node');

  const runTest = async (w: Webhook) => {
    setTest({ pending: true });
    try {
      setTest({ pending: false, result: await webhooksApi.test(w.id) });
    } catch (e) {
      setTest(null);
      notify(errText(e), { type: 'error' });
    }
  };

  const columns: Column<Webhook>[] = [
    { key: 'name', label: translate('webhooks.fields.name'), sortable: true, sortValue: (w) => w.name.toLowerCase(), render: (w) => <Typography sx={{ fontWeight: 600 }} data-testid="webhook-row-name">{w.name}</Typography> },
    {
      key: 'url',
      label: translate('webhooks.fields.url'),
      render: (w) => (
        <Box sx={{ display: 'flex', gap: 1, alignItems: 'center' }}>
          <MethodBadge method={w.httpMethod} />
          <Tooltip title={w.url.length > URI_MAX ? w.url : ''}>
            <Typography sx={mono} noWrap>{truncateUri(w.url)}</Typography>
          </Tooltip>
        </Box>
      ),
    },
    { key: 'trigger', label: translate('webhooks.fields.trigger'), sortable: true, sortValue: (w) => w.trigger, render: (w) => translate(`webhooks.triggers.${w.trigger}`) },
    {
      key: 'active',
      label: translate('webhooks.fields.active'),
      render: (w) => (
        <Tooltip title={w.disabledReason ?? ''}>
          <span>
            <StatusChip tone={w.active ? 'success' : 'neutral'}>{translate(w.active ? 'webhooks.active' : 'webhooks.inactive')}</StatusChip>
          </span>
        </Tooltip>
      ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      render: (w) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <GatedIconButton permission={P.WebhookAddEdit} title={translate('webhooks.actions.test')} onClick={() => void runTest(w)} data-testid="webhook-test">
            <SendRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.WebhookAddEdit} title={translate('webhooks.actions.edit')} onClick={() => setDialog({ webhook: w })} data-testid="webhook-edit">
            <EditRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.WebhookRemove} title={translate('webhooks.actions.delete')} onClick={() => setRemoving(w)} data-testid="webhook-delete">
            <DeleteOutlineRoundedIcon fontSize="small" />
          </GatedIconButton>
        </Box>
      ),
    },
  ];
  const table = useClientTable(list.data?.items ?? [], columns, 'webhooks', { field: 'name', order: 'asc' });

  const submit = async (body: Record<string, unknown>) => {
    const editing = dialog?.webhook;
    if (editing) {
      await webhooksApi.update(editing.id, body);
      notify('webhooks.saved', { type: 'success' });
    } else {
      const created = await webhooksApi.create(body);
      setSecret(created.secret ?? null);
    }
    setDialog(null);
    await list.reload();
  };

  if (!can(P.WebhookView)) {
    return (
      <Box>
        <PageHeading title={translate('webhooks.title')} icon={<WebhookRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.WebhookView })}</Alert>
      </Box>
    );
  }

  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="webhooks-page">
      <PageHeading
        title={translate('webhooks.title')}
        subtitle={translate('webhooks.subtitle')}
        icon={<WebhookRoundedIcon />}
        actions={
          <GatedButton permission={P.WebhookAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ webhook: null })} data-testid="new-webhook">
            {translate('webhooks.create')}
          </GatedButton>
        }
      />
      {list.error ? <Alert severity="error" sx={{ mb: 2 }}>{errText(list.error)}</Alert> : null}
      <DataTable
        testId="webhooks-table"
        rowTestId="webhook-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(w) => w.id}
        loading={list.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        empty={<NoResults title={translate('webhooks.empty')} text={translate('webhooks.emptyText')} />}
      />
      {snippets.data && (
        <Box sx={{ mt: 3 }}>
          <Typography variant="h6" sx={{ mb: 1 }}>{translate('webhooks.snippets')}</Typography>
          <Tabs value={lang} onChange={(_, l: typeof lang) => setLang(l)}>
            {(['node', 'python', 'php', 'curl'] as const).map((l) => <Tab key={l} value={l} label={l} />)}
          </Tabs>
          <Box component="pre" sx={{ ...mono, p: 2, bgcolor: '#0f172a', color: '#e2e8f0', borderRadius: 1, overflow: 'auto', maxHeight: 420 }} data-testid="webhook-snippet">
            {snippets.data[lang]}
          </Box>
        </Box>
      )}

      <WebhookDialog open={!!dialog} webhook={dialog?.webhook ?? null} onClose={() => setDialog(null)} onSubmit={submit} />
      <AppModal open={!!secret} onClose={() => setSecret(null)} title={translate('webhooks.secret.title')} testId="webhook-secret" actions={<Button onClick={() => setSecret(null)}>{translate('ui.actions.close', { _: 'Close' })}</Button>}>
        <Alert severity="warning" sx={{ mb: 1.5 }}>{translate('webhooks.secret.once')}</Alert>
        <Box component="pre" sx={{ ...mono, p: 1.5, bgcolor: '#f6f7f9', borderRadius: 1, wordBreak: 'break-all', whiteSpace: 'pre-wrap' }} data-testid="webhook-secret-value">
          {secret}
        </Box>
      </AppModal>
      <TestResultModal state={test} onClose={() => setTest(null)} />
      <ConfirmDialog
        open={!!removing}
        danger
        title={translate('webhooks.confirmDelete.title')}
        text={translate('webhooks.confirmDelete.text', { name: removing?.name ?? '' })}
        onConfirm={() => {
          const w = removing;
          setRemoving(null);
          if (w) void webhooksApi.remove(w.id).then(() => list.reload(), (e: unknown) => notify(errText(e), { type: 'error' }));
        }}
        onClose={() => setRemoving(null)}
      />
    </Box>
  );
};
