import { Alert, Box, Grid, MenuItem, Paper, Skeleton, Tab, Tabs, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { useNavigate, useParams } from 'react-router-dom';
import { useCan } from '../../../ui/permissions';
import { useApi } from '../../../ui/useApi';
import { useProfile } from '../../../ui/useProfile';
import type { InboxCountersReport } from '../types';
import { HorizontalBars, StackedBars, type StackedPoint } from '../../stats/charts';
import { formatCount } from '../../stats/format';
import { inboxApi } from '../api';
import { P } from '../constants';
import { STATUS_COLOUR } from '../format';
import { InboxFrame } from '../InboxFrame';
import { agentRef, InboxProvider, useInbox } from '../useInbox';

export const BOARDS = ['space_reports', 'team_reports', 'agent_reports', 'my_reports'] as const;
export type Board = (typeof BOARDS)[number];

type Num = number | string | null | undefined;
const num = (v: Num) => (typeof v === 'number' ? v : Number(v ?? 0) || 0);

type Items = Array<Record<string, unknown>>;
const itemsOf = (x: unknown): Items => (Array.isArray(x) ? (x as Items) : x && typeof x === 'object' && Array.isArray((x as { items?: unknown }).items) ? ((x as { items: Items }).items) : []);

/** The day a default filter starts: one day back (spec 9 statistics default), as a date input value. */
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

const Card = ({ label, value, accent, testId }: { label: string; value: ReactNode; accent: string; testId: string }) => (
  <Paper sx={{ p: 2, position: 'relative', overflow: 'hidden', height: '100%' }} data-testid={testId}>
    <Box sx={{ position: 'absolute', left: 0, top: 0, bottom: 0, width: 3, bgcolor: accent }} />
    <Typography variant="body2" color="text.secondary" sx={{ fontWeight: 500 }}>{label}</Typography>
    <Typography sx={{ fontSize: 26, fontWeight: 700, letterSpacing: '-0.02em', mt: 0.25 }} component="div" data-testid={`${testId}-value`}>{value}</Typography>
  </Paper>
);

const Panel = ({ title, children, testId }: { title: string; children: ReactNode; testId?: string }) => (
  <Paper sx={{ p: 2, height: '100%' }} data-testid={testId}>
    <Typography variant="subtitle1" sx={{ fontWeight: 700, mb: 1.5 }}>{title}</Typography>
    {children}
  </Paper>
);

/**
 * One statistics board (spec 2: space_reports, team_reports, agent_reports, my_reports) over a date range with
 * optional agents and teams: the counters, messages over time, conversations per status and per channel, cost per
 * channel, statuses per tag, and the teams' and agents' performance, drawn with the stats area's SVG charts.
 */
const BoardView = ({ board }: { board: Board }) => {
  const translate = useTranslate();
  const locale = translate('inbox.locale');
  const { space, me } = useInbox();
  const { profile } = useProfile();
  const [start, setStart] = useState(() => isoDay(new Date(Date.now() - 86_400_000)));
  const [end, setEnd] = useState(() => isoDay(new Date()));
  const [entity, setEntity] = useState<number | ''>('');
  const spaceId = space?.space.id ?? 0;
  const entities: Array<{ value: number; label: string }> = board === 'team_reports' ? (space?.teams ?? []).map((t) => ({ value: t.id, label: t.name })) : board === 'agent_reports' ? (space?.agents ?? []).map((a) => ({ value: agentRef(a), label: `${a.firstname} ${a.lastname}`.trim() || a.email })) : [];
  useEffect(() => {
    setEntity(entities[0]?.value ?? '');
    // the first entity when the board or space changes
  }, [board, spaceId]);
  const needsEntity = board === 'team_reports' || board === 'agent_reports';
  const base = `${board}/${spaceId}${needsEntity ? `/${entity}` : board === 'my_reports' ? `/${me}` : ''}`;
  // date-only ranges: start 00:00:00, end 23:59:59 (spec 9)
  const filters = { start: `${start}T00:00:00`, end: `${end}T23:59:59` };
  const enabled = !!spaceId && (!needsEntity || entity !== '');
  const key = [base, start, end];
  const load = (report: string) => () => inboxApi.report(`${base}/${report}`, filters);
  const counters = useApi(load('counters'), key, enabled);
  const messages = useApi(load('messages'), key, enabled);
  const perStatus = useApi(load('conversations_per_status'), key, enabled);
  const perChannel = useApi(load('conversations_per_channel'), key, enabled);
  const costPerChannel = useApi(load('cost_per_channel'), key, enabled);
  const perTag = useApi(load('conversion_statuses_per_tag'), key, enabled);
  const teams = useApi(load('teams_performance_conversions_summary'), key, enabled && board !== 'agent_reports' && board !== 'my_reports');
  const agents = useApi(load('agents_performance_summary'), key, enabled && board !== 'my_reports');

  const c = (counters.data ?? {}) as Partial<InboxCountersReport>;
  const costValue = num(c.cost);
  // spec 1: costs show with the account currency's sign
  const currency = profile?.customer?.currency || 'EUR';
  const points: StackedPoint[] = useMemo(
    () =>
      itemsOf(messages.data).map((p) => {
        const day = String(p.date ?? p.bucket ?? p.day ?? '');
        const d = new Date(day);
        const label = Number.isNaN(d.getTime()) ? day : d.toLocaleDateString(locale, { day: 'numeric', month: 'short' });
        return { label, title: label, values: { incoming: num(p.incoming as Num), outbound: num((p.outbound ?? p.outgoing) as Num) } };
      }),
    [messages.data, locale],
  );
  const fmt = (n: number) => formatCount(n, locale);
  const loadingCards = counters.loading && !counters.data;
  const err = counters.error ?? messages.error;

  return (
    <Box sx={{ p: { xs: 1.5, md: 3 }, overflow: 'auto', flex: 1 }} data-testid={`board-${board}`}>
      <Box sx={{ display: 'flex', gap: 1.5, flexWrap: 'wrap', mb: 2, alignItems: 'center' }}>
        {needsEntity && (
          <TextField select size="small" fullWidth={false} label={translate(board === 'team_reports' ? 'inbox.reports.team' : 'inbox.reports.agent')} value={entity} onChange={(e) => setEntity(e.target.value === '' ? '' : Number(e.target.value))} sx={{ minWidth: 220 }} slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'report-entity' } as object } }}>
            {entities.map((o) => (
              <MenuItem key={o.value} value={o.value}>{o.label}</MenuItem>
            ))}
          </TextField>
        )}
        <TextField size="small" type="date" fullWidth={false} sx={{ width: 170 }} label={translate('inbox.reports.start')} value={start} onChange={(e) => setStart(e.target.value)} InputLabelProps={{ shrink: true }} inputProps={{ 'data-testid': 'report-start' }} />
        <TextField size="small" type="date" fullWidth={false} sx={{ width: 170 }} label={translate('inbox.reports.end')} value={end} onChange={(e) => setEnd(e.target.value)} InputLabelProps={{ shrink: true }} inputProps={{ 'data-testid': 'report-end' }} />
      </Box>
      {needsEntity && entities.length === 0 && <Alert severity="info" sx={{ mb: 2 }}>{translate('inbox.reports.noEntities')}</Alert>}
      {err ? <Alert severity="error" sx={{ mb: 2 }}>{err instanceof Error ? err.message : String(err)}</Alert> : null}
      <Grid container spacing={2} sx={{ mb: 2 }}>
        {([
          ['conversations', fmt(num(c.conversations)), '#4f46e5'],
          ['incoming', fmt(num(c.incoming)), '#0891b2'],
          ['outbound', fmt(num(c.outbound)), '#16a34a'],
          ['response_rate', `${Math.round(num(c.response_rate))}%`, '#d97706'],
          ['cost', costValue.toLocaleString(locale, { style: 'currency', currency }), '#db2777'],
        ] as const).map(([k, v, colour]) => (
          <Grid key={k} size={{ xs: 6, md: 'grow' }}>
            <Card label={translate(`inbox.reports.counters.${k}`)} value={loadingCards ? <Skeleton width={70} /> : v} accent={colour} testId={`report-${k}`} />
          </Grid>
        ))}
      </Grid>
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, lg: 8 }}>
          <Panel title={translate('inbox.reports.messages')} testId="report-messages">
            <StackedBars points={points} keys={['incoming', 'outbound']} colours={{ incoming: '#0891b2', outbound: '#16a34a' }} format={fmt} emptyText={translate('inbox.reports.empty')} testId="messages-chart" />
          </Panel>
        </Grid>
        <Grid size={{ xs: 12, lg: 4 }}>
          <Panel title={translate('inbox.reports.perStatus')} testId="report-per-status">
            {itemsOf(perStatus.data).length === 0 ? (
              <HorizontalBars rows={[]} colour="#4f46e5" emptyText={translate('inbox.reports.empty')} />
            ) : (
              itemsOf(perStatus.data).map((r) => {
                const status = String(r.conversation_status ?? r.status ?? '');
                return <HorizontalBars key={status} rows={[{ key: status, label: translate(`inbox.status.${status}`, { _: status }), value: num(r.items as Num), text: fmt(num(r.items as Num)) }]} colour={STATUS_COLOUR[status as 'active'] ?? '#4f46e5'} emptyText="" />;
              })
            )}
          </Panel>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Panel title={translate('inbox.reports.perChannel')} testId="report-per-channel">
            <HorizontalBars rows={itemsOf(perChannel.data).map((r) => ({ key: String(r.stream_uuid ?? r.stream_name), label: String(r.stream_name ?? r.stream_uuid ?? ''), value: num(r.items as Num), text: fmt(num(r.items as Num)), sub: r.response_rate !== undefined ? `${Math.round(num(r.response_rate as Num))}%` : undefined }))} colour="#4f46e5" emptyText={translate('inbox.reports.empty')} />
          </Panel>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Panel title={translate('inbox.reports.costPerChannel')} testId="report-cost-per-channel">
            <HorizontalBars rows={itemsOf(costPerChannel.data).map((r) => ({ key: String(r.stream_uuid ?? r.stream_name), label: String(r.stream_name ?? ''), value: num(r.total_cost as Num), text: num(r.total_cost as Num).toLocaleString(locale, { style: 'currency', currency }) }))} colour="#db2777" emptyText={translate('inbox.reports.empty')} />
          </Panel>
        </Grid>
        <Grid size={{ xs: 12 }}>
          <Panel title={translate('inbox.reports.perTag')} testId="report-per-tag">
            <SimpleTable rows={itemsOf(perTag.data)} cols={[['tag_name', translate('inbox.reports.tag')], ['conversation_status', translate('inbox.reports.status')], ['items', translate('inbox.reports.conversations')]]} empty={translate('inbox.reports.empty')} />
          </Panel>
        </Grid>
        {board !== 'agent_reports' && board !== 'my_reports' && (
          <Grid size={{ xs: 12, md: 6 }}>
            <Panel title={translate('inbox.reports.teams')} testId="report-teams">
              <SimpleTable rows={itemsOf(teams.data)} cols={[['team_name', translate('inbox.reports.team')], ['conversations', translate('inbox.reports.conversations')], ['closed', translate('inbox.status.closed')], ['response_rate', translate('inbox.reports.counters.response_rate')]]} empty={translate('inbox.reports.empty')} />
            </Panel>
          </Grid>
        )}
        {board !== 'my_reports' && (
          <Grid size={{ xs: 12, md: board === 'agent_reports' ? 12 : 6 }}>
            <Panel title={translate('inbox.reports.agents')} testId="report-agents">
              <SimpleTable rows={itemsOf(agents.data)} cols={[['agent_name', translate('inbox.reports.agent')], ['conversations', translate('inbox.reports.conversations')], ['outbound', translate('inbox.reports.counters.outbound')], ['response_rate', translate('inbox.reports.counters.response_rate')]]} empty={translate('inbox.reports.empty')} />
            </Panel>
          </Grid>
        )}
      </Grid>
    </Box>
  );
};

const SimpleTable = ({ rows, cols, empty }: { rows: Items; cols: Array<[string, string]>; empty: string }) =>
  rows.length === 0 ? (
    <Typography variant="body2" color="text.secondary" sx={{ py: 3, textAlign: 'center' }}>{empty}</Typography>
  ) : (
    <Box sx={{ overflowX: 'auto' }}>
      <Table size="small">
        <TableHead>
          <TableRow>{cols.map(([k, l]) => <TableCell key={k}>{l}</TableCell>)}</TableRow>
        </TableHead>
        <TableBody>
          {rows.map((r, i) => (
            <TableRow key={i}>{cols.map(([k]) => <TableCell key={k}>{String(r[k] ?? '')}</TableCell>)}</TableRow>
          ))}
        </TableBody>
      </Table>
    </Box>
  );

const Reports = () => {
  const translate = useTranslate();
  const navigate = useNavigate();
  const can = useCan();
  const { board } = useParams<{ board?: string }>();
  const allowed = BOARDS.filter((b) => (b === 'my_reports' ? can(P.AgentStatistics) || can(P.Statistics) : can(P.Statistics)));
  const current = (allowed.find((b) => b === board) ?? allowed[0]) as Board | undefined;
  useEffect(() => {
    if (current && board !== current) navigate(`/inbox/statistics/${current}`, { replace: true });
  }, [board, current, navigate]);
  if (!current) return <Alert severity="warning" sx={{ m: 2 }}>{translate('ui.permission.missing', { permission: P.Statistics })}</Alert>;
  return (
    <>
      <Tabs value={current} onChange={(_, b: Board) => navigate(`/inbox/statistics/${b}`)} variant="scrollable" sx={{ px: { xs: 1, md: 3 }, bgcolor: '#fff', borderBottom: 1, borderColor: 'divider', flex: 'none' }}>
        {allowed.map((b) => (
          <Tab key={b} value={b} label={translate(`inbox.reports.boards.${b}`)} data-testid={`board-tab-${b}`} sx={{ textTransform: 'none', fontWeight: 600 }} />
        ))}
      </Tabs>
      <BoardView key={current} board={current} />
    </>
  );
};

/** /inbox/statistics/:board: the four statistics boards. */
export const InboxReportsPage = () => (
  <InboxProvider workspace={false}>
    <InboxFrame section="statistics">
      <Reports />
    </InboxFrame>
  </InboxProvider>
);
