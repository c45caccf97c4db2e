import AddRoundedIcon from '@mui/icons-material/AddRounded';
import ContentCopyRoundedIcon from '@mui/icons-material/ContentCopyRounded';
import DeleteOutlineRoundedIcon from '@mui/icons-material/DeleteOutlineRounded';
import EditRoundedIcon from '@mui/icons-material/EditRounded';
import ShieldRoundedIcon from '@mui/icons-material/ShieldRounded';
import { Alert, Box, Button, CircularProgress, Divider, ListItemIcon, ListItemText, Menu, Paper, Slide, Tab, Tabs, Typography } from '@mui/material';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { teamApi } from '../api';
import { P, RoleType, type RoleTypeValue } from '../constants';
import type { Role } from '../types';
import { ConfirmDialog } from '../../../ui/modal/ConfirmDialog';
import { LoadingSkeleton } from '../../../ui/table/DataTable';
import { errorText } from '../widgets/errors';
import { GatedButton, GatedMenuItem } from '../../../ui/Gated';
import { PageHeading } from '../../../ui/PageHeading';
import { PageLoading } from '../widgets/PageLoading';
import { useProfile } from '../../../ui/useProfile';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { PermissionMatrix } from './PermissionMatrix';
import { RoleDialog, type RoleDraft } from './RoleDialog';
import { uniqueRoleName } from './role-names';

type DialogState = { mode: 'create' | 'copy' | 'edit'; role?: Role; initial: RoleDraft } | null;

const typeKey = (t: RoleTypeValue) => (t === RoleType.Platform ? 'platform' : 'inbox');

/** /users/roles: platform and inbox roles and their permission matrix (spec 3, 5 and 6). */
export const RolesPage = () => {
  const translate = useTranslate();
  const notify = useNotify();
  const can = useCan();
  const { profile } = useProfile();
  const [type, setType] = useState<RoleTypeValue>(RoleType.Platform);
  const roles = useApi(() => teamApi.roles(), [], can(P.UserRoleView));
  const groups = useApi(() => teamApi.permissionGroups(), [], can(P.UserRoleView));
  const [edits, setEdits] = useState<Map<number, Set<string>>>(new Map());
  const [saving, setSaving] = useState(false);
  const [dialog, setDialog] = useState<DialogState>(null);
  const [menu, setMenu] = useState<{ role: Role; anchor: HTMLElement } | null>(null);
  const [deleting, setDeleting] = useState<Role | null>(null);
  const [busy, setBusy] = useState(false);
  const [highlight, setHighlight] = useState<number | null>(null);
  // "New role" adds a draft column (negative id) that is created on the server only by "Save changes", with the
  // permissions ticked by then; leaving or discarding drops it, so no empty role is left behind (decision 0026)
  const [drafts, setDrafts] = useState<Role[]>([]);
  const draftSeq = useRef(0);

  const all = useMemo(() => [...(roles.data?.items ?? []).filter((r) => !r.isDeleted), ...drafts], [roles.data, drafts]);
  const shown = useMemo(() => all.filter((r) => r.roleType === type), [all, type]);
  const shownGroups = useMemo(() => (groups.data ?? []).filter((g) => g.roleType === typeKey(type)), [groups.data, type]);
  const values = useMemo(() => {
    const m = new Map<number, Set<string>>();
    for (const r of all) m.set(r.id, edits.get(r.id) ?? new Set(r.permissions));
    return m;
  }, [all, edits]);
  const dirty = useMemo(() => {
    const d = new Set<number>();
    for (const r of all) {
      if (r.id < 0) {
        d.add(r.id);
        continue;
      }
      const e = edits.get(r.id);
      if (e && (e.size !== r.permissions.length || r.permissions.some((p) => !e.has(p)))) d.add(r.id);
    }
    return d;
  }, [all, edits]);
  const dirtyHere = shown.filter((r) => dirty.has(r.id));

  useEffect(() => {
    if (highlight === null) return;
    const t = setTimeout(() => setHighlight(null), 2000);
    return () => clearTimeout(t);
  }, [highlight]);

  const toggle = (roleId: number, permissions: string[], on: boolean) => {
    setEdits((prev) => {
      const next = new Map(prev);
      const set = new Set(values.get(roleId) ?? []);
      for (const p of permissions) {
        if (on) set.add(p);
        else set.delete(p);
      }
      next.set(roleId, set);
      return next;
    });
  };

  const discard = () => {
    setEdits((prev) => new Map([...prev].filter(([id]) => !shown.some((r) => r.id === id))));
    setDrafts((prev) => prev.filter((d) => d.roleType !== type));
  };

  const save = async () => {
    if (!dirtyHere.length) return;
    setSaving(true);
    const created: number[] = [];
    try {
      const existing = dirtyHere.filter((r) => r.id > 0);
      for (const r of dirtyHere.filter((d) => d.id < 0)) {
        await teamApi.createRole({ name: r.name, description: r.description, roleType: r.roleType, permissions: [...(values.get(r.id) ?? [])] });
        created.push(r.id);
      }
      if (type === RoleType.Inbox) {
        if (existing.length) await teamApi.updateInboxRoles(existing.map((r) => ({ id: r.id, permissions: [...(values.get(r.id) ?? [])] })));
      } else {
        for (const r of existing) await teamApi.updateRole(r.id, { permissions: [...(values.get(r.id) ?? [])] });
      }
      await roles.reload();
      setEdits((prev) => new Map([...prev].filter(([id]) => !dirtyHere.some((r) => r.id === id))));
      notify('team.roles.saved', { type: 'success' });
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      // drafts that were created are server roles now (or would be created twice by the next save)
      if (created.length) setDrafts((prev) => prev.filter((d) => !created.includes(d.id)));
      setSaving(false);
    }
  };

  const names = all.map((r) => r.name);
  const openCreate = () =>
    setDialog({ mode: 'create', initial: { name: uniqueRoleName(translate('team.roles.defaultName'), names), description: translate('team.roles.defaultDescription') } });
  const openCopy = (role: Role) =>
    setDialog({ mode: 'copy', role, initial: { name: uniqueRoleName(translate('team.roles.copyName', { name: role.name }), names), description: role.description } });
  const openEdit = (role: Role) => setDialog({ mode: 'edit', role, initial: { name: role.name, description: role.description } });

  const submitDialog = async (draft: RoleDraft) => {
    if (!dialog) return;
    if (dialog.mode === 'edit' && dialog.role && dialog.role.id < 0) {
      const id = dialog.role.id;
      setDrafts((prev) => prev.map((d) => (d.id === id ? { ...d, ...draft } : d)));
      return;
    }
    if (dialog.mode === 'edit' && dialog.role) {
      await teamApi.updateRole(dialog.role.id, draft);
      await roles.reload();
      notify('team.roles.saved', { type: 'success' });
      return;
    }
    if (dialog.mode === 'edit' && dialog.role && dialog.role.id < 0) return;
    if (dialog.mode === 'create') {
      const id = --draftSeq.current;
      setDrafts((prev) => [...prev, { id, name: uniqueRoleName(draft.name, names), description: draft.description, roleType: type, permissions: [], readOnly: false, isDeleted: false, customer: profile?.customer?.id ?? 0 }]);
      setHighlight(id);
      return;
    }
    if (!dialog.role) return;
    const created = await teamApi.createRole({ copyOf: dialog.role.id, name: uniqueRoleName(draft.name, names), description: draft.description });
    await roles.reload();
    setType(created.roleType);
    setHighlight(created.id);
    notify('team.roles.created', { type: 'success', messageArgs: { name: created.name } });
  };

  const remove = async () => {
    if (!deleting) return;
    if (deleting.id < 0) {
      const id = deleting.id;
      setDrafts((prev) => prev.filter((d) => d.id !== id));
      setDeleting(null);
      return;
    }
    setBusy(true);
    try {
      await teamApi.deleteRole(deleting.id);
      await roles.reload();
      notify('team.roles.deleted', { type: 'success', messageArgs: { name: deleting.name } });
    } catch (error) {
      notify(errorText(error, translate), { type: 'error' });
    } finally {
      setBusy(false);
      setDeleting(null);
    }
  };

  if (!profile) return <PageLoading />;
  if (!can(P.UserRoleView)) {
    return (
      <Box>
        <PageHeading title={translate('team.roles.title')} icon={<ShieldRoundedIcon />} />
        <Alert severity="warning">{translate('team.permission.missing', { permission: P.UserRoleView })}</Alert>
      </Box>
    );
  }

  const menuRole = menu?.role;
  const editable = (r: Role) => !r.readOnly && r.customer !== null;
  return (
    <Box sx={{ maxWidth: 1400, pb: 10 }} data-testid="roles-page">
      <PageHeading
        title={translate('team.roles.title')}
        subtitle={translate('team.roles.subtitle')}
        icon={<ShieldRoundedIcon />}
        actions={
          <GatedButton permission={P.UserRoleAdd} variant="contained" startIcon={<AddRoundedIcon />} onClick={openCreate} data-testid="new-role">
            {translate('team.roles.new')}
          </GatedButton>
        }
      />
      {roles.error || groups.error ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(roles.error ?? groups.error, translate)}
        </Alert>
      ) : null}
      <Paper sx={{ overflow: 'hidden' }}>
        <Box sx={{ px: 2, borderBottom: 1, borderColor: 'divider', display: 'flex', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
          <Tabs value={type} onChange={(_e, v: RoleTypeValue) => setType(v)} sx={{ flex: 1, '& .MuiTab-root': { textTransform: 'none', fontWeight: 600, minHeight: 48 } }}>
            <Tab value={RoleType.Platform} label={translate('team.roles.platform')} data-testid="roles-tab-platform" />
            <Tab value={RoleType.Inbox} label={translate('team.roles.inbox')} data-testid="roles-tab-inbox" />
          </Tabs>
          <Typography variant="body2" color="text.secondary">
            {translate(type === RoleType.Platform ? 'team.roles.platformHint' : 'team.roles.inboxHint')}
          </Typography>
        </Box>
        {!can(P.UserRoleEdit) && (
          <Alert severity="info" sx={{ borderRadius: 0 }}>
            {translate('team.permission.missing', { permission: P.UserRoleEdit })}
          </Alert>
        )}
        {roles.loading && !roles.data ? (
          <Box component="table" sx={{ width: '100%' }}>
            <tbody>
              <LoadingSkeleton columns={4} />
            </tbody>
          </Box>
        ) : (
          <PermissionMatrix
            groups={shownGroups}
            roles={shown}
            values={values}
            dirty={dirty}
            canEdit={can(P.UserRoleEdit)}
            highlight={highlight}
            onToggle={toggle}
            onRoleMenu={(id, anchor) => {
              const role = all.find((r) => r.id === id);
              if (role) setMenu({ role, anchor });
            }}
          />
        )}
      </Paper>

      <Box sx={{ position: 'fixed', bottom: 24, left: 0, right: 0, zIndex: 1200, display: 'flex', justifyContent: 'center', pointerEvents: 'none' }}>
        <Slide direction="up" in={dirtyHere.length > 0} mountOnEnter unmountOnExit>
          <Paper
            elevation={8}
            data-testid="roles-save-bar"
            sx={{ pointerEvents: 'auto', px: 2.5, py: 1.5, display: 'flex', alignItems: 'center', gap: 2, borderRadius: '12px', boxShadow: '0 12px 32px rgba(16,24,40,.18)' }}
          >
            <Typography sx={{ fontWeight: 600 }}>{translate('team.roles.unsavedChanges', { smart_count: dirtyHere.length })}</Typography>
            <Button color="inherit" onClick={discard} disabled={saving}>
              {translate('team.actions.discard')}
            </Button>
            <Button variant="contained" onClick={() => void save()} disabled={saving} data-testid="roles-save" startIcon={saving ? <CircularProgress size={16} color="inherit" /> : undefined}>
              {translate('team.actions.saveChanges')}
            </Button>
          </Paper>
        </Slide>
      </Box>

      <Menu anchorEl={menu?.anchor} open={!!menu} onClose={() => setMenu(null)} slotProps={{ paper: { sx: { minWidth: 200 } } }}>
        {menuRole && editable(menuRole) && (
          <GatedMenuItem permission={P.UserRoleEdit} onClick={() => { openEdit(menuRole); setMenu(null); }} data-testid="role-edit">
            <ListItemIcon><EditRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.roles.edit')}</ListItemText>
          </GatedMenuItem>
        )}
        {menuRole && menuRole.id > 0 && (
          <GatedMenuItem permission={P.UserRoleAdd} onClick={() => { openCopy(menuRole); setMenu(null); }} data-testid="role-copy">
            <ListItemIcon><ContentCopyRoundedIcon fontSize="small" /></ListItemIcon>
            <ListItemText>{translate('team.roles.copy')}</ListItemText>
          </GatedMenuItem>
        )}
        {menuRole && editable(menuRole) && <Divider />}
        {menuRole && editable(menuRole) && (
          <GatedMenuItem permission={P.UserRoleDelete} onClick={() => { setDeleting(menuRole); setMenu(null); }} sx={{ color: 'error.main' }} data-testid="role-delete">
            <ListItemIcon><DeleteOutlineRoundedIcon fontSize="small" color="error" /></ListItemIcon>
            <ListItemText>{translate('team.roles.delete')}</ListItemText>
          </GatedMenuItem>
        )}
      </Menu>

      <RoleDialog
        open={!!dialog}
        mode={dialog?.mode ?? 'create'}
        initial={dialog?.initial ?? { name: '', description: '' }}
        taken={names.filter((n) => n !== dialog?.role?.name)}
        onClose={() => setDialog(null)}
        onSubmit={submitDialog}
      />
      <ConfirmDialog
        open={!!deleting}
        busy={busy}
        danger
        title={translate('team.roles.confirmDelete.title')}
        text={translate('team.roles.confirmDelete.text', { name: deleting?.name ?? '' })}
        confirmLabel={translate('team.roles.delete')}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      />
    </Box>
  );
};
