import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import RefreshRoundedIcon from '@mui/icons-material/RefreshRounded';
import { Alert, Box, Chip, IconButton, MenuItem, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useTranslate } from 'react-admin';
import { streamsApi } from '../api';
import { compactDate } from '../compact-date';
import { MESSAGE_STATUSES } from '../constants';
import { FailureReason, MessageStatusChip, mono, useDateFormat, useMoney } from '../labels';
import type { MessageStatus } from '../types';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { useServerTable } from '../../../ui/table/useTable';
import { MessageExportButton } from '../../stats/MessageExport';
import type { MessageExportParams } from '@switchboard/contracts/src/message-exports';

/** A date in few characters ("28 Nov, 14:05"), the shared tables' full form on hover: eight columns fit 1440 px. */
const When = ({ iso, locale, full, secondary }: { iso: string | null; locale: string; full: string; secondary?: boolean }) => (
  <Tooltip title={iso ? full : ''}>
    <Typography variant="body2" color={secondary ? 'text.secondary' : undefined} noWrap>
      {compactDate(iso, locale)}
    </Typography>
  </Tooltip>
);

/**
 * The messages of a stream, newest first, with their status (GET /streams/message_status?streamId=). The text is one
 * line cut with an ellipsis (the whole text on hover) and the dates compact, so every column fits a 1440 px screen.
 */
export const StreamMessagesPanel = ({ streamId, version }: { streamId: number; version: number }) => {
  const translate = useTranslate();
  const locale = translate('streams.locale');
  const date = useDateFormat();
  const money = useMoney();
  const table = useServerTable<MessageStatus>(
    'streamMessages',
    (q) => streamsApi.messages({ page: q.page, perPage: q.perPage, sort: { field: 'createdAt', order: q.sort.order }, filter: { ...q.filter, streamId } }),
    { field: 'createdAt', order: 'desc' },
  );
  const { refresh } = table;
  // the page bumps `version` after a send from it, so the new message shows
  useEffect(() => {
    if (version) void refresh();
  }, [version, refresh]);
  const columns: Column<MessageStatus>[] = [
    { key: 'createdAt', label: translate('streams.messages.time'), sortable: true, render: (m) => <When iso={m.created_at} locale={locale} full={date(m.created_at)} /> },
    {
      key: 'destination',
      label: translate('streams.messages.destination'),
      render: (m) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <Box component="span" sx={{ ...mono, fontSize: 13 }}>{m.destination}</Box>
          {m.country && <Chip size="small" label={m.country} sx={{ height: 20, fontSize: 11 }} />}
          {m.demo && <Chip size="small" color="primary" variant="outlined" label={translate('streams.messages.demo')} sx={{ height: 20, fontSize: 11 }} />}
        </Box>
      ),
    },
    { key: 'sender', label: translate('streams.messages.sender'), render: (m) => <Box component="span" sx={{ ...mono, fontSize: 13 }}>{m.sender}</Box> },
    {
      key: 'text',
      label: translate('streams.messages.text'),
      // one line, the whole text on hover
      render: (m) => (
        <Tooltip title={<Box component="span" sx={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{m.text}</Box>}>
          <Typography variant="body2" noWrap data-testid="message-row-text" sx={{ maxWidth: 220 }}>{m.text}</Typography>
        </Tooltip>
      ),
    },
    {
      key: 'status',
      label: translate('streams.messages.status'),
      render: (m) => (
        <Box>
          <MessageStatusChip status={m.status} testId="message-row-status" />
          <FailureReason status={m.status} error={m.error} testId="message-row-reason" />
        </Box>
      ),
    },
    { key: 'parts', label: translate('streams.messages.parts'), align: 'right', render: (m) => m.parts },
    { key: 'price', label: translate('streams.messages.price'), align: 'right', render: (m) => money(m.price - m.refunded, m.currency) },
    { key: 'delivered', label: translate('streams.messages.deliveredAt'), render: (m) => <When iso={m.delivered_at} locale={locale} full={date(m.delivered_at)} secondary /> },
  ];
  return (
    <Box>
      {table.error ? <Alert severity="error" sx={{ mb: 2 }}>{errorText(table.error, translate)}</Alert> : null}
      <DataTable
        testId="messages-table"
        rowTestId="message-row"
        columns={columns}
        rows={table.rows}
        rowKey={(m) => m.message_uuid}
        loading={table.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        maxHeight={560}
        toolbar={
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, px: 2, py: 1, borderBottom: 1, borderColor: 'divider' }}>
            <TextField select size="small" value={table.filter.status ?? ''} onChange={(e) => table.setFilter({ status: e.target.value || undefined })} sx={{ width: 200 }} slotProps={{ select: { displayEmpty: true } }}>
              <MenuItem value="">{translate('streams.messages.allStatuses')}</MenuItem>
              {MESSAGE_STATUSES.map((s) => (
                <MenuItem key={s} value={s}>{translate(`streams.messageStatus.${s}`)}</MenuItem>
              ))}
            </TextField>
            <Box sx={{ flex: 1 }} />
            <MessageExportButton
              types={['export_stream_messages']}
              params={{ streamId: String(streamId), ...(table.filter.status ? { status: [table.filter.status] as MessageExportParams['status'] } : {}) }}
              summary={translate('statistics.export.streamScope', { status: table.filter.status ? translate('statistics.export.statusScope', { status: translate(`streams.messageStatus.${table.filter.status}`) }) : '' })}
              testId="messages-export"
            />
            <Tooltip title={translate('streams.ui.refresh')}>
              <IconButton size="small" onClick={() => void table.refresh()} data-testid="messages-refresh">
                <RefreshRoundedIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          </Box>
        }
        empty={<NoResults icon={<ForumRoundedIcon />} title={translate('streams.messages.empty')} text={translate('streams.messages.emptyText')} />}
      />
    </Box>
  );
};
