import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import { Alert, Box, Button, Typography } from '@mui/material';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { contactsApi } from '../api';
import { P } from '../constants';
import { useExport } from '../exports/useExport';
import type { Contact } from '../types';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { GatedButton } from '../../../ui/Gated';
import { StatusChip } from '../../../ui/StatusChip';
import { useApi } from '../../../ui/useApi';

export type RejectedKind = 'failed' | 'duplicate';

/**
 * The side panel's drill-down (spec 2): the rows of the list's import that were rejected as failed (invalid, not
 * mobile, blacklisted) or as duplicates, with a Close button back to the list.
 */
export const RejectedRows = ({ listId, kind, total, onClose }: { listId: number; kind: RejectedKind; total: number; onClose: () => void }) => {
  const translate = useTranslate();
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(25);
  const exporter = useExport();
  const rows = useApi(() => contactsApi.contacts({ contactList: listId, state: kind, page, itemsPerPage: perPage }), [listId, kind, page, perPage]);

  const columns: Column<Contact>[] = [
    { key: 'rowNumber', label: translate('contacts.rejected.line'), width: 70, render: (c) => c.rowNumber ?? '—' },
    {
      key: 'phone',
      label: translate('contacts.rejected.phone'),
      render: (c) => (
        <Typography component="span" sx={{ fontFamily: 'ui-monospace, monospace', fontSize: 13.5 }}>
          {c.phone || '—'}
        </Typography>
      ),
    },
    {
      key: 'state',
      label: translate('contacts.rejected.reason'),
      render: (c) => (
        <Box>
          <StatusChip tone={c.state === 'duplicate' ? 'warning' : 'danger'}>{translate(`contacts.contactState.${c.state}`, { _: c.state })}</StatusChip>
          {c.error && (
            <Typography variant="caption" color="text.secondary" sx={{ display: 'block', mt: 0.5 }}>
              {c.error}
            </Typography>
          )}
        </Box>
      ),
    },
  ];

  return (
    <Box data-testid={`rejected-${kind}`}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, mb: 2 }}>
        <Box sx={{ flex: 1 }}>
          <Typography variant="subtitle1" sx={{ fontWeight: 700 }}>
            {translate(`contacts.rejected.title.${kind}`)}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            {translate('contacts.rejected.subtitle', { smart_count: total })}
          </Typography>
        </Box>
        <GatedButton
          permission={P.ListExport}
          size="small"
          variant="outlined"
          startIcon={<FileDownloadOutlinedIcon />}
          disabled={exporter.busy || total === 0}
          onClick={() => void exporter.run({ contactList: listId, state: kind })}
        >
          {translate('contacts.actions.exportCsv')}
        </GatedButton>
        <Button size="small" variant="contained" color="inherit" startIcon={<ArrowBackRoundedIcon />} onClick={onClose} data-testid="rejected-close" sx={{ bgcolor: '#f2f4f7' }}>
          {translate('contacts.actions.close')}
        </Button>
      </Box>
      {rows.error != null && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(rows.error, translate)}
        </Alert>
      )}
      <DataTable
        rowTestId="rejected-row"
        columns={columns}
        rows={rows.data?.items ?? []}
        rowKey={(c) => c.id}
        loading={rows.loading && !rows.data}
        maxHeight="calc(100vh - 330px)"
        empty={<NoResults title={translate('contacts.rejected.empty')} />}
        pagination={{
          page,
          perPage,
          total: rows.data?.total ?? 0,
          onPageChange: setPage,
          onPerPageChange: (n) => {
            setPerPage(n);
            setPage(1);
          },
        }}
      />
    </Box>
  );
};
