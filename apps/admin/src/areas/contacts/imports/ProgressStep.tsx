import AutorenewRoundedIcon from '@mui/icons-material/AutorenewRounded';
import CheckCircleRoundedIcon from '@mui/icons-material/CheckCircleRounded';
import ErrorOutlineRoundedIcon from '@mui/icons-material/ErrorOutlineRounded';
import { Box, Button, Typography } from '@mui/material';
import { keyframes } from '@mui/system';
import { useTranslate } from 'react-admin';
import { ImportStatus, ImportType } from '../constants';
import type { ImportList } from '../types';
import { formatNumber } from '../widgets/format';
import { ProgressBar } from '../widgets/ProgressBar';
import { ImportStatusChip } from '../lists/ListStatus';

const spin = keyframes`from { transform: rotate(0deg) } to { transform: rotate(360deg) }`;

const Counter = ({ label, value, hint, tone, testId }: { label: string; value: string; hint?: string; tone?: 'success' | 'danger' | 'warning'; testId: string }) => (
  <Box sx={{ p: 2, border: 1, borderColor: 'divider', borderRadius: '12px', bgcolor: '#fff' }}>
    <Typography variant="caption" color="text.secondary" sx={{ fontWeight: 600, textTransform: 'uppercase', letterSpacing: '.04em' }}>
      {label}
    </Typography>
    <Typography
      sx={{ fontSize: 26, fontWeight: 700, fontVariantNumeric: 'tabular-nums', color: tone === 'success' ? '#067647' : tone === 'danger' ? '#b42318' : tone === 'warning' ? '#b54708' : 'text.primary' }}
      data-testid={testId}
    >
      {value}
    </Typography>
    {hint && (
      <Typography variant="caption" color="text.secondary">
        {hint}
      </Typography>
    )}
  </Box>
);

/** Step 3 of the import: the parse's progress bar and counters, live, then the outcome. */
export const ProgressStep = ({ imp, onOpen, onAnother }: { imp: ImportList; onOpen: () => void; onAnother: () => void }) => {
  const translate = useTranslate();
  const locale = translate('contacts.locale');
  const done = imp.status === ImportStatus.Parsed;
  const failed = imp.status === ImportStatus.Error;
  const blacklist = imp.type === ImportType.Blacklist;
  const n = (v: number) => formatNumber(v, locale);
  const icon = done ? (
    <CheckCircleRoundedIcon sx={{ fontSize: 30, color: 'success.main' }} />
  ) : failed ? (
    <ErrorOutlineRoundedIcon sx={{ fontSize: 30, color: 'error.main' }} />
  ) : (
    <AutorenewRoundedIcon sx={{ fontSize: 30, color: 'primary.main', animation: `${spin} 1.4s linear infinite` }} />
  );
  return (
    <Box data-testid="import-progress-step" data-status={imp.status}>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 3 }}>
        <Box sx={{ width: 56, height: 56, borderRadius: '14px', display: 'grid', placeItems: 'center', bgcolor: done ? '#ecfdf3' : failed ? '#fef3f2' : '#eef2ff' }}>{icon}</Box>
        <Box sx={{ flex: 1 }}>
          <Typography variant="h6">{translate(done ? 'contacts.imports.doneTitle' : failed ? 'contacts.imports.failedTitle' : 'contacts.imports.runningTitle', { name: imp.name })}</Typography>
          <Typography variant="body2" color="text.secondary">
            {failed ? imp.error || translate('contacts.errors.generic') : translate(done ? (blacklist ? 'contacts.imports.doneTextBlacklist' : 'contacts.imports.doneText') : 'contacts.imports.runningText')}
          </Typography>
        </Box>
      </Box>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, p: 2, mb: 2, bgcolor: '#f9fafb', borderRadius: '12px', flexWrap: 'wrap' }}>
        <Typography variant="body2" sx={{ fontWeight: 600 }}>
          {translate('contacts.imports.statusLabel')}
        </Typography>
        <ImportStatusChip status={imp.status} testId="import-status" />
        <Box sx={{ flex: 1 }} />
        <ProgressBar value={done ? 100 : imp.progress} testId="import-progress" />
      </Box>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(4, 1fr)' }, gap: 1.5 }}>
        <Counter label={translate('contacts.imports.counters.parsed')} value={n(imp.parsed)} testId="count-parsed" />
        <Counter label={translate(blacklist ? 'contacts.imports.counters.blocked' : 'contacts.imports.counters.contacts')} value={n(imp.numberOfContacts)} tone="success" testId="count-contacts" />
        <Counter
          label={translate('contacts.imports.counters.failed')}
          value={n(imp.failed)}
          tone={imp.failed ? 'danger' : undefined}
          hint={translate('contacts.imports.counters.failedHint', { invalid: n(imp.invalid), notMobile: n(imp.notMobile), blacklisted: n(imp.blacklisted) })}
          testId="count-failed"
        />
        <Counter label={translate('contacts.imports.counters.duplicates')} value={n(imp.duplicates)} tone={imp.duplicates ? 'warning' : undefined} testId="count-duplicates" />
      </Box>
      {(done || failed) && (
        <Box sx={{ display: 'flex', gap: 1.5, mt: 3, justifyContent: 'flex-end' }}>
          <Button variant="outlined" onClick={onAnother} data-testid="import-another">
            {translate('contacts.imports.another')}
          </Button>
          {done && (
            <Button variant="contained" onClick={onOpen} data-testid="import-open-list">
              {translate(blacklist ? 'contacts.imports.openBlacklist' : 'contacts.imports.openList')}
            </Button>
          )}
        </Box>
      )}
    </Box>
  );
};
