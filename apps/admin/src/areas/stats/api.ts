import { apiFetch } from '../../providers/http';
import type { DashboardMainDto, TopDestinationsDto } from '@switchboard/contracts/src/stats-reports';

export type { DashboardMainDto, TopDestinationsDto, MoneyDto, SeriesPoint, DestinationFigures, StreamFigures } from '@switchboard/contracts/src/stats-reports';

/** The dashboard's filters (spec 9): a time slice, or custom dates (date-only, in the account's zone). */
export interface StatsFilter {
  type: 'day' | 'week' | 'month' | 'year' | 'all' | 'custom';
  start?: string;
  end?: string;
}

const body = (f: StatsFilter) => (f.type === 'custom' ? { type: 'custom', start: f.start, end: f.end } : { type: f.type });

export const statsApi = {
  main: (f: StatsFilter) => apiFetch<DashboardMainDto>('/dashboard_statistics/main', { method: 'POST', body: body(f) }),
  topDestinations: (f: StatsFilter) => apiFetch<TopDestinationsDto>('/dashboard_statistics/top_destinations', { method: 'POST', body: { ...body(f), limit: 8 } }),
};
