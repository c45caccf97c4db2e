import { Box, Grid, Paper, Skeleton, Stack, Typography } from '@mui/material';
import { useEffect, useMemo, type ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { apiFetch } from '../../../providers/http';
import { useApi } from '../../../ui/useApi';
import { useInterval } from '../../../ui/useInterval';
import type { CampaignDeliveryStatsDto, CampaignDomainStatsDto, CampaignSeriesPoint, CampaignVariantStatsDto } from '@switchboard/contracts/src/stats-reports';
import { HorizontalBars, SERIES_COLOURS, StackedBars, type StackedPoint } from '../../stats/charts';
import { formatCount, formatMoney } from '../../stats/format';
import type { CampaignVariant } from '../types';
import { domainsEmptyKey } from '../widgets/report-texts';

/** The report calls of stats (spec 7 campaign_reports), over the whole campaign. */
export const campaignReportApi = {
  delivery: (id: number) => apiFetch<CampaignDeliveryStatsDto>(`/campaign_reports/delivery_stats/${id}`),
  variants: (id: number) => apiFetch<CampaignVariantStatsDto>(`/campaign_reports/variant_stats/${id}`),
  domains: (id: number) => apiFetch<CampaignDomainStatsDto>(`/campaign_reports/domain_stats/${id}`),
};

const CLICKS = '#0ea5e9';

function label(p: CampaignSeriesPoint, grain: CampaignDeliveryStatsDto['grain'], timeZone: string, locale: string): { label: string; title: string } {
  if (grain === 'hour') {
    const d = new Date(p.bucket);
    return { label: d.toLocaleTimeString(locale, { timeZone, hour: '2-digit', minute: '2-digit' }), title: d.toLocaleString(locale, { timeZone, day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }) };
  }
  const d = new Date(grain === 'month' ? `${p.bucket}-01T00:00:00Z` : `${p.bucket}T00:00:00Z`);
  const opts: Intl.DateTimeFormatOptions = grain === 'month' ? { timeZone: 'UTC', month: 'short', year: 'numeric' } : { timeZone: 'UTC', day: 'numeric', month: 'short' };
  return { label: d.toLocaleDateString(locale, opts), title: d.toLocaleDateString(locale, { ...opts, year: 'numeric' }) };
}

const Panel = ({ title, children, testId }: { title: string; children: ReactNode; testId: string }) => (
  <Paper sx={{ p: 2, height: '100%' }} data-testid={testId}>
    <Typography variant="subtitle1" sx={{ fontWeight: 700, mb: 1.5 }}>
      {title}
    </Typography>
    {children}
  </Paper>
);

/**
 * The campaign report (spec 7 campaign_reports delivery_stats, variant_stats and domain_stats, answered by stats from
 * the events): delivery and clicks over time, per variant, per domain and per country, as charts. `version` changes
 * when the campaign's figures move, so the charts follow a running campaign; `final` is the campaign's own count of
 * messages in a final status, and the report asks again every two seconds while its own count is below it.
 */
export const CampaignReport = ({ campaignId, variants, version, final }: { campaignId: number; variants: CampaignVariant[]; version: string; final: number }) => {
  const translate = useTranslate();
  const locale = translate('campaigns.locale');
  const delivery = useApi(() => campaignReportApi.delivery(campaignId), [campaignId]);
  const perVariant = useApi(() => campaignReportApi.variants(campaignId), [campaignId]);
  const perDomain = useApi(() => campaignReportApi.domains(campaignId), [campaignId]);
  useEffect(() => {
    void delivery.refresh();
    void perVariant.refresh();
    void perDomain.refresh();
  }, [version]);
  // the report follows the events a moment after the campaign's own counters: ask again until it has every final message
  const behind = !!delivery.data && delivery.data.totals.delivered + delivery.data.totals.failed < final;
  useInterval(
    () => {
      void delivery.refresh();
      void perVariant.refresh();
    },
    2000,
    behind,
    true,
  );
  const regions = useMemo(() => {
    try {
      return new Intl.DisplayNames([locale], { type: 'region' });
    } catch {
      return null;
    }
  }, [locale]);
  const d = delivery.data;
  const empty = translate('campaigns.report.empty');
  const points: StackedPoint[] = (d?.series ?? []).filter((p) => p.total > 0).map((p) => ({ ...label(p, d?.grain ?? 'day', d?.timeZone ?? 'UTC', locale), values: { delivered: p.delivered, failed: p.failed, pending: p.pending } }));
  const clickPoints: StackedPoint[] = (d?.series ?? []).filter((p) => p.clicks > 0).map((p) => ({ ...label(p, d?.grain ?? 'day', d?.timeZone ?? 'UTC', locale), values: { clicks: p.clicks } }));
  const palette = { delivered: SERIES_COLOURS.delivered, failed: SERIES_COLOURS.failed, pending: SERIES_COLOURS.pending, clicks: CLICKS };
  const names = new Map(variants.map((v) => [v.id, v]));
  const loading = (x: { loading: boolean; data: unknown }) => x.loading && !x.data;

  return (
    <Box sx={{ mb: 2 }} data-testid="campaign-report">
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, lg: 8 }}>
          <Panel title={translate('campaigns.report.delivery')} testId="campaign-report-delivery">
            <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1.5, mb: 1 }}>
              {(['delivered', 'failed', 'pending'] as const).map((k) => (
                <Stack key={k} direction="row" spacing={0.5} sx={{ alignItems: 'center', fontSize: 12, color: 'text.secondary' }}>
                  <Box sx={{ width: 10, height: 10, borderRadius: '2px', bgcolor: palette[k] }} />
                  <span>{translate(`campaigns.report.series.${k}`)}</span>
                </Stack>
              ))}
            </Stack>
            {loading(delivery) ? (
              <Skeleton variant="rounded" height={240} />
            ) : (
              <StackedBars testId="campaign-report-series" points={points} keys={['delivered', 'failed', 'pending']} colours={palette} format={(n) => formatCount(n, locale)} emptyText={empty} />
            )}
            {clickPoints.length > 0 && (
              <Box sx={{ mt: 2 }}>
                <Typography variant="body2" sx={{ fontWeight: 600, mb: 0.5 }}>
                  {translate('campaigns.report.clicksOverTime', { count: formatCount(d?.totals.clicks ?? 0, locale) })}
                </Typography>
                <StackedBars testId="campaign-report-clicks" points={clickPoints} keys={['clicks']} colours={palette} format={(n) => formatCount(n, locale)} emptyText={empty} />
              </Box>
            )}
          </Panel>
        </Grid>
        <Grid size={{ xs: 12, lg: 4 }}>
          <Panel title={translate('campaigns.report.countries')} testId="campaign-report-countries">
            {loading(delivery) ? (
              <Skeleton variant="rounded" height={200} />
            ) : (
              <HorizontalBars
                testId="campaign-report-country"
                colour="#6366f1"
                emptyText={empty}
                rows={(d?.countries ?? []).map((c) => ({ key: c.country || '-', label: c.country ? `${regions?.of(c.country) ?? c.country} (${c.country})` : translate('statistics.charts.unknownCountry'), value: c.total, text: formatCount(c.total, locale), sub: translate('campaigns.report.deliveredOf', { count: formatCount(c.delivered, locale) }) }))}
              />
            )}
          </Panel>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Panel title={translate('campaigns.report.variants')} testId="campaign-report-variants">
            {loading(perVariant) ? (
              <Skeleton variant="rounded" height={160} />
            ) : (
              <HorizontalBars
                testId="campaign-report-variant"
                colour={SERIES_COLOURS.delivered}
                emptyText={empty}
                rows={(perVariant.data?.items ?? []).map((v) => ({
                  key: String(v.variantId ?? 0),
                  label: v.variantId === null ? translate('campaigns.report.unknownVariant') : (names.get(v.variantId)?.name ?? `#${v.variantId}`),
                  value: v.delivered,
                  text: formatCount(v.delivered, locale),
                  sub: [translate('campaigns.report.ofSent', { count: formatCount(v.total, locale) }), translate('campaigns.report.ctrOfDelivered', { ctr: v.ctr.toLocaleString(locale) }), ...(v.cost ?? []).map((m) => formatMoney(m, locale))].join(' · '),
                }))}
              />
            )}
          </Panel>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Panel title={translate('campaigns.report.domains')} testId="campaign-report-domains">
            {loading(perDomain) ? (
              <Skeleton variant="rounded" height={160} />
            ) : (
              <HorizontalBars
                testId="campaign-report-domain"
                colour={CLICKS}
                emptyText={translate(domainsEmptyKey(variants))}
                rows={(perDomain.data?.items ?? []).map((x) => ({
                  key: x.domain,
                  label: x.domain,
                  value: x.clicks,
                  text: translate('campaigns.report.clicks', { count: formatCount(x.clicks, locale), smart_count: x.clicks }),
                  sub: [translate('campaigns.report.links', { count: formatCount(x.usages, locale), smart_count: x.usages }), translate('campaigns.report.ctrOfLinks', { ctr: x.ctr.toLocaleString(locale) })].join(' · '),
                }))}
              />
            )}
          </Panel>
        </Grid>
      </Grid>
    </Box>
  );
};
