import VpnKeyRoundedIcon from '@mui/icons-material/VpnKeyRounded';
import {
  Alert,
  Box,
  Button,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  Paper,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { useCallback, useEffect, useState } from 'react';
import { useLocale, usePermissions, useTranslate } from 'react-admin';
import { isApiError } from '../../providers/http';
import { PageHeading } from '../../ui/PageHeading';
import { accessRequestsApi, P, type SsoAccessRequest } from './api';

const STATUS_COLOR: Record<SsoAccessRequest['status'], 'warning' | 'success' | 'default'> = { pending: 'warning', approved: 'success', rejected: 'default' };

/**
 * /zoho-access-requests: the Zoho Inbox users who asked to sign in as members of this account (decision 0042), with
 * approve and deny for the pending ones and revoke for the approved ones (USER_INVITE_EDIT; the server also checks that
 * the admin holds every permission of the member). Pending requests first. A denied or revoked request leaves the list
 * (the API lists pending and approved ones).
 */
export const ZohoAccessRequestsPage = () => {
  const translate = useTranslate();
  const locale = useLocale();
  const { permissions } = usePermissions<{ permissions?: string[]; roles?: string[] }>();
  const mayDecide = !!permissions?.permissions?.includes(P.UserInviteEdit) || !!permissions?.roles?.includes('ROLE_SUPER_ADMIN');
  const [items, setItems] = useState<SsoAccessRequest[] | null>(null);
  const [busy, setBusy] = useState<number | null>(null);
  const [denying, setDenying] = useState<SsoAccessRequest | null>(null);
  const [notice, setNotice] = useState<{ severity: 'success' | 'error'; text: string } | null>(null);

  const message = (e: unknown) => (isApiError(e) ? (e.body?.message ?? e.message) : e instanceof Error ? e.message : String(e));
  const load = useCallback(async () => {
    try {
      const list = await accessRequestsApi.list();
      const rank = { pending: 0, approved: 1, rejected: 2 } as const;
      setItems([...list].sort((a, b) => rank[a.status] - rank[b.status] || b.createdAt.localeCompare(a.createdAt)));
    } catch (e) {
      setItems([]);
      setNotice({ severity: 'error', text: message(e) });
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const decide = async (r: SsoAccessRequest, approve: boolean) => {
    setDenying(null);
    setBusy(r.id);
    try {
      await (approve ? accessRequestsApi.approve(r.id) : accessRequestsApi.reject(r.id));
      setNotice({ severity: 'success', text: translate(approve ? 'integrations.access.approved' : 'integrations.access.denied', { email: r.email }) });
    } catch (e) {
      setNotice({ severity: 'error', text: translate('integrations.access.failed', { message: message(e) }) });
    }
    setBusy(null);
    await load();
  };

  return (
    <Box sx={{ p: { xs: 2, md: 3 } }} data-testid="zoho-access-requests">
      <PageHeading title={translate('integrations.access.title')} subtitle={translate('integrations.access.intro')} icon={<VpnKeyRoundedIcon />} />
      {notice && (
        <Alert severity={notice.severity} sx={{ mb: 2 }} onClose={() => setNotice(null)} data-testid="access-notice">
          {notice.text}
        </Alert>
      )}
      {items === null && <CircularProgress />}
      {items?.length === 0 && <Typography data-testid="access-empty">{translate('integrations.access.empty')}</Typography>}
      {!!items?.length && (
        <TableContainer component={Paper} variant="outlined">
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{translate('integrations.access.zohoUser')}</TableCell>
                <TableCell>{translate('integrations.access.member')}</TableCell>
                <TableCell>{translate('integrations.access.requested')}</TableCell>
                <TableCell>{translate('integrations.access.state')}</TableCell>
                <TableCell />
              </TableRow>
            </TableHead>
            <TableBody>
              {items.map((r) => (
                <TableRow key={r.id} data-testid="access-request" data-email={r.email} data-status={r.status}>
                  <TableCell>
                    <Typography variant="body2" fontWeight={600}>
                      {r.name || r.email}
                    </Typography>
                    <Typography variant="caption" color="text.secondary">
                      {r.email}
                    </Typography>
                  </TableCell>
                  <TableCell>{r.user.email}</TableCell>
                  <TableCell>{new Date(r.createdAt).toLocaleString(locale)}</TableCell>
                  <TableCell>
                    <Chip size="small" color={STATUS_COLOR[r.status]} label={translate(`integrations.access.status.${r.status}`)} data-testid="access-status" />
                  </TableCell>
                  <TableCell align="right">
                    {r.status === 'approved' && mayDecide && (
                      <Button size="small" color="error" disabled={busy !== null} onClick={() => setDenying(r)} data-testid="access-revoke">
                        {translate('integrations.access.revoke')}
                      </Button>
                    )}
                    {r.status === 'pending' && mayDecide && (
                      <Stack direction="row" spacing={1} justifyContent="flex-end">
                        <Button size="small" variant="contained" disabled={busy !== null} onClick={() => void decide(r, true)} data-testid="access-approve">
                          {translate('integrations.access.approve')}
                        </Button>
                        <Button size="small" color="error" disabled={busy !== null} onClick={() => setDenying(r)} data-testid="access-deny">
                          {translate('integrations.access.deny')}
                        </Button>
                      </Stack>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <Dialog open={!!denying} onClose={() => setDenying(null)}>
        <DialogContent>{denying && translate(denying.status === 'approved' ? 'integrations.access.revokeConfirm' : 'integrations.access.denyConfirm', { email: denying.email })}</DialogContent>
        <DialogActions>
          <Button onClick={() => setDenying(null)}>{translate('integrations.access.cancel')}</Button>
          <Button color="error" variant="contained" onClick={() => denying && void decide(denying, false)} data-testid="access-deny-confirm">
            {translate(denying?.status === 'approved' ? 'integrations.access.revoke' : 'integrations.access.deny')}
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
};
