import BlockRoundedIcon from '@mui/icons-material/BlockRounded';
import CheckCircleOutlineRoundedIcon from '@mui/icons-material/CheckCircleOutlineRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import GroupsRoundedIcon from '@mui/icons-material/GroupsRounded';
import LoginRoundedIcon from '@mui/icons-material/LoginRounded';
import ManageAccountsRoundedIcon from '@mui/icons-material/ManageAccountsRounded';
import MoreVertRoundedIcon from '@mui/icons-material/MoreVertRounded';
import PersonAddAlt1RoundedIcon from '@mui/icons-material/PersonAddAlt1Rounded';
import SearchIcon from '@mui/icons-material/Search';
import SendRoundedIcon from '@mui/icons-material/SendRounded';
import { Alert, Box, Chip, Divider, IconButton, InputAdornment, ListItemIcon, ListItemText, Menu, Stack, Tab, Tabs, TextField, Typography } from '@mui/material';
import { useMemo, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { startLoginAs } from '../../../providers/auth-provider';
import { useProfile } from '../../../ui/useProfile';
import { teamApi } from '../api';
import { MemberStatus, P, type MemberStatusValue } from '../constants';
import { roleLabel } from '../roles/role-names';
import type { Invite, Member, Role } from '../types';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { DataTable, NoResults, type Column } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { GatedButton, GatedMenuItem } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { PageLoading } from '../widgets/PageLoading';
import { PersonCell } from '../widgets/PersonCell';
import { useCan } from '../../../ui/permissions';
import { StatusChip, type Tone } from '../../../ui/StatusChip';
import { useApi } from '../../../ui/useApi';
import { useClientTable } from '../../../ui/table/useTable';
import { InviteUserDialog } from './InviteUserDialog';
import { MemberRolesDialog, type RolesTarget } from './MemberRolesDialog';

/** A line of the team table: a member, or a pending invite (status 1, spec 4). */
export interface TeamRow {
  key: string;
  kind: 'member' | 'invite';
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  status: MemberStatusValue;
  platformRole: string;
  inboxRole: string;
  roleIds: number[];
  createdAt: string;
  superAdmin: boolean;
  expired: boolean;
}

const statusTone: Record<MemberStatusValue, Tone> = { [-1]: 'neutral', 0: 'primary', 1: 'warning', 2: 'success', 3: 'danger' };
const STATUS_KEYS: Record<MemberStatusValue, string> = { [-1]: 'noRole', 0: 'owner', 1: 'pending', 2: 'active', 3: 'disabled' };

export const MemberStatusChip = ({ status, expired }: { status: MemberStatusValue; expired?: boolean }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={expired ? 'neutral' : statusTone[status]} testId="member-status">
      {translate(expired ? 'team.members.status.expired' : `team.members.status.${STATUS_KEYS[status]}`)}
    </StatusChip>
  );
};

export function teamRows(members: Member[], invites: Invite[], roles: Role[]): TeamRow[] {
  const roleName = new Map(roles.map((r) => [r.id, r]));
  const rows: TeamRow[] = members.map((m) => ({
    key: `m-${m.id}`,
    kind: 'member',
    id: m.id,
    email: m.email,
    firstName: m.firstName,
    lastName: m.lastName,
    status: m.status,
    platformRole: m.platformRole?.name ?? '',
    inboxRole: m.inboxRole?.name ?? '',
    roleIds: m.user_roles_ids,
    createdAt: m.createdAt,
    superAdmin: m.superAdmin,
    expired: false,
  }));
  for (const i of invites) {
    if (i.status !== 1) continue;
    const named = i.user_roles_ids.map((id) => roleName.get(id)).filter((r): r is Role => !!r);
    rows.push({
      key: `i-${i.id}`,
      kind: 'invite',
      id: i.id,
      email: i.email,
      firstName: i.firstname,
      lastName: i.lastname,
      status: MemberStatus.Pending,
      platformRole: named.find((r) => r.roleType === 1)?.name ?? '',
      inboxRole: named.find((r) => r.roleType === 2)?.name ?? '',
      roleIds: i.user_roles_ids,
      createdAt: i.createdAt,
      superAdmin: false,
      expired: i.expired,
    });
  }
  return rows;
}

type Filter = 'all' | MemberStatusValue;
const FILTERS: Filter[] = ['all', MemberStatus.Active, MemberStatus.Pending, MemberStatus.Disabled, MemberStatus.NoRole];

type Pending =
  | { action: 'disable' | 'enable' | 'remove' | 'loginAs'; row: TeamRow }
  | { action: 'withdraw' | 'resend'; row: TeamRow };

const dateText = (iso: string, locale: string) => (iso ? new Date(iso).toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' }) : '');

/** /users/management: the team of the current account (spec 2, 4): members and pending invites. */
export const TeamPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const { profile } = useProfile();
  const locale = translate('team.locale');
  const members = useApi(() => teamApi.members(), [], can(P.UserInviteView));
  const invites = useApi(() => teamApi.invites(), [], can(P.UserInviteView));
  const roles = useApi(() => teamApi.roles(), [], can(P.UserRoleView));
  const [inviteOpen, setInviteOpen] = useState(false);
  const [filter, setFilter] = useState<Filter>('all');
  const [search, setSearch] = useState('');
  const [menu, setMenu] = useState<{ anchor: HTMLElement; row: TeamRow } | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [rolesTarget, setRolesTarget] = useState<RolesTarget | null>(null);

  const roleList = useMemo(() => roles.data?.items ?? [], [roles.data]);
  const all = useMemo(() => teamRows(members.data?.items ?? [], invites.data?.items ?? [], roleList), [members.data, invites.data, roleList]);
  const counts = useMemo(() => {
    const c = new Map<Filter, number>([['all', all.length]]);
    for (const r of all) c.set(r.status, (c.get(r.status) ?? 0) + 1);
    return c;
  }, [all]);
  const visible = useMemo(() => {
    const needle = search.trim().toLocaleLowerCase();
    return all.filter(
      (r) =>
        (filter === 'all' || r.status === filter || (filter === MemberStatus.Active && r.status === MemberStatus.Owner)) &&
        (!needle || `${r.firstName} ${r.lastName} ${r.email}`.toLocaleLowerCase().includes(needle)),
    );
  }, [all, filter, search]);

  const reload = async () => {
    await Promise.all([members.reload(), invites.reload()]);
  };
  const isSelf = (r: TeamRow) => r.kind === 'member' && (r.id === profile?.id || r.email === profile?.email);

  const columns: Column<TeamRow>[] = [
    {
      key: 'email',
      label: translate('team.members.columns.member'),
      sortable: true,
      sortValue: (r) => `${r.firstName} ${r.lastName} ${r.email}`.trim().toLocaleLowerCase(),
      render: (r) => (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
          <PersonCell firstName={r.firstName} lastName={r.lastName} email={r.email} crown={r.superAdmin} muted={r.kind === 'invite' || r.status === MemberStatus.Disabled} />
          {isSelf(r) && <Chip size="small" label={translate('team.members.you')} sx={{ height: 20, fontSize: 11 }} />}
        </Box>
      ),
    },
    { key: 'platformRole', hideOnPhone: true, label: translate('team.members.columns.platformRole'), sortable: true, sortValue: (r) => r.platformRole, render: (r) => <RoleText name={r.platformRole} /> },
    { key: 'inboxRole', hideOnPhone: true, label: translate('team.members.columns.inboxRole'), sortable: true, sortValue: (r) => r.inboxRole, render: (r) => <RoleText name={r.inboxRole} /> },
    { key: 'status', label: translate('team.members.columns.status'), sortable: true, sortValue: (r) => r.status, render: (r) => <MemberStatusChip status={r.status} expired={r.expired} /> },
    {
      key: 'createdAt', hideOnPhone: true,
      label: translate('team.members.columns.added'),
      sortable: true,
      sortValue: (r) => r.createdAt,
      render: (r) => (
        <Typography variant="body2" color="text.secondary" noWrap>
          {dateText(r.createdAt, locale)}
        </Typography>
      ),
    },
    {
      key: 'actions',
      label: '',
      align: 'right',
      width: 56,
      render: (r) =>
        isSelf(r) ? null : (
          <IconButton size="small" onClick={(e) => setMenu({ anchor: e.currentTarget, row: r })} aria-label={translate('team.actions.more')} data-testid="row-menu">
            <MoreVertRoundedIcon fontSize="small" />
          </IconButton>
        ),
    },
  ];

  const table = useClientTable(visible, columns, 'teamMembers', { field: 'createdAt', order: 'asc' });

  const run = async () => {
    if (!pending) return;
    const { action, row } = pending;
    setBusy(true);
    try {
      if (action === 'loginAs') {
        await startLoginAs(row.email);
        window.location.assign('/home');
        return;
      }
      if (action === 'disable') await teamApi.setMemberStatus(row.id, 3);
      if (action === 'enable') await teamApi.setMemberStatus(row.id, 2);
      if (action === 'remove') await teamApi.removeMember(row.id);
      if (action === 'withdraw') await teamApi.deleteInvite(row.id);
      if (action === 'resend') await teamApi.resendInvite(row.id);
      notify(`team.members.done.${action}`, { type: 'success', messageArgs: { email: row.email } });
      setPending(null);
      await reload();
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
      setPending(null);
    } finally {
      setBusy(false);
    }
  };

  if (!profile) return <PageLoading />;
  if (!can(P.UserInviteView)) {
    return (
      <Box>
        <PageHeading title={translate('team.members.title')} icon={<GroupsRoundedIcon />} />
        <Alert severity="warning">{translate('team.permission.missing', { permission: P.UserInviteView })}</Alert>
      </Box>
    );
  }

  const row = menu?.row;
  const loadError = members.error ?? invites.error;
  return (
    <Box sx={{ maxWidth: 1280 }} data-testid="team-page">
      <PageHeading
        title={translate('team.members.title')}
        subtitle={translate('team.members.subtitle')}
        icon={<GroupsRoundedIcon />}
        actions={
          <GatedButton permission={P.UserInviteAdd} variant="contained" startIcon={<PersonAddAlt1RoundedIcon />} onClick={() => setInviteOpen(true)} data-testid="invite-user">
            {translate('team.invite.open')}
          </GatedButton>
        }
      />
      {loadError ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(loadError, translate)}
        </Alert>
      ) : null}
      {!can(P.UserRoleView) && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {translate('team.members.noRoleView')}
        </Alert>
      )}
      <DataTable
        testId="team-table"
        rowTestId="team-row"
        columns={columns}
        rows={table.pageRows}
        rowKey={(r) => r.key}
        loading={members.loading || invites.loading}
        sort={table.sort}
        onSort={table.toggleSort}
        pagination={table.pagination}
        toolbar={
          <Box sx={{ display: 'flex', alignItems: 'center', flexWrap: 'wrap', gap: 2, px: 2, pt: 1, borderBottom: 1, borderColor: 'divider' }}>
            <Tabs value={filter} onChange={(_e, v: Filter) => setFilter(v)} variant="scrollable" sx={{ flex: 1, minHeight: 44, '& .MuiTab-root': { minHeight: 44, textTransform: 'none', fontWeight: 600 } }}>
              {FILTERS.map((f) => (
                <Tab
                  key={String(f)}
                  value={f}
                  data-testid={`team-filter-${f}`}
                  label={
                    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                      <span>{translate(f === 'all' ? 'team.members.filters.all' : `team.members.status.${STATUS_KEYS[f]}`)}</span>
                      <Chip size="small" label={(counts.get(f) ?? 0) + (f === MemberStatus.Active ? (counts.get(MemberStatus.Owner) ?? 0) : 0)} sx={{ height: 20, fontSize: 11.5 }} />
                    </Stack>
                  }
                />
              ))}
            </Tabs>
            <TextField
              size="small"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              placeholder={translate('team.members.search')}
              sx={{ width: { xs: '100%', sm: 260 }, pb: 1 }}
              slotProps={{ input: { startAdornment: <InputAdornment position="start"><SearchIcon fontSize="small" /></InputAdornment> }, htmlInput: { 'data-testid': 'team-search' } }}
            />
          </Box>
        }
        empty={
          all.length === 0 ? (
            <NoResults title={translate('team.members.empty')} text={translate('team.members.emptyText')} />
          ) : (
            <NoResults title={translate('ui.table.noResults')} text={search.trim() ? translate('team.members.noMatch', { search: search.trim() }) : undefined} />
          )
        }
      />

      <Menu anchorEl={menu?.anchor} open={!!menu} onClose={() => setMenu(null)} slotProps={{ paper: { sx: { minWidth: 220 } } }}>
        {row?.kind === 'member' && [
          <GatedMenuItem key="roles" permission={P.UserInviteEdit} onClick={() => { setRolesTarget({ kind: 'member', id: row.id, email: row.email, roleIds: row.roleIds }); setMenu(null); }} data-testid="action-roles">
            <ListItemIcon><ManageAccountsRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.members.changeRoles')}</ListItemText>
          </GatedMenuItem>,
          row.status === MemberStatus.Disabled ? (
            <GatedMenuItem key="enable" permission={P.UserInviteEdit} onClick={() => { setPending({ action: 'enable', row }); setMenu(null); }} data-testid="action-enable">
              <ListItemIcon><CheckCircleOutlineRoundedIcon fontSize="small" /></ListItemIcon>
              <ListItemText>{translate('team.members.enable')}</ListItemText>
            </GatedMenuItem>
          ) : (
            <GatedMenuItem key="disable" permission={P.UserInviteEdit} onClick={() => { setPending({ action: 'disable', row }); setMenu(null); }} data-testid="action-disable">
              <ListItemIcon><BlockRoundedIcon fontSize="small" /></ListItemIcon>
              <ListItemText>{translate('team.members.disable')}</ListItemText>
            </GatedMenuItem>
          ),
          !row.superAdmin && row.status !== MemberStatus.Disabled && row.status !== MemberStatus.NoRole ? (
            <GatedMenuItem key="loginAs" permission={P.TenantOwner} onClick={() => { setPending({ action: 'loginAs', row }); setMenu(null); }} data-testid="action-login-as">
              <ListItemIcon><LoginRoundedIcon fontSize="small" /></ListItemIcon>
              <ListItemText>{translate('team.loginAs.action')}</ListItemText>
            </GatedMenuItem>
          ) : null,
          <Divider key="d" />,
          <GatedMenuItem key="remove" permission={P.UserInviteDelete} onClick={() => { setPending({ action: 'remove', row }); setMenu(null); }} sx={{ color: 'error.main' }} data-testid="action-remove">
            <ListItemIcon><DeleteOutlineRoundedIcon fontSize="small" color="error" /></ListItemIcon>
            <ListItemText>{translate('team.members.remove')}</ListItemText>
          </GatedMenuItem>,
        ]}
        {row?.kind === 'invite' && [
          <GatedMenuItem key="resend" permission={P.UserInviteAdd} onClick={() => { setPending({ action: 'resend', row }); setMenu(null); }} data-testid="action-resend">
            <ListItemIcon><SendRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.members.resend')}</ListItemText>
          </GatedMenuItem>,
          <GatedMenuItem key="roles" permission={P.UserInviteEdit} onClick={() => { setRolesTarget({ kind: 'invite', id: row.id, email: row.email, roleIds: row.roleIds }); setMenu(null); }}>
            <ListItemIcon><ManageAccountsRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.members.changeRoles')}</ListItemText>
          </GatedMenuItem>,
          <Divider key="d" />,
          <GatedMenuItem key="withdraw" permission={P.UserInviteDelete} onClick={() => { setPending({ action: 'withdraw', row }); setMenu(null); }} sx={{ color: 'error.main' }} data-testid="action-withdraw">
            <ListItemIcon><DeleteOutlineRoundedIcon fontSize="small" color="error" /></ListItemIcon>
            <ListItemText>{translate('team.members.withdraw')}</ListItemText>
          </GatedMenuItem>,
        ]}
      </Menu>

      <InviteUserDialog open={inviteOpen} roles={roleList} onClose={() => setInviteOpen(false)} onInvited={() => void invites.reload()} />
      <MemberRolesDialog target={rolesTarget} roles={roleList} onClose={() => setRolesTarget(null)} onSaved={() => void reload()} />
      <ConfirmDialog
        open={!!pending}
        busy={busy}
        danger={pending?.action === 'remove' || pending?.action === 'withdraw' || pending?.action === 'disable'}
        title={pending ? translate(`team.members.confirm.${pending.action}.title`) : ''}
        text={pending ? translate(`team.members.confirm.${pending.action}.text`, { email: pending.row.email }) : ''}
        confirmLabel={pending ? translate(`team.members.confirm.${pending.action}.ok`) : undefined}
        onConfirm={() => void run()}
        onClose={() => setPending(null)}
      />
    </Box>
  );
};

const RoleText = ({ name }: { name: string }) => {
  const translate = useTranslate();
  if (!name) return <Typography color="text.disabled">—</Typography>;
  return (
    <Typography variant="body2" sx={{ fontWeight: 500 }} noWrap>
      {roleLabel(name, translate)}
    </Typography>
  );
};
