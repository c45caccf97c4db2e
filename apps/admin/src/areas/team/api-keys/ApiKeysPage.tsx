import AddRoundedIcon from '@mui/icons-material/AddRounded';
import AutorenewRoundedIcon from '@mui/icons-material/AutorenewRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import KeyRoundedIcon from '@mui/icons-material/KeyRounded';
import MoreVertRoundedIcon from '@mui/icons-material/MoreVertRounded';
import { Alert, Box, Chip, Divider, IconButton, ListItemIcon, ListItemText, Menu, Switch, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { teamApi } from '../api';
import { P } from '../constants';
import { usePermissionLabel } from '../roles/PermissionMatrix';
import type { ApiKey } from '../types';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { GatedButton, GatedMenuItem } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { PageLoading } from '../widgets/PageLoading';
import { useProfile } from '../../../ui/useProfile';
import { useCan } from '../../../ui/permissions';
import { StatusChip } from '../../../ui/StatusChip';
import { useApi } from '../../../ui/useApi';
import { useClientTable } from '../../../ui/table/useTable';
import { ApiKeyDialog, type ApiKeyValues } from './ApiKeyDialog';
import { TokenDisplayDialog } from './TokenDisplayDialog';

const mono = { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 13 };

/** /api-keys: the account's API keys (spec 3, 7); a new or regenerated key is shown once in the token modal. */
export const ApiKeysPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const { profile } = useProfile();
  const label = usePermissionLabel();
  const locale = translate('team.locale');
  const keys = useApi(() => teamApi.apiKeys(), [], can(P.ApiKeyView));
  // the grouped permission list needs USER_ROLE_VIEW; without it the dialog lists the user's own permissions
  const groups = useApi(() => teamApi.permissionGroups().catch(() => []), [], can(P.ApiKeyView));
  const [dialog, setDialog] = useState<{ key: ApiKey | null } | null>(null);
  const [shownToken, setShownToken] = useState<{ token: string; name: string } | null>(null);
  const [menu, setMenu] = useState<{ key: ApiKey; anchor: HTMLElement } | null>(null);
  const [pending, setPending] = useState<{ action: 'delete' | 'regenerate'; key: ApiKey } | null>(null);
  const [busy, setBusy] = useState(false);

  const date = (iso: string | null) => (iso ? new Date(iso).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' }) : '—');

  const setActive = async (k: ApiKey, active: boolean) => {
    try {
      await teamApi.updateApiKey(k.id, { active: active ? 1 : 0 });
      await keys.reload();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    }
  };

  const columns: Column<ApiKey>[] = [
    {
      key: 'name',
      label: translate('team.apiKeys.name'),
      sortable: true,
      sortValue: (k) => k.name.toLocaleLowerCase(),
      render: (k) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5 }}>
          <Box sx={{ width: 34, height: 34, borderRadius: '9px', display: 'grid', placeItems: 'center', bgcolor: k.active ? '#eef2ff' : '#f2f4f7', color: k.active ? 'primary.main' : 'text.disabled', flexShrink: 0 }}>
            <KeyRoundedIcon fontSize="small" />
          </Box>
          <Box sx={{ minWidth: 0 }}>
            <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} noWrap data-testid="api-key-row-name">
              {k.name}
            </Typography>
            <Typography color="text.secondary" sx={mono} noWrap>
              {k.apiKey}
            </Typography>
          </Box>
        </Box>
      ),
    },
    {
      key: 'ipAcl', hideOnPhone: true,
      label: translate('team.apiKeys.ipAclShort'),
      render: (k) =>
        k.ipAcl ? (
          <Box sx={{ display: 'flex', gap: 0.5, flexWrap: 'wrap', maxWidth: 260 }}>
            {k.ipAcl.split(',').slice(0, 2).map((ip) => (
              <Chip key={ip} size="small" label={ip} sx={{ ...mono, fontSize: 12, height: 22 }} />
            ))}
            {k.ipAcl.split(',').length > 2 && (
              <Tooltip title={k.ipAcl.split(',').slice(2).join(', ')}>
                <Chip size="small" label={`+${k.ipAcl.split(',').length - 2}`} sx={{ height: 22 }} />
              </Tooltip>
            )}
          </Box>
        ) : (
          <Typography variant="body2" color="text.secondary">
            {translate('team.apiKeys.anyAddress')}
          </Typography>
        ),
    },
    {
      key: 'permissions', hideOnPhone: true,
      label: translate('team.apiKeys.permissions'),
      render: (k) => (
        <Tooltip title={k.permissions.length ? k.permissions.map(label).join(', ') : ''}>
          <Chip size="small" variant="outlined" label={translate('team.apiKeys.permissionCount', { smart_count: k.permissions.length })} />
        </Tooltip>
      ),
    },
    {
      key: 'active',
      label: translate('team.apiKeys.status'),
      sortable: true,
      sortValue: (k) => k.active,
      render: (k) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}>
          <Switch size="small" checked={k.active === 1} disabled={!can(P.ApiKeyEdit)} onChange={(e) => void setActive(k, e.target.checked)} slotProps={{ input: { 'aria-label': translate('team.apiKeys.activeLabel') } }} />
          <StatusChip tone={k.active ? 'success' : 'neutral'}>{translate(k.active ? 'team.apiKeys.active' : 'team.apiKeys.inactive')}</StatusChip>
        </Box>
      ),
    },
    { key: 'createdAt', hideOnPhone: true, label: translate('team.apiKeys.created'), sortable: true, sortValue: (k) => k.createdAt, render: (k) => <Typography variant="body2" color="text.secondary" noWrap>{date(k.createdAt)}</Typography> },
    { key: 'lastUsedAt', hideOnPhone: true, label: translate('team.apiKeys.lastUsed'), sortable: true, sortValue: (k) => k.lastUsedAt ?? '', render: (k) => <Typography variant="body2" color="text.secondary" noWrap>{date(k.lastUsedAt)}</Typography> },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (k) => (
        <IconButton size="small" onClick={(e) => setMenu({ key: k, anchor: e.currentTarget })} aria-label={translate('team.actions.more')} data-testid="api-key-menu">
          <MoreVertRoundedIcon fontSize="small" />
        </IconButton>
      ),
    },
  ];
  const table = useClientTable(keys.data?.items ?? [], columns, 'apiKeys', { field: 'createdAt', order: 'desc' });

  const submit = async (values: ApiKeyValues) => {
    const editing = dialog?.key;
    if (editing) {
      await teamApi.updateApiKey(editing.id, values);
      notify('team.apiKeys.saved', { type: 'success' });
    } else {
      const created = await teamApi.createApiKey(values);
      setShownToken({ token: created.apiKey, name: created.name });
    }
    setDialog(null);
    await keys.reload();
  };

  const run = async () => {
    if (!pending) return;
    setBusy(true);
    try {
      if (pending.action === 'delete') {
        await teamApi.deleteApiKey(pending.key.id);
        notify('team.apiKeys.deleted', { type: 'success', messageArgs: { name: pending.key.name } });
      } else {
        const fresh = await teamApi.regenerateApiKey(pending.key.id);
        setShownToken({ token: fresh.apiKey, name: fresh.name });
      }
      await keys.reload();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
      setPending(null);
    }
  };

  if (!profile) return <PageLoading />;
  if (!can(P.ApiKeyView)) {
    return (
      <Box>
        <PageHeading title={translate('team.apiKeys.title')} icon={<KeyRoundedIcon />} />
        <Alert severity="warning">{translate('team.permission.missing', { permission: P.ApiKeyView })}</Alert>
      </Box>
    );
  }

  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="api-keys-page">
      <PageHeading
        title={translate('team.apiKeys.title')}
        subtitle={translate('team.apiKeys.subtitle')}
        icon={<KeyRoundedIcon />}
        actions={
          <GatedButton permission={P.ApiKeyAdd} variant="contained" startIcon={<AddRoundedIcon />} onClick={() => setDialog({ key: null })} data-testid="new-api-key">
            {translate('team.apiKeys.create')}
          </GatedButton>
        }
      />
      {keys.error ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(keys.error, translate)}
        </Alert>
      ) : null}
      <DataTable
        testId="api-keys-table"
        rowTestId="api-key-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(k) => k.id}
        loading={keys.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        empty={<NoResults title={translate('team.apiKeys.empty')} text={translate(can(P.ApiKeyAdd) ? 'team.apiKeys.emptyText' : 'team.apiKeys.missingAddPermission')} />}
      />

      <Menu anchorEl={menu?.anchor} open={!!menu} onClose={() => setMenu(null)} slotProps={{ paper: { sx: { minWidth: 200 } } }}>
        {menu && (
          <GatedMenuItem permission={P.ApiKeyEdit} onClick={() => { setDialog({ key: menu.key }); setMenu(null); }}>
            <ListItemIcon><EditRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.apiKeys.edit')}</ListItemText>
          </GatedMenuItem>
        )}
        {menu && (
          <GatedMenuItem permission={P.ApiKeyEdit} onClick={() => { setPending({ action: 'regenerate', key: menu.key }); setMenu(null); }} data-testid="api-key-regenerate">
            <ListItemIcon><AutorenewRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.apiKeys.regenerate')}</ListItemText>
          </GatedMenuItem>
        )}
        {menu && <Divider />}
        {menu && (
          <GatedMenuItem permission={P.ApiKeyDelete} onClick={() => { setPending({ action: 'delete', key: menu.key }); setMenu(null); }} sx={{ color: 'error.main' }} data-testid="api-key-delete">
            <ListItemIcon><DeleteOutlineRoundedIcon fontSize="small" color="error" /></ListItemIcon>
            <ListItemText>{translate('team.apiKeys.delete')}</ListItemText>
          </GatedMenuItem>
        )}
      </Menu>

      <ApiKeyDialog open={!!dialog} apiKey={dialog?.key ?? null} groups={groups.data} onClose={() => setDialog(null)} onSubmit={submit} />
      <TokenDisplayDialog token={shownToken?.token ?? null} name={shownToken?.name ?? ''} onClose={() => setShownToken(null)} />
      <ConfirmDialog
        open={!!pending}
        busy={busy}
        danger={pending?.action === 'delete'}
        title={pending ? translate(`team.apiKeys.confirm.${pending.action}.title`) : ''}
        text={pending ? translate(`team.apiKeys.confirm.${pending.action}.text`, { name: pending.key.name }) : ''}
        confirmLabel={pending ? translate(`team.apiKeys.confirm.${pending.action}.ok`) : undefined}
        onConfirm={() => void run()}
        onClose={() => setPending(null)}
      />
    </Box>
  );
};
