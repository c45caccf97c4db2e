import AddRoundedIcon from '@mui/icons-material/AddRounded';
import ContentCopyRoundedIcon from '@mui/icons-material/ContentCopyRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import TextSnippetRoundedIcon from '@mui/icons-material/TextSnippetRounded';
import { Alert, Box, Typography } from '@mui/material';
import { useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { GatedButton, GatedIconButton } from '../../../ui/Gated';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { PageHeading } from '../../../ui/PageHeading';
import { useCan } from '../../../ui/permissions';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { useClientTable } from '../../../ui/table/useTable';
import { useApi } from '../../../ui/useApi';
import { campaignsApi, P } from '../api';
import type { Template, TemplateVariant } from '../types';
import { errorText } from '../widgets/errors';
import { TemplateDialog } from './TemplateDialog';

/** /templates: message templates with their variants; create, edit, copy ("copy X", spec 5) and delete. */
export const TemplatesPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const allowed = can(P.TemplateView);
  const list = useApi(() => campaignsApi.templates(), [], allowed);
  const [dialog, setDialog] = useState<{ template: Template | null } | null>(null);
  const [removing, setRemoving] = useState<Template | null>(null);

  const copy = async (t: Template) => {
    try {
      const made = await campaignsApi.copyTemplate(t.id);
      notify('campaigns.templates.copied', { type: 'success', messageArgs: { name: made.name } });
      await list.refresh();
    } catch (e) {
      notify(errorText(e, translate), { type: 'error' });
    }
  };

  const columns: Column<Template>[] = [
    { key: 'name', label: translate('campaigns.templates.name'), sortable: true, sortValue: (t) => t.name.toLowerCase(), render: (t) => <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }} data-testid="template-row-name">{t.name}</Typography> },
    {
      key: 'variants',
      label: translate('campaigns.templates.variants'),
      render: (t) => (
        <Box sx={{ display: 'grid', gap: 0.5 }}>
          {t.variants.map((v) => (
            <Box key={v.id ?? v.name} sx={{ display: 'flex', gap: 1, alignItems: 'baseline', minWidth: 0 }}>
              <Box sx={{ width: 8, height: 8, borderRadius: '50%', bgcolor: v.color, flexShrink: 0 }} />
              <Typography variant="body2" sx={{ fontWeight: 600, flexShrink: 0 }}>{v.name} · {v.ratio}%</Typography>
              <Typography variant="body2" color="text.secondary" noWrap sx={{ minWidth: 0 }}>{v.text}</Typography>
            </Box>
          ))}
        </Box>
      ),
      hideOnPhone: true,
    },
    { key: 'count', label: translate('campaigns.templates.count'), align: 'right', render: (t) => t.variants.length },
    {
      key: 'actions',
      label: '',
      align: 'right',
      render: (t) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <GatedIconButton permission={P.TemplateAddEdit} title={translate('campaigns.templates.copy')} onClick={() => void copy(t)} data-testid="template-copy">
            <ContentCopyRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.TemplateAddEdit} title={translate('campaigns.actions.edit')} onClick={() => setDialog({ template: t })} data-testid="template-edit">
            <EditRoundedIcon fontSize="small" />
          </GatedIconButton>
          <GatedIconButton permission={P.TemplateRemove} title={translate('campaigns.actions.delete')} onClick={() => setRemoving(t)} data-testid="template-delete">
            <DeleteOutlineRoundedIcon fontSize="small" />
          </GatedIconButton>
        </Box>
      ),
    },
  ];
  const table = useClientTable(list.data?.items ?? [], columns, 'templates', { field: 'name', order: 'asc' });

  const submit = async (body: { name: string; description: string | null; variants: TemplateVariant[] }) => {
    const editing = dialog?.template;
    if (editing) await campaignsApi.updateTemplate(editing.id, body);
    else await campaignsApi.createTemplate(body);
    notify('campaigns.templates.saved', { type: 'success' });
    setDialog(null);
    await list.refresh();
  };

  if (!allowed) {
    return (
      <Box>
        <PageHeading title={translate('campaigns.templates.title')} icon={<TextSnippetRoundedIcon />} />
        <Alert severity="warning">{translate('ui.permission.missing', { permission: P.TemplateView })}</Alert>
      </Box>
    );
  }
  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="templates-page">
      <PageHeading
        title={translate('campaigns.templates.title')}
        subtitle={translate('campaigns.templates.subtitle')}
        icon={<TextSnippetRoundedIcon />}
        actions={
          <GatedButton permission={P.TemplateAddEdit} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ template: null })} data-testid="new-template">
            {translate('campaigns.templates.create')}
          </GatedButton>
        }
      />
      {list.error != null && <Alert severity="error" sx={{ mb: 2 }}>{errorText(list.error, translate)}</Alert>}
      <DataTable
        testId="templates-table"
        rowTestId="template-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(t) => t.id}
        loading={list.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        empty={<NoResults title={translate('campaigns.templates.empty')} text={can(P.TemplateAddEdit) ? translate('campaigns.templates.emptyText') : translate('campaigns.noData.missingAddPermission')} icon={<TextSnippetRoundedIcon />} />}
      />
      <TemplateDialog open={!!dialog} template={dialog?.template ?? null} onClose={() => setDialog(null)} onSubmit={submit} />
      <ConfirmDialog
        open={!!removing}
        danger
        title={translate('campaigns.templates.deleteTitle')}
        text={translate('campaigns.templates.deleteText', { name: removing?.name ?? '' })}
        confirmLabel={translate('campaigns.actions.delete')}
        onClose={() => setRemoving(null)}
        onConfirm={() => {
          const t = removing;
          setRemoving(null);
          if (t) void campaignsApi.removeTemplate(t.id).then(() => list.refresh(), (e: unknown) => notify(errorText(e, translate), { type: 'error' }));
        }}
      />
    </Box>
  );
};
