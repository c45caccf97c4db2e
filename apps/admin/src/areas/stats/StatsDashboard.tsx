import { Alert, Box, Button, Grid, Paper, Skeleton, Stack, TextField, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { useMemo, useState, type ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';
import { useApi } from '../../ui/useApi';
import { statsApi, type DashboardMainDto, type MoneyDto, type SeriesPoint, type StatsFilter } from './api';
import { HorizontalBars, SERIES_COLOURS, StackedBars, type StackedPoint } from './charts';
import { formatCount, formatMoney, formatMoneyShort } from './format';
import { MessageExportButton } from './MessageExport';

const SLICES: Array<StatsFilter['type']> = ['day', 'week', 'month', 'year', 'all', 'custom'];

const Card = ({ label, value, sub, accent, testId, loading }: { label: string; value: ReactNode; sub?: ReactNode; accent: string; testId: string; loading: boolean }) => (
  <Paper sx={{ p: 2, position: 'relative', overflow: 'hidden', height: '100%' }} data-testid={testId}>
    <Box sx={{ position: 'absolute', left: 0, top: 0, bottom: 0, width: 3, bgcolor: accent }} />
    <Typography variant="body2" color="text.secondary" sx={{ fontWeight: 500 }}>
      {label}
    </Typography>
    <Typography sx={{ fontSize: 26, fontWeight: 700, letterSpacing: '-0.02em', mt: 0.25 }} data-testid={`${testId}-value`} component="div">
      {loading ? <Skeleton width={80} /> : value}
    </Typography>
    <Typography variant="caption" color="text.secondary" component="div" sx={{ minHeight: 18 }}>
      {sub}
    </Typography>
  </Paper>
);

/** The x label of a series point: the local hour, the day or the month, in the account's zone and the user's language. */
function bucketLabel(p: SeriesPoint, grain: DashboardMainDto['grain'], timeZone: string, locale: string): { label: string; title: string } {
  if (grain === 'hour') {
    const d = new Date(p.bucket);
    return {
      label: d.toLocaleTimeString(locale, { timeZone, hour: '2-digit', minute: '2-digit' }),
      title: d.toLocaleString(locale, { timeZone, day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }),
    };
  }
  const d = new Date(grain === 'month' ? `${p.bucket}-01T00:00:00Z` : `${p.bucket}T00:00:00Z`);
  const opts: Intl.DateTimeFormatOptions = grain === 'month' ? { timeZone: 'UTC', month: 'short', year: 'numeric' } : { timeZone: 'UTC', day: 'numeric', month: 'short' };
  return { label: d.toLocaleDateString(locale, opts), title: d.toLocaleDateString(locale, { ...opts, year: 'numeric' }) };
}

const moneyText = (cost: MoneyDto[] | null, locale: string): string | null => (cost && cost.length ? cost.map((m) => formatMoney(m, locale)).join(' + ') : null);

/**
 * The messaging dashboard (spec 7 dashboard_statistics main and top_destinations): sent, delivered, failed, cost,
 * messages and cost over the time slice, top destinations and traffic per stream, as hand-drawn SVG charts.
 * `compact` (the home page) shows the cards and the traffic chart, with a link to the statistics page.
 */
export const StatsDashboard = ({ compact = false }: { compact?: boolean }) => {
  const translate = useTranslate();
  const locale = translate('statistics.locale');
  const [filter, setFilter] = useState<StatsFilter>({ type: 'week' });
  const [custom, setCustom] = useState<{ start: string; end: string }>({ start: '', end: '' });
  const [showCustom, setShowCustom] = useState(false);
  const main = useApi(() => statsApi.main(filter), [JSON.stringify(filter)]);
  const top = useApi(() => statsApi.topDestinations(filter), [JSON.stringify(filter)], !compact);
  const m = main.data;
  const loading = main.loading && !m;
  const regions = useMemo(() => {
    try {
      return new Intl.DisplayNames([locale], { type: 'region' });
    } catch {
      return null;
    }
  }, [locale]);

  const points: StackedPoint[] = (m?.series ?? []).map((p) => ({ ...bucketLabel(p, m?.grain ?? 'day', m?.timeZone ?? 'UTC', locale), values: { delivered: p.delivered, failed: p.failed, pending: p.pending } }));
  const currency = m?.cost?.[0]?.currency ?? m?.currency ?? 'EUR';
  const costPoints: StackedPoint[] = m?.cost
    ? (m.series ?? [])
        .filter((p) => p.costMicros !== null && p.costMicros !== '0')
        .map((p) => ({ ...bucketLabel(p, m.grain, m.timeZone, locale), values: { cost: Number(p.costMicros) } }))
    : [];
  const t = m?.totals;
  const rate = t && t.total > 0 ? Math.round((t.delivered / t.total) * 1000) / 10 : null;
  // the export covers the range the figures cover (the answer's own start and end), or every message for "all"
  const exportParams = m?.start && m?.end ? { start: m.start, end: m.end } : {};
  const localDate = (iso: string) => new Date(iso).toLocaleString(locale, { timeZone: m?.timeZone ?? 'UTC', dateStyle: 'medium', timeStyle: 'short' });
  const exportSummary = m?.start && m?.end ? translate('statistics.export.range', { start: localDate(m.start), end: localDate(m.end) }) : translate('statistics.export.rangeAll');
  const palette = { delivered: SERIES_COLOURS.delivered, failed: SERIES_COLOURS.failed, pending: SERIES_COLOURS.pending };

  return (
    <Box data-testid="stats-dashboard">
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={1.5} sx={{ mb: 2, alignItems: { md: 'center' }, justifyContent: 'space-between' }}>
        <Typography variant="h6">{translate('statistics.dashboard')}</Typography>
        <Stack direction="row" sx={{ alignItems: 'center', flexWrap: 'wrap', minWidth: 0 }}>
          <ToggleButtonGroup
            size="small"
            exclusive
            value={showCustom ? 'custom' : filter.type}
            onChange={(_e, v: StatsFilter['type'] | null) => {
              if (!v) return;
              setShowCustom(v === 'custom');
              if (v !== 'custom') setFilter({ type: v });
              else if (custom.start && custom.end) setFilter({ type: 'custom', ...custom });
            }}
            sx={{ bgcolor: 'background.paper', flexWrap: 'wrap', '& .MuiToggleButton-root': { px: 1.25, py: 0.4, textTransform: 'none', fontWeight: 600, fontSize: 13 } }}
          >
            {SLICES.map((s) => (
              <ToggleButton key={s} value={s} data-testid={`stats-slice-${s}`}>
                {translate(`statistics.slices.${s}`)}
              </ToggleButton>
            ))}
          </ToggleButtonGroup>
          {!compact && (
            <Box sx={{ ml: 1 }}>
              <MessageExportButton types={['export_messages', 'export_incoming_messages']} params={exportParams} summary={exportSummary} testId="stats-export" />
            </Box>
          )}
        </Stack>
      </Stack>
      {showCustom && (
        <Stack direction="row" sx={{ mb: 2, alignItems: 'center', flexWrap: 'wrap', gap: 1 }} data-testid="stats-custom">
          <TextField size="small" type="date" label={translate('statistics.from')} value={custom.start} onChange={(e) => setCustom((c) => ({ ...c, start: e.target.value }))} slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'stats-from' } }} />
          <TextField size="small" type="date" label={translate('statistics.to')} value={custom.end} onChange={(e) => setCustom((c) => ({ ...c, end: e.target.value }))} slotProps={{ inputLabel: { shrink: true }, htmlInput: { 'data-testid': 'stats-to' } }} />
          <Button variant="contained" size="small" disabled={!custom.start || !custom.end || custom.start > custom.end} onClick={() => setFilter({ type: 'custom', ...custom })} data-testid="stats-apply">
            {translate('statistics.apply')}
          </Button>
        </Stack>
      )}
      {main.error ? (
        <Alert severity="error" data-testid="stats-error">
          {translate('statistics.error')}
        </Alert>
      ) : (
        <>
          <Grid container spacing={2} sx={{ mb: 2 }}>
            <Grid size={{ xs: 12, sm: 6, lg: 'grow' }}>
              <Card testId="stats-total" accent="#4f46e5" loading={loading} label={translate('statistics.cards.messages')} value={t ? formatCount(t.total, locale) : 0} sub={t ? translate('statistics.cards.parts', { smart_count: t.parts }) : ''} />
            </Grid>
            <Grid size={{ xs: 12, sm: 6, lg: 'grow' }}>
              <Card testId="stats-delivered" accent={SERIES_COLOURS.delivered} loading={loading} label={translate('statistics.cards.delivered')} value={t ? formatCount(t.delivered, locale) : 0} sub={rate !== null ? translate('statistics.cards.rate', { rate: rate.toLocaleString(locale) }) : ''} />
            </Grid>
            <Grid size={{ xs: 12, sm: 6, lg: 'grow' }}>
              <Card testId="stats-failed" accent={SERIES_COLOURS.failed} loading={loading} label={translate('statistics.cards.failed')} value={t ? formatCount(t.failed, locale) : 0} sub={t && t.pending > 0 ? translate('statistics.cards.pending', { count: formatCount(t.pending, locale) }) : ''} />
            </Grid>
            <Grid size={{ xs: 12, sm: 6, lg: 'grow' }}>
              <Card testId="stats-clicked" accent="#0ea5e9" loading={loading} label={translate('statistics.cards.clicked')} value={m?.clicked == null ? '—' : formatCount(m.clicked, locale)} sub={m ? translate(m.clicked == null ? 'statistics.cards.clickedAll' : 'statistics.cards.clickedSub') : ''} />
            </Grid>
            {m?.cost !== null && (
              <Grid size={{ xs: 12, sm: 6, lg: 'grow' }}>
                <Card testId="stats-cost" accent={SERIES_COLOURS.cost} loading={loading} label={translate('statistics.cards.cost')} value={moneyText(m?.cost ?? null, locale) ?? formatMoney({ currency, micros: '0' }, locale)} sub={m && !moneyText(m.cost, locale) ? translate('statistics.cards.noCost') : ''} />
              </Grid>
            )}
          </Grid>
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, lg: compact ? 12 : 8 }}>
              <Paper sx={{ p: 2 }}>
                <Stack direction="row" sx={{ justifyContent: 'space-between', alignItems: 'center', mb: 1, flexWrap: 'wrap', gap: 1 }}>
                  <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
                    {translate('statistics.charts.traffic')}
                  </Typography>
                  <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1.5 }}>
                    {(['delivered', 'failed', 'pending'] as const).map((k) => (
                      <Stack key={k} direction="row" spacing={0.5} sx={{ alignItems: 'center', fontSize: 12, color: 'text.secondary' }}>
                        <Box sx={{ width: 10, height: 10, borderRadius: '2px', bgcolor: palette[k] }} />
                        <span>{translate(`statistics.charts.${k}`)}</span>
                      </Stack>
                    ))}
                  </Stack>
                </Stack>
                {loading ? <Skeleton variant="rounded" height={240} /> : <StackedBars testId="stats-traffic" points={points} keys={['delivered', 'failed', 'pending']} colours={palette} format={(n) => formatCount(n, locale)} emptyText={translate('statistics.charts.empty')} />}
              </Paper>
            </Grid>
            {!compact && (
              <Grid size={{ xs: 12, lg: 4 }}>
                <Paper sx={{ p: 2, height: '100%' }}>
                  <Typography variant="subtitle1" sx={{ fontWeight: 600, mb: 1.5 }}>
                    {translate('statistics.charts.destinations')}
                  </Typography>
                  {top.loading && !top.data ? (
                    <Skeleton variant="rounded" height={200} />
                  ) : (
                    <HorizontalBars
                      testId="stats-destinations"
                      colour="#0ea5e9"
                      emptyText={translate('statistics.charts.empty')}
                      rows={(top.data?.items ?? []).map((d) => ({ key: d.country || '-', label: d.country ? `${regions?.of(d.country) ?? d.country} (${d.country})` : translate('statistics.charts.unknownCountry'), value: d.total, text: formatCount(d.total, locale), sub: moneyText(d.cost, locale) ?? undefined }))}
                    />
                  )}
                </Paper>
              </Grid>
            )}
            {!compact && m?.cost !== null && (
              <Grid size={{ xs: 12, lg: 8 }}>
                <Paper sx={{ p: 2 }}>
                  <Typography variant="subtitle1" sx={{ fontWeight: 600, mb: 1 }}>
                    {translate('statistics.charts.cost')}
                  </Typography>
                  {loading ? <Skeleton variant="rounded" height={240} /> : <StackedBars testId="stats-cost-chart" fractional points={costPoints} keys={['cost']} colours={{ cost: SERIES_COLOURS.cost }} format={(n) => formatMoneyShort(n, currency, locale)} emptyText={translate('statistics.cards.noCost')} />}
                </Paper>
              </Grid>
            )}
            {!compact && m?.streams && (
              <Grid size={{ xs: 12, lg: 4 }}>
                <Paper sx={{ p: 2, height: '100%' }}>
                  <Typography variant="subtitle1" sx={{ fontWeight: 600, mb: 1.5 }}>
                    {translate('statistics.charts.streams')}
                  </Typography>
                  <HorizontalBars testId="stats-streams" colour="#4f46e5" emptyText={translate('statistics.charts.empty')} rows={m.streams.map((s) => ({ key: String(s.streamId), label: s.name, value: s.total, text: formatCount(s.total, locale), sub: moneyText(s.cost, locale) ?? undefined }))} />
                </Paper>
              </Grid>
            )}
          </Grid>
          <Stack direction="row" sx={{ mt: 1.5, justifyContent: 'space-between', alignItems: 'center', gap: 2, flexWrap: 'wrap' }}>
            <Typography variant="caption" color="text.secondary">
              {translate('statistics.cached')}
            </Typography>
            {compact && (
              <Button component={RouterLink} to="/statistics" size="small" data-testid="stats-more">
                {translate('statistics.more')}
              </Button>
            )}
          </Stack>
        </>
      )}
    </Box>
  );
};
