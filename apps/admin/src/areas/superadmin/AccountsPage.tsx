import AddBusinessRoundedIcon from '@mui/icons-material/AddBusinessRounded';
import AdminPanelSettingsRoundedIcon from '@mui/icons-material/AdminPanelSettingsRounded';
import CheckCircleOutlineRoundedIcon from '@mui/icons-material/CheckCircleOutlineRounded';
import LoginRoundedIcon from '@mui/icons-material/LoginRounded';
import MoreVertRoundedIcon from '@mui/icons-material/MoreVertRounded';
import SearchIcon from '@mui/icons-material/Search';
import TuneRoundedIcon from '@mui/icons-material/TuneRounded';
import SwapHorizRoundedIcon from '@mui/icons-material/SwapHorizRounded';
import { Alert, Box, Button, Divider, IconButton, InputAdornment, ListItemIcon, ListItemText, ListSubheader, Menu, MenuItem, TextField, Tooltip, Typography } from '@mui/material';
import { useEffect, useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { switchAccount } from '../../providers/auth-provider';
import { isSuperAdmin } from '../../providers/types';
import { AccountAvatar } from '../../ui/AccountAvatar';
import { useProfile } from '../../ui/useProfile';
import { ConfirmDialog } from '../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column, type SortState } from '../../ui/table/DataTable';
import { errorText } from '../team/widgets/errors';
import { PageHeading } from '../../ui/PageHeading';
import { PageLoading } from '../team/widgets/PageLoading';
import { StatusChip } from '../../ui/StatusChip';
import { useApi } from '../../ui/useApi';
import { usePageSize } from '../../ui/table/useTable';
import { AccountSettingsSidebar } from './AccountSettingsSidebar';
import { ACCOUNT_STATUSES, money, superAdminApi, type AccountStatus, type Customer } from './api';
import { LoginAsAccountDialog } from './LoginAsAccountDialog';
import { NewAccountDialog } from './NewAccountDialog';
import { AccountStatusChip } from './StatusControls';

type Pending = { action: 'approve'; account: Customer } | { action: 'status'; account: Customer; status: AccountStatus };

/** /superadmin/accounts: every account, with approval, status, settings and limits, balance and login-as (spec 6, 7). */
export const AccountsPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const navigate = useNavigate();
  const { profile, refetch } = useProfile();
  const locale = translate('team.locale');
  const [perPage, setPerPage] = usePageSize('superadminAccounts');
  const [page, setPage] = useState(1);
  const [sort, setSort] = useState<SortState>({ field: 'id', order: 'desc' });
  const [searchInput, setSearchInput] = useState('');
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<AccountStatus | 'all'>('all');
  const [approval, setApproval] = useState<'all' | 0 | 1>('all');
  const [menu, setMenu] = useState<{ account: Customer; anchor: HTMLElement } | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  // `?settings=<id>&search=<name>` opens that account's settings (the stream types an account may not use link here)
  const [params] = useSearchParams();
  const [settingsId, setSettingsId] = useState<number | null>(() => (params.get('settings') ? Number(params.get('settings')) : null));
  const [loginAs, setLoginAs] = useState<Customer | null>(null);
  const [creating, setCreating] = useState(false);
  useEffect(() => {
    const wanted = params.get('search');
    if (wanted) setSearchInput(wanted);
  }, [params]);

  useEffect(() => {
    const t = setTimeout(() => {
      setSearch(searchInput.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(t);
  }, [searchInput]);

  const list = useApi(
    () =>
      superAdminApi.customers({
        page,
        itemsPerPage: perPage,
        order: { [sort.field]: sort.order },
        ...(search ? { search } : {}),
        ...(status !== 'all' ? { status: [status] } : {}),
        ...(approval !== 'all' ? { active: approval } : {}),
      }),
    [page, perPage, sort.field, sort.order, search, status, approval],
    isSuperAdmin(profile),
  );
  const rows = useMemo(() => list.data?.items ?? [], [list.data]);
  const settingsAccount = rows.find((r) => r.id === settingsId) ?? null;

  const refreshCurrent = async (id: number) => {
    // spec 4: a change of the current account's status switches the profile to it again, so the shell sees it
    if (profile?.customer?.id === id) {
      await switchAccount(id).catch(() => undefined);
      await refetch();
    }
  };

  const run = async () => {
    if (!pending) return;
    setBusy(true);
    try {
      if (pending.action === 'approve') {
        await superAdminApi.approve(pending.account.id);
        notify('superadmin.done.approved', { type: 'success', messageArgs: { name: pending.account.name } });
      } else {
        await superAdminApi.setStatus(pending.account.id, pending.status);
        notify('superadmin.done.status', { type: 'success', messageArgs: { name: pending.account.name, status: translate(`superadmin.status.${pending.status}`) } });
        await refreshCurrent(pending.account.id);
      }
      await list.reload();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
      setPending(null);
    }
  };

  const enter = async (account: Customer) => {
    try {
      await switchAccount(account.id);
      await refetch();
      navigate('/home');
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    }
  };

  const columns: Column<Customer>[] = [
    {
      key: 'name',
      label: translate('superadmin.columns.account'),
      sortable: true,
      render: (a) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, minWidth: 0 }}>
          <AccountAvatar name={a.name} size={36} muted={a.status === 'disable' || a.status === 'delete'} />
          <Box sx={{ minWidth: 0 }}>
            <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} noWrap data-testid="account-row-name">
              {a.name}
            </Typography>
            <Typography variant="body2" color="text.secondary" noWrap>
              #{a.id}
              {a.shortName ? ` · ${a.shortName}` : ''}
              {a.customId ? ` · ${a.customId}` : ''}
            </Typography>
          </Box>
          {profile?.customer?.id === a.id && <StatusChip tone="primary">{translate('superadmin.current')}</StatusChip>}
        </Box>
      ),
    },
    { key: 'status', label: translate('superadmin.columns.status'), sortable: true, render: (a) => <AccountStatusChip status={a.status} /> },
    {
      key: 'active', hideOnPhone: true,
      label: translate('superadmin.columns.approval'),
      render: (a) =>
        a.active ? (
          <StatusChip tone="success" testId="account-approval">{translate('superadmin.approved')}</StatusChip>
        ) : (
          <Button size="small" variant="outlined" color="warning" startIcon={<CheckCircleOutlineRoundedIcon />} onClick={() => setPending({ action: 'approve', account: a })} data-testid="approve-account">
            {translate('superadmin.approve')}
          </Button>
        ),
    },
    {
      key: 'balance', hideOnPhone: true,
      label: translate('superadmin.columns.balance'),
      sortable: true,
      align: 'right',
      render: (a) => (
        <Typography variant="body2" sx={{ fontWeight: 600, fontVariantNumeric: 'tabular-nums', color: a.balance < 0 ? 'error.main' : 'text.primary' }} noWrap>
          {money(a.balance, a.currency, locale)}
        </Typography>
      ),
    },
    { key: 'tps', hideOnPhone: true, label: translate('superadmin.columns.tps'), sortable: true, align: 'right', render: (a) => <Typography variant="body2" sx={{ fontVariantNumeric: 'tabular-nums' }}>{a.tps}</Typography> },
    {
      key: 'dailyLimit', hideOnPhone: true,
      label: translate('superadmin.columns.dailyLimit'),
      align: 'right',
      render: (a) => (
        <Typography variant="body2" sx={{ fontVariantNumeric: 'tabular-nums' }} color={a.customSettings.streams_max_messages_per_day === null ? 'text.secondary' : 'text.primary'}>
          {a.customSettings.streams_max_messages_per_day === null ? translate('superadmin.noLimit') : a.customSettings.streams_max_messages_per_day.toLocaleString(locale)}
        </Typography>
      ),
    },
    {
      key: 'createdAt', hideOnPhone: true,
      label: translate('superadmin.columns.created'),
      sortable: true,
      render: (a) => (
        <Typography variant="body2" color="text.secondary" noWrap>
          {new Date(a.createdAt).toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' })}
        </Typography>
      ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 96,
      render: (a) => (
        <Box sx={{ display: 'flex', justifyContent: 'flex-end' }}>
          <Tooltip title={translate('superadmin.settings.open')}>
            <IconButton size="small" onClick={() => setSettingsId(a.id)} data-testid="account-settings">
              <TuneRoundedIcon fontSize="small" />
            </IconButton>
          </Tooltip>
          <IconButton size="small" onClick={(e) => setMenu({ account: a, anchor: e.currentTarget })} aria-label={translate('team.actions.more')} data-testid="account-menu">
            <MoreVertRoundedIcon fontSize="small" />
          </IconButton>
        </Box>
      ),
    },
  ];

  if (!profile) return <PageLoading />;
  if (!isSuperAdmin(profile)) {
    return (
      <Box>
        <PageHeading title={translate('superadmin.title')} icon={<AdminPanelSettingsRoundedIcon />} />
        <Alert severity="warning">{translate('superadmin.onlySuperAdmins')}</Alert>
      </Box>
    );
  }

  const m = menu?.account;
  return (
    <Box sx={{ maxWidth: 1400 }} data-testid="accounts-page">
      <PageHeading
        title={translate('superadmin.title')}
        subtitle={translate('superadmin.subtitle')}
        icon={<AdminPanelSettingsRoundedIcon />}
        actions={
          <Button variant="contained" startIcon={<AddBusinessRoundedIcon />} onClick={() => setCreating(true)} data-testid="new-account">
            {translate('superadmin.create.open')}
          </Button>
        }
      />
      {!profile?.customer && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {translate('superadmin.noCurrentAccount')}
        </Alert>
      )}
      {list.error ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(list.error, translate)}
        </Alert>
      ) : null}
      <DataTable
        testId="accounts-table"
        rowTestId="account-row"
        columns={columns}
        rows={rows}
        rowKey={(a) => a.id}
        loading={list.loading}
        sort={sort}
        onSort={(field) => {
          setSort((s) => (s.field === field ? { field, order: s.order === 'asc' ? 'desc' : 'asc' } : { field, order: 'asc' }));
          setPage(1);
        }}
        pagination={{
          page,
          perPage,
          total: list.data?.total ?? 0,
          onPageChange: setPage,
          onPerPageChange: (n) => {
            setPerPage(n);
            setPage(1);
          },
        }}
        toolbar={
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1.5, p: 2, borderBottom: 1, borderColor: 'divider' }}>
            <TextField
              size="small"
              value={searchInput}
              onChange={(e) => setSearchInput(e.target.value)}
              placeholder={translate('superadmin.search')}
              sx={{ width: { xs: '100%', sm: 300 } }}
              slotProps={{ input: { startAdornment: <InputAdornment position="start"><SearchIcon fontSize="small" /></InputAdornment> }, htmlInput: { 'data-testid': 'accounts-search' } }}
            />
            <TextField select size="small" value={status} onChange={(e) => { setStatus(e.target.value as AccountStatus | 'all'); setPage(1); }} sx={{ width: 180 }} label={translate('superadmin.columns.status')}>
              <MenuItem value="all">{translate('superadmin.filters.allStatuses')}</MenuItem>
              {ACCOUNT_STATUSES.map((s) => (
                <MenuItem key={s} value={s}>
                  {translate(`superadmin.status.${s}`)}
                </MenuItem>
              ))}
            </TextField>
            <TextField select size="small" value={approval} onChange={(e) => { const v = e.target.value as string | number; setApproval(v === 'all' ? 'all' : (Number(v) as 0 | 1)); setPage(1); }} sx={{ width: 200 }} label={translate('superadmin.columns.approval')}>
              <MenuItem value="all">{translate('superadmin.filters.any')}</MenuItem>
              <MenuItem value={0}>{translate('superadmin.filters.awaiting')}</MenuItem>
              <MenuItem value={1}>{translate('superadmin.approved')}</MenuItem>
            </TextField>
          </Box>
        }
        empty={<NoResults title={translate('superadmin.empty')} text={search ? translate('superadmin.noMatch', { search }) : undefined} />}
      />

      <Menu anchorEl={menu?.anchor} open={!!menu} onClose={() => setMenu(null)} slotProps={{ paper: { sx: { minWidth: 240 } } }}>
        {m && (
          <MenuItem onClick={() => { setSettingsId(m.id); setMenu(null); }}>
            <ListItemIcon><TuneRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('superadmin.settings.open')}</ListItemText>
          </MenuItem>
        )}
        {m && m.status !== 'delete' && profile?.customer?.id !== m.id && (
          <MenuItem onClick={() => { void enter(m); setMenu(null); }} data-testid="account-enter">
            <ListItemIcon><SwapHorizRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('superadmin.enter')}</ListItemText>
          </MenuItem>
        )}
        {m && m.status !== 'delete' && (
          <MenuItem onClick={() => { setLoginAs(m); setMenu(null); }} data-testid="account-login-as">
            <ListItemIcon><LoginRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.loginAs.action')}</ListItemText>
          </MenuItem>
        )}
        {m && !m.active && (
          <MenuItem onClick={() => { setPending({ action: 'approve', account: m }); setMenu(null); }}>
            <ListItemIcon><CheckCircleOutlineRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('superadmin.approve')}</ListItemText>
          </MenuItem>
        )}
        <Divider />
        <ListSubheader sx={{ lineHeight: '32px', fontSize: 12, textTransform: 'uppercase', letterSpacing: '.04em' }}>{translate('superadmin.changeStatus')}</ListSubheader>
        {m &&
          ACCOUNT_STATUSES.filter((s) => s !== m.status).map((s) => (
            <MenuItem key={s} onClick={() => { setPending({ action: 'status', account: m, status: s }); setMenu(null); }} data-testid={`status-${s}`} sx={s === 'delete' || s === 'disable' ? { color: 'error.main' } : undefined}>
              <ListItemText inset>{translate(`superadmin.statusAction.${s}`)}</ListItemText>
            </MenuItem>
          ))}
      </Menu>

      <ConfirmDialog
        open={!!pending}
        busy={busy}
        danger={pending?.action === 'status' && (pending.status === 'disable' || pending.status === 'delete')}
        title={pending ? (pending.action === 'approve' ? translate('superadmin.confirm.approve.title') : translate(`superadmin.confirm.${pending.status}.title`)) : ''}
        text={pending ? (pending.action === 'approve' ? translate('superadmin.confirm.approve.text', { name: pending.account.name }) : translate(`superadmin.confirm.${pending.status}.text`, { name: pending.account.name })) : ''}
        confirmLabel={pending ? (pending.action === 'approve' ? translate('superadmin.approve') : translate(`superadmin.statusAction.${pending.status}`)) : undefined}
        onConfirm={() => void run()}
        onClose={() => setPending(null)}
      />
      <AccountSettingsSidebar account={settingsAccount} onClose={() => setSettingsId(null)} onChanged={() => void list.reload()} />
      <LoginAsAccountDialog account={loginAs} onClose={() => setLoginAs(null)} />
      <NewAccountDialog open={creating} onClose={() => setCreating(false)} onCreated={() => void list.reload()} />
    </Box>
  );
};
