import LockRoundedIcon from '@mui/icons-material/LockRounded';
import MoreHorizRoundedIcon from '@mui/icons-material/MoreHorizRounded';
import { Box, Checkbox, IconButton, Table, TableBody, TableCell, TableContainer, TableHead, TableRow, Tooltip, Typography } from '@mui/material';
import { Fragment, type MouseEvent } from 'react';
import { useTranslate } from 'react-admin';
import type { PermissionGroup, Role } from '../types';
import { roleLabel } from './role-names';

export interface MatrixProps {
  groups: PermissionGroup[];
  roles: Role[];
  /** The permissions of each role as currently edited. */
  values: Map<number, Set<string>>;
  dirty: Set<number>;
  canEdit: boolean;
  highlight?: number | null;
  onToggle: (roleId: number, permissions: string[], on: boolean) => void;
  onRoleMenu: (roleId: number, anchor: HTMLElement) => void;
}

/** A permission's label: the translated name, else the code. */
export function usePermissionLabel() {
  const translate = useTranslate();
  return (code: string) => translate(`team.permissions.names.${code}`, { _: code });
}

const COLUMN = 148;

/**
 * The permission matrix (spec 6): permissions as rows, grouped as the spec groups them, roles as columns. Read-only
 * (system) roles are shown locked; a group row toggles the whole group for one role.
 */
export const PermissionMatrix = ({ groups, roles, values, dirty, canEdit, highlight, onToggle, onRoleMenu }: MatrixProps) => {
  const translate = useTranslate();
  const label = usePermissionLabel();
  const locked = (r: Role) => r.readOnly || r.customer === null || !canEdit;
  return (
    <TableContainer sx={{ maxHeight: 'calc(100vh - 300px)', minHeight: 240 }} data-testid="permission-matrix">
      <Table stickyHeader size="small" sx={{ tableLayout: 'fixed', minWidth: 380 + roles.length * COLUMN }}>
        <TableHead>
          <TableRow>
            <TableCell sx={{ left: 0, zIndex: 4, bgcolor: '#f9fafb', borderRight: 1, borderColor: 'divider' }}>
              <Typography variant="caption" sx={{ fontWeight: 700, color: 'text.secondary', textTransform: 'uppercase', letterSpacing: '.04em' }}>
                {translate('team.roles.permission')}
              </Typography>
            </TableCell>
            {roles.map((r) => (
              <TableCell
                key={r.id}
                align="center"
                data-testid="role-column"
                data-role-name={r.name}
                sx={{ width: COLUMN, bgcolor: highlight === r.id ? '#eef2ff' : '#f9fafb', verticalAlign: 'top', py: 1.25, transition: 'background-color .6s' }}
              >
                <Box sx={{ display: 'flex', alignItems: 'flex-start', justifyContent: 'center', gap: 0.25 }}>
                  <Tooltip title={r.description || ''} placement="top">
                    <Typography sx={{ fontWeight: 700, fontSize: 13.5, lineHeight: 1.3, wordBreak: 'break-word' }}>{roleLabel(r.name, translate)}</Typography>
                  </Tooltip>
                </Box>
                <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'center', gap: 0.5, mt: 0.5, minHeight: 26 }}>
                  {r.readOnly || r.customer === null ? (
                    <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.4, color: 'text.secondary', fontSize: 11.5, fontWeight: 600 }} data-testid="role-readonly">
                      <LockRoundedIcon sx={{ fontSize: 13 }} />
                      {translate('team.roles.system')}
                    </Box>
                  ) : (
                    <Box sx={{ fontSize: 11.5, fontWeight: 600, color: dirty.has(r.id) ? 'warning.main' : 'success.main' }}>
                      {translate(dirty.has(r.id) ? 'team.roles.unsaved' : 'team.roles.custom')}
                    </Box>
                  )}
                  <IconButton size="small" onClick={(e: MouseEvent<HTMLElement>) => onRoleMenu(r.id, e.currentTarget)} aria-label={translate('team.actions.more')} data-testid="role-menu" sx={{ p: 0.25 }}>
                    <MoreHorizRoundedIcon sx={{ fontSize: 18 }} />
                  </IconButton>
                </Box>
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {groups.map((g) => (
            <Fragment key={g.key}>
              <TableRow data-testid="permission-group">
                <TableCell sx={{ position: 'sticky', left: 0, zIndex: 1, bgcolor: '#f5f6fa', borderRight: 1, borderColor: 'divider', py: 1 }}>
                  <Typography sx={{ fontWeight: 700, fontSize: 13.5 }}>{translate(`team.permissions.groups.${g.key}`, { _: g.label })}</Typography>
                </TableCell>
                {roles.map((r) => {
                  const held = g.permissions.filter((p) => values.get(r.id)?.has(p)).length;
                  return (
                    <TableCell key={r.id} align="center" sx={{ bgcolor: '#f5f6fa', py: 0.25 }}>
                      <Checkbox
                        size="small"
                        checked={held === g.permissions.length}
                        indeterminate={held > 0 && held < g.permissions.length}
                        disabled={locked(r)}
                        onChange={(e) => onToggle(r.id, g.permissions, e.target.checked)}
                        slotProps={{ input: { 'aria-label': `${r.name}: ${g.label}` } }}
                      />
                    </TableCell>
                  );
                })}
              </TableRow>
              {g.permissions.map((p) => (
                <TableRow key={p} hover data-testid="permission-row" data-permission={p}>
                  <TableCell sx={{ position: 'sticky', left: 0, zIndex: 1, bgcolor: '#fff', borderRight: 1, borderColor: 'divider', pl: 3 }}>
                    <Box sx={{ display: 'flex', alignItems: 'baseline', justifyContent: 'space-between', gap: 2 }}>
                      <Typography variant="body2" sx={{ fontWeight: 500 }}>
                        {label(p)}
                      </Typography>
                      <Typography variant="caption" color="text.secondary" noWrap sx={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: 11 }}>
                        {p}
                      </Typography>
                    </Box>
                  </TableCell>
                  {roles.map((r) => (
                    <TableCell key={r.id} align="center" sx={{ py: 0 }}>
                      <Checkbox
                        size="small"
                        checked={!!values.get(r.id)?.has(p)}
                        disabled={locked(r)}
                        onChange={(e) => onToggle(r.id, [p], e.target.checked)}
                        slotProps={{ input: { 'aria-label': `${r.name}: ${p}`, 'data-testid': `perm-${r.id}-${p}` } as object }}
                      />
                    </TableCell>
                  ))}
                </TableRow>
              ))}
            </Fragment>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
};
