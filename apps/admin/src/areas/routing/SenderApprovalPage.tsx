import CheckRoundedIcon from '@mui/icons-material/CheckRounded';
import CloseRoundedIcon from '@mui/icons-material/CloseRounded';
import GppMaybeRoundedIcon from '@mui/icons-material/GppMaybeRounded';
import UndoRoundedIcon from '@mui/icons-material/UndoRounded';
import VerifiedUserRoundedIcon from '@mui/icons-material/VerifiedUserRounded';
import { Alert, Box, Button, CircularProgress, FormControlLabel, IconButton, Radio, RadioGroup, Tooltip, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { ApprovalChip, mono, useDateFormat } from '../streams/labels';
import { AppModal } from '../../ui/modal/AppModal';
import { DataTable, NoResults, type Column } from '../../ui/table/DataTable';
import { errorText } from '../streams/widgets/errors';
import { PageHeading } from '../../ui/PageHeading';
import { useIsSuperAdmin } from '../../ui/permissions';
import { useApi } from '../../ui/useApi';
import { useServerTable } from '../../ui/table/useTable';
import { routingApi } from './api';
import { DECLINE_REASONS } from './constants';
import type { AdminSender } from './types';
import { pageRoot } from '../streams/widgets/page';
import { LoadErrorBanner, TableToolbar, ToolbarTabs } from '../../ui/table/TableToolbar';

const TABS = [
  { key: 'pending', approved: 0 },
  { key: 'approved', approved: 1 },
  { key: 'declined', approved: 2 },
  { key: 'all', approved: undefined },
] as const;
type TabKey = (typeof TABS)[number]['key'];

/** Declining needs one of the six reasons of spec 4; the account sees it under the sender. */
const DeclineDialog = ({ sender, onClose, onDone }: { sender: AdminSender | null; onClose: () => void; onDone: () => void }) => {
  const translate = useTranslate();
  const [reason, setReason] = useState<string>('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    if (!sender) return;
    if (!reason) {
      setError(translate('routing.approval.reasonRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await routingApi.decide(sender.id, { approved: 2, declinedReason: reason });
      setReason('');
      onDone();
    } catch (e) {
      setError(errorText(e, translate));
    } finally {
      setBusy(false);
    }
  };
  return (
    <AppModal
      open={!!sender}
      onClose={onClose}
      size="m"
      icon={<GppMaybeRoundedIcon fontSize="small" />}
      title={translate('routing.approval.declineTitle')}
      subtitle={sender ? `${sender.value} · ${sender.name}` : undefined}
      testId="decline-dialog"
      dismissible={!busy}
      actions={
        <>
          <Button color="inherit" onClick={onClose} disabled={busy}>{translate('streams.ui.cancel')}</Button>
          <Button variant="contained" color="error" onClick={() => void submit()} disabled={busy} data-testid="decline-submit" startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined}>
            {translate('routing.approval.decline')}
          </Button>
        </>
      }
    >
      <Typography variant="body2" color="text.secondary" sx={{ mb: 1.5 }}>{translate('routing.approval.declineText')}</Typography>
      {error && <Alert severity="error" sx={{ mb: 1.5 }}>{error}</Alert>}
      <RadioGroup value={reason} onChange={(e) => setReason(e.target.value)}>
        {DECLINE_REASONS.map((r) => (
          <FormControlLabel
            key={r}
            value={r}
            control={<Radio size="small" />}
            label={<Typography variant="body2">{translate(`streams.declineReasons.${r}`)}</Typography>}
            data-testid={`decline-reason-${r}`}
            sx={{ border: 1, borderColor: reason === r ? 'error.light' : 'divider', borderRadius: '8px', mx: 0, mb: 0.75, pr: 1.5, bgcolor: reason === r ? '#fff5f5' : undefined }}
          />
        ))}
      </RadioGroup>
    </AppModal>
  );
};

/** /superadmin/senders: every account's sender IDs, pending first; approve, or decline with a reason (spec 6). */
export const SenderApprovalPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const date = useDateFormat();
  const superAdmin = useIsSuperAdmin();
  const [tab, setTab] = useState<TabKey>('pending');
  const [declining, setDeclining] = useState<AdminSender | null>(null);
  const [busyId, setBusyId] = useState<number | null>(null);
  const table = useServerTable<AdminSender>(
    'senderApproval',
    (q) => routingApi.senders({ page: q.page, perPage: q.perPage, sort: q.sort, approved: q.filter.approved as number | undefined }),
    { field: 'createdAt', order: 'asc' },
    { approved: 0 },
    superAdmin,
  );
  const customers = useApi(() => routingApi.customers(), [], superAdmin);
  const names = useMemo(() => new Map((customers.data?.items ?? []).map((c) => [c.id, c.name])), [customers.data]);

  const decide = async (s: AdminSender, approved: 0 | 1) => {
    setBusyId(s.id);
    try {
      await routingApi.decide(s.id, { approved, declinedReason: null });
      notify(approved ? 'routing.approval.approved' : 'routing.approval.reset', { type: 'success', messageArgs: { name: s.value } });
      await table.refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setBusyId(null);
    }
  };

  const columns: Column<AdminSender>[] = [
    {
      key: 'value',
      label: translate('routing.approval.columns.sender'),
      sortable: true,
      render: (s) => (
        <Box>
          <Box component="span" sx={{ ...mono, fontWeight: 700, fontSize: 14 }} data-testid="approval-row-value">{s.value}</Box>
          <Typography variant="caption" color="text.secondary" component="div" noWrap sx={{ maxWidth: 240 }}>{s.name}</Typography>
        </Box>
      ),
    },
    { key: 'account', label: translate('routing.approval.columns.account'), render: (s) => <Typography variant="body2">{names.get(s.accountId) ?? `#${s.accountId}`}</Typography> },
    { key: 'type', label: translate('routing.approval.columns.type'), render: (s) => <Typography variant="body2" noWrap>{translate(`streams.senderType.${s.type}`, { _: s.type })}</Typography> },
    { key: 'country', label: translate('routing.approval.columns.country'), render: (s) => s.country ?? '—' },
    { key: 'createdAt', label: translate('routing.approval.columns.submitted'), sortable: true, render: (s) => <Typography variant="body2" color="text.secondary" noWrap>{date(s.createdAt)}</Typography> },
    {
      key: 'approved',
      label: translate('routing.approval.columns.status'),
      sortable: true,
      render: (s) => (
        <Box>
          <ApprovalChip approved={s.approved} />
          {s.approved === 2 && s.declinedReason && (
            <Typography variant="caption" color="error.main" component="div" sx={{ mt: 0.5, maxWidth: 240 }}>
              {translate(`streams.declineReasons.${s.declinedReason}`, { _: s.declinedReason })}
            </Typography>
          )}
        </Box>
      ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 200,
      render: (s) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end', gap: 0.75 }}>
          {busyId === s.id ? (
            <CircularProgress size={20} />
          ) : (
            <>
              {s.approved !== 1 && (
                <Button size="small" variant="contained" color="success" startIcon={<CheckRoundedIcon />} onClick={() => void decide(s, 1)} data-testid="approve-sender">
                  {translate('routing.approval.approve')}
                </Button>
              )}
              {s.approved !== 2 && (
                <Button size="small" variant="outlined" color="error" startIcon={<CloseRoundedIcon />} onClick={() => setDeclining(s)} data-testid="decline-sender">
                  {translate('routing.approval.decline')}
                </Button>
              )}
              {s.approved !== 0 && (
                <Tooltip title={translate('routing.approval.toPending')}>
                  <IconButton size="small" onClick={() => void decide(s, 0)} aria-label={translate('routing.approval.toPending')}>
                    <UndoRoundedIcon fontSize="small" />
                  </IconButton>
                </Tooltip>
              )}
            </>
          )}
        </Box>
      ),
    },
  ];

  if (!superAdmin) return <Alert severity="warning">{translate('routing.superAdminOnly')}</Alert>;

  return (
    <Box sx={pageRoot(1360)} data-testid="sender-approval-page">
      <PageHeading title={translate('routing.approval.title')} subtitle={translate('routing.approval.subtitle')} icon={<VerifiedUserRoundedIcon />} />
      <LoadErrorBanner message={table.error ? errorText(table.error, translate) : null} />
      <DataTable
        testId="approval-table"
        rowTestId="approval-row"
        columns={columns}
        rows={table.rows}
        rowKey={(s) => s.id}
        loading={table.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        toolbar={
          <TableToolbar sx={{ display: 'block' }}>
            <ToolbarTabs<TabKey>
              value={tab}
              onChange={(v) => {
                setTab(v);
                table.setFilter({ approved: TABS.find((t) => t.key === v)?.approved });
              }}
              tabs={TABS.map((t) => ({ value: t.key, label: translate(`routing.approval.tabs.${t.key}`), testId: `approval-tab-${t.key}` }))}
            />
          </TableToolbar>
        }
        empty={<NoResults icon={<VerifiedUserRoundedIcon />} title={translate(tab === 'pending' ? 'routing.approval.nothingPending' : 'routing.approval.empty')} text={tab === 'pending' ? translate('routing.approval.nothingPendingText') : undefined} />}
      />
      <DeclineDialog
        sender={declining}
        onClose={() => setDeclining(null)}
        onDone={() => {
          notify('routing.approval.declined', { type: 'success', messageArgs: { name: declining?.value ?? '' } });
          setDeclining(null);
          void table.refresh();
        }}
      />
    </Box>
  );
};
