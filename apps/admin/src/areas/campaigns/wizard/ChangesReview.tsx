import { Box, Button, CircularProgress, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { AppModal } from '../../../ui/modal/AppModal';
import type { Change } from './model';

/** Spec 2: the changes-review popup shown before an edit is saved: each changed field, before and after. */
export const ChangesReview = ({ open, changes, busy, onConfirm, onClose }: { open: boolean; changes: Change[]; busy: boolean; onConfirm: () => void; onClose: () => void }) => {
  const translate = useTranslate();
  return (
    <AppModal
      open={open}
      onClose={onClose}
      size="m"
      dismissible={!busy}
      title={translate('campaigns.review.title')}
      subtitle={translate('campaigns.review.subtitle', { smart_count: changes.length })}
      testId="changes-review"
      actions={
        <>
          <Button color="inherit" onClick={onClose} disabled={busy}>
            {translate('campaigns.review.back')}
          </Button>
          <Button variant="contained" onClick={onConfirm} disabled={busy || changes.length === 0} startIcon={busy ? <CircularProgress size={16} color="inherit" /> : undefined} data-testid="review-confirm">
            {translate('campaigns.review.confirm')}
          </Button>
        </>
      }
    >
      {changes.length === 0 ? (
        <Typography color="text.secondary" data-testid="review-none">{translate('campaigns.review.none')}</Typography>
      ) : (
        <Box sx={{ overflowX: 'auto' }}>
          <Table size="small">
            <TableHead>
              <TableRow>
                <TableCell>{translate('campaigns.review.field')}</TableCell>
                <TableCell>{translate('campaigns.review.before')}</TableCell>
                <TableCell>{translate('campaigns.review.after')}</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {changes.map((c) => (
                <TableRow key={c.field} data-testid="review-row" data-field={c.field}>
                  <TableCell sx={{ fontWeight: 600, whiteSpace: 'nowrap', verticalAlign: 'top' }}>{translate(`campaigns.review.fields.${c.field}`)}</TableCell>
                  <TableCell sx={{ color: 'text.secondary', textDecoration: 'line-through', whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', verticalAlign: 'top' }}>{c.before || '—'}</TableCell>
                  <TableCell sx={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere', verticalAlign: 'top' }} data-testid="review-after">{c.after || '—'}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Box>
      )}
    </AppModal>
  );
};
