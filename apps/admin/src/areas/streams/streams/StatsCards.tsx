import { Box, Paper, Skeleton, ToggleButton, ToggleButtonGroup, Tooltip, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { TIME_SLICES, type TimeSlice } from '../constants';
import { abbreviate, useMoney } from '../labels';
import type { Statistics } from '../types';
import { TONES } from '../../../ui/StatusChip';

/** Spec 9 time slices as a segmented control. */
export const SliceToggle = ({ value, onChange }: { value: TimeSlice; onChange: (s: TimeSlice) => void }) => {
  const translate = useTranslate();
  return (
    <ToggleButtonGroup size="small" exclusive value={value} onChange={(_e, v: TimeSlice | null) => v && onChange(v)} sx={{ bgcolor: 'background.paper', '& .MuiToggleButton-root': { px: 1.5, py: 0.4, textTransform: 'none', fontWeight: 600, fontSize: 13 } }}>
      {TIME_SLICES.map((s) => (
        <ToggleButton key={s} value={s} data-testid={`slice-${s}`}>
          {translate(`streams.slices.${s}`)}
        </ToggleButton>
      ))}
    </ToggleButtonGroup>
  );
};

const Card = ({ label, value, sub, accent, testId, loading }: { label: string; value: ReactNode; sub?: ReactNode; accent: string; testId?: string; loading?: boolean }) => (
  <Paper sx={{ p: 2, position: 'relative', overflow: 'hidden' }} data-testid={testId}>
    <Box sx={{ position: 'absolute', left: 0, top: 0, bottom: 0, width: 3, bgcolor: accent }} />
    <Typography variant="body2" color="text.secondary" sx={{ fontWeight: 500 }}>
      {label}
    </Typography>
    <Typography sx={{ fontSize: 26, fontWeight: 700, letterSpacing: '-0.02em', mt: 0.25 }} data-testid={testId ? `${testId}-value` : undefined}>
      {loading ? <Skeleton width={60} /> : value}
    </Typography>
    {sub && (
      <Typography variant="caption" color="text.secondary" component="div">
        {sub}
      </Typography>
    )}
  </Paper>
);

/** The status mix of the slice as one stacked bar. */
const StatusBar = ({ stats }: { stats: Statistics['totals'] }) => {
  const translate = useTranslate();
  const parts: Array<{ key: keyof Statistics['totals']; color: string }> = [
    { key: 'delivered', color: TONES.success.dot },
    { key: 'sent', color: TONES.info.dot },
    { key: 'accepted', color: TONES.neutral.dot },
    { key: 'undelivered', color: TONES.warning.dot },
    { key: 'sent_failed', color: TONES.danger.dot },
    { key: 'rejected', color: '#b42318' },
    { key: 'no_routes', color: '#7a271a' },
  ];
  const total = stats.total || 1;
  return (
    <Box>
      <Box sx={{ display: 'flex', height: 8, borderRadius: 8, overflow: 'hidden', bgcolor: '#f2f4f7' }}>
        {parts.map((p) =>
          stats[p.key] ? (
            <Tooltip key={p.key} title={`${translate(`streams.messageStatus.${p.key}`)}: ${stats[p.key]}`}>
              <Box sx={{ width: `${(Number(stats[p.key]) / total) * 100}%`, bgcolor: p.color }} />
            </Tooltip>
          ) : null,
        )}
      </Box>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, mt: 1 }}>
        {parts
          .filter((p) => stats[p.key])
          .map((p) => (
            <Box key={p.key} sx={{ display: 'flex', alignItems: 'center', gap: 0.75 }}>
              <Box sx={{ width: 8, height: 8, borderRadius: '50%', bgcolor: p.color }} />
              <Typography variant="caption" color="text.secondary">
                {translate(`streams.messageStatus.${p.key}`)} <b>{stats[p.key]}</b>
              </Typography>
            </Box>
          ))}
      </Box>
    </Box>
  );
};

/** The figures of a time slice (POST /streams/subscribe): messages, delivered with the rate, failed, parts, cost. */
export const StatsCards = ({ stats, loading, currency, showBar = false }: { stats: Statistics | undefined; loading: boolean; currency: string | null | undefined; showBar?: boolean }) => {
  const translate = useTranslate();
  const money = useMoney();
  const locale = translate('streams.locale');
  const t = stats?.totals;
  const failed = t ? t.sent_failed + t.undelivered + t.rejected + t.no_routes : 0;
  const rate = t && t.total ? Math.round((t.delivered / t.total) * 1000) / 10 : null;
  return (
    <Box>
      <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(4, 1fr)' }, gap: 2 }}>
        <Card testId="stat-total" accent={TONES.primary.dot} label={translate('streams.stats.messages')} value={t ? abbreviate(t.total, locale) : 0} sub={t ? translate('streams.stats.parts', { smart_count: t.parts }) : ' '} loading={loading && !stats} />
        <Card testId="stat-delivered" accent={TONES.success.dot} label={translate('streams.stats.delivered')} value={t ? abbreviate(t.delivered, locale) : 0} sub={rate !== null ? translate('streams.stats.rate', { rate: rate.toLocaleString(locale) }) : translate('streams.stats.noMessages')} loading={loading && !stats} />
        <Card testId="stat-failed" accent={TONES.danger.dot} label={translate('streams.stats.failed')} value={abbreviate(failed, locale)} sub={t ? translate('streams.stats.inFlight', { count: t.accepted + t.sent }) : ' '} loading={loading && !stats} />
        <Card testId="stat-cost" accent={TONES.warning.dot} label={translate('streams.stats.cost')} value={money(t?.cost ?? 0, currency)} sub={translate('streams.stats.costHint')} loading={loading && !stats} />
      </Box>
      {showBar && t && t.total > 0 && (
        <Paper sx={{ p: 2, mt: 2 }}>
          <StatusBar stats={t} />
        </Paper>
      )}
    </Box>
  );
};
