import AddRoundedIcon from '@mui/icons-material/AddRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditOutlinedIcon from '@mui/icons-material/EditOutlined';
import LockOutlinedIcon from '@mui/icons-material/LockOutlined';
import TuneRoundedIcon from '@mui/icons-material/TuneRounded';
import VisibilityOffOutlinedIcon from '@mui/icons-material/VisibilityOffOutlined';
import { Box, Tooltip, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { contactsApi } from '../api';
import { P } from '../constants';
import type { Variable } from '../types';
import { ActionMenu } from '../widgets/ActionMenu';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { GatedButton } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { StatusChip } from '../../../ui/StatusChip';
import { useApi } from '../../../ui/useApi';
import { VariableDialog } from './VariableDialog';
import { LoadErrorBanner } from '../../../ui/table/TableToolbar';

/** Contact fields (spec 7 "CRUD /variables"): the standard ones, read-only, and the account's custom ones. */
export const VariablesPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const variables = useApi(() => contactsApi.variables(), []);
  const [editing, setEditing] = useState<Variable | null>(null);
  const [dialog, setDialog] = useState(false);
  const [deleting, setDeleting] = useState<Variable | null>(null);
  const [busy, setBusy] = useState(false);
  const rows = useMemo(() => [...(variables.data?.items ?? [])].sort((a, b) => Number(b.isStandard) - Number(a.isStandard) || a.id - b.id), [variables.data]);

  const changed = () => {
    void variables.reload();
  };

  const remove = async () => {
    if (!deleting) return;
    setBusy(true);
    try {
      await contactsApi.deleteVariable(deleting.id);
      notify('contacts.variables.deleted', { type: 'success' });
      setDeleting(null);
      changed();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  const columns: Column<Variable>[] = [
    {
      key: 'UIname',
      label: translate('contacts.variables.fields.UIname'),
      render: (v) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} data-testid="variable-row-uiname">
            {v.UIname || v.name}
          </Typography>
          {v.hidden && (
            <Tooltip title={translate('contacts.variables.fields.hidden')} arrow>
              <VisibilityOffOutlinedIcon sx={{ fontSize: 17, color: 'text.secondary' }} />
            </Tooltip>
          )}
        </Box>
      ),
    },
    {
      key: 'name',
      label: translate('contacts.variables.fields.name'),
      render: (v) => (
        <Box component="code" sx={{ px: 0.75, py: 0.25, bgcolor: '#f2f4f7', borderRadius: '6px', fontSize: 13 }}>
          {v.name}
        </Box>
      ),
    },
    { key: 'type', label: translate('contacts.variables.fields.type'), render: (v) => translate(`contacts.variables.types.${v.type}`, { _: v.type }) },
    { key: 'example', label: translate('contacts.variables.fields.example'), render: (v) => v.example || <Typography color="text.secondary">—</Typography> },
    {
      key: 'kind',
      label: translate('contacts.variables.fields.kind'),
      render: (v) =>
        v.isStandard ? (
          <StatusChip tone="neutral">{translate('contacts.variables.standard')}</StatusChip>
        ) : (
          <StatusChip tone="primary">{translate('contacts.variables.custom')}</StatusChip>
        ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (v) =>
        v.isStandard ? (
          <Tooltip title={translate('contacts.variables.standardLocked')} arrow>
            <LockOutlinedIcon sx={{ fontSize: 18, color: '#98a2b3', mr: 0.75 }} />
          </Tooltip>
        ) : (
          <ActionMenu
            items={[
              {
                key: 'edit',
                label: translate('contacts.actions.edit'),
                icon: <EditOutlinedIcon fontSize="small" />,
                permission: P.FieldAddEdit,
                onClick: () => {
                  setEditing(v);
                  setDialog(true);
                },
              },
              { key: 'delete', label: translate('contacts.actions.delete'), icon: <DeleteOutlineRoundedIcon fontSize="small" />, permission: P.FieldRemove, danger: true, onClick: () => setDeleting(v) },
            ]}
          />
        ),
    },
  ];

  return (
    <Box>
      <PageHeading
        title={translate('contacts.variables.title')}
        subtitle={translate('contacts.variables.subtitle')}
        icon={<TuneRoundedIcon />}
        actions={
          <GatedButton
            permission={P.FieldAddEdit}
            variant="contained"
            startIcon={<AddRoundedIcon />}
            onClick={() => {
              setEditing(null);
              setDialog(true);
            }}
            data-testid="variable-add"
          >
            {translate('contacts.variables.add')}
          </GatedButton>
        }
      />
      <LoadErrorBanner message={variables.error != null ? errorText(variables.error, translate) : null} />
      <DataTable
        testId="variables-table"
        rowTestId="variable-row"
        columns={columns}
        rows={rows}
        rowKey={(v) => v.id}
        loading={variables.loading && !variables.data}
        empty={<NoResults title={translate('contacts.variables.empty')} />}
      />
      <VariableDialog open={dialog} variable={editing} existing={rows} onClose={() => setDialog(false)} onSaved={changed} />
      <ConfirmDialog
        open={!!deleting}
        title={translate('contacts.variables.deleteTitle')}
        text={translate('contacts.variables.deleteText', { name: deleting?.UIname || deleting?.name || '' })}
        confirmLabel={translate('contacts.actions.delete')}
        danger
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
};
