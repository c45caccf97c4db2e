import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { InboxBoard, InboxReport, Permission, type InboxBoardValue, type InboxReportValue } from '@switchboard/contracts';
import { AppError } from '@switchboard/platform';
import { refId } from '../http/input';
import { INBOX_CONNECTION } from '../inbox.options';
import { actorOf, can, InboxAccess } from './access';

type Row = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- SQL rows are mapped field by field
type Q = Record<string, unknown>;

const BOARDS = Object.values(InboxBoard) as string[];
const REPORTS = Object.values(InboxReport) as string[];
const DAY = 86_400_000;

function ids(v: unknown, field: string): string[] | null {
  if (v === undefined || v === '') return null;
  const list = (Array.isArray(v) ? v : String(v).split(',')).map((x) => refId(String(x)));
  if (list.some((x) => !x)) throw AppError.validation([{ propertyPath: field, message: 'ids' }]);
  return list as string[];
}

function time(v: unknown, field: string, def: Date): Date {
  if (v === undefined || v === '') return def;
  const d = new Date(String(v));
  if (Number.isNaN(d.getTime())) throw AppError.validation([{ propertyPath: field, message: 'a date (ISO 8601)' }]);
  return d;
}

/**
 * The statistics boards (spec 3 Statistics, spec 7): space, team, agent and my reports over the conversations that
 * started between `start` and `end` (default the last 30 days) and the messages of that time, narrowed by `teams[]`
 * and `agents[]`. Space and team boards need INBOX_STATISTICS, agent boards INBOX_AGENT_STATISTICS; my_reports are an
 * agent's own. Costs are what streams charged for the inbox's sends, in currency units.
 */
@Injectable()
export class ReportsService {
  constructor(
    @InjectDataSource(INBOX_CONNECTION) private readonly ds: DataSource,
    private readonly access: InboxAccess,
  ) {}

  async report(board: string, spaceRef: string, entity: string | null, report: string, q: Q): Promise<unknown> {
    const actor = actorOf();
    if (!BOARDS.includes(board)) throw AppError.notFound('board');
    if (!REPORTS.includes(report)) throw AppError.notFound('report');
    const scope = await this.access.scope(refId(spaceRef), actor);
    const b = board as InboxBoardValue;
    if ((b === InboxBoard.Space || b === InboxBoard.Team) && !can(scope, Permission.InboxStatistics)) throw AppError.forbidden(`missing permission: ${Permission.InboxStatistics}`);
    if (b === InboxBoard.Agent && !can(scope, Permission.InboxAgentStatistics)) throw AppError.forbidden(`missing permission: ${Permission.InboxAgentStatistics}`);
    const end = time(q.end, 'end', new Date());
    const start = time(q.start, 'start', new Date(end.getTime() - 30 * DAY));
    if (start >= end || end.getTime() - start.getTime() > 400 * DAY) throw AppError.validation([{ propertyPath: 'start', message: 'before end, at most 400 days' }]);

    const params: unknown[] = [actor.accountId, scope.spaceId, start, end];
    const where = ['c.account_id = $1', 'c.space_id = $2', 'c.start_time >= $3', 'c.start_time < $4'];
    const add = (cond: (n: number) => string, v: unknown) => {
      params.push(v);
      where.push(cond(params.length));
    };
    if (b === InboxBoard.Team) {
      const team = entity ? refId(entity) : null;
      if (!team) throw AppError.validation([{ propertyPath: 'team', message: 'the team of the board' }]);
      add((n) => `c.team_ids @> ARRAY[$${n}::bigint]`, team);
    } else if (b === InboxBoard.Agent) {
      const agent = entity ? refId(entity) : null;
      if (!agent) throw AppError.validation([{ propertyPath: 'agent', message: 'the agent of the board' }]);
      add((n) => `c.agent_ids @> ARRAY[$${n}::bigint]`, agent);
    } else if (b === InboxBoard.My) {
      add((n) => `c.agent_ids @> ARRAY[$${n}::bigint]`, actor.userId ?? '0');
    }
    const teams = ids(q['teams[]'] ?? q.teams, 'teams');
    const agents = ids(q['agents[]'] ?? q.agents, 'agents');
    if (teams) add((n) => `c.team_ids && $${n}::bigint[]`, teams);
    if (agents) add((n) => `c.agent_ids && $${n}::bigint[]`, agents);
    const conv = `SELECT c.* FROM inbox.conversation c WHERE ${where.join(' AND ')}`;
    // per conversation: messages of the period, what they cost, whether and how fast an agent answered
    const facts = `
      WITH conv AS (${conv}),
      f AS (
        SELECT conv.id, conv.status, conv.stream_id, conv.team_ids, conv.agent_ids, conv.tag_ids,
          count(*) FILTER (WHERE e.event_type = 'incoming_message') AS incoming,
          count(*) FILTER (WHERE e.event_type = 'outgoing_message') AS outbound,
          COALESCE(sum(e.price_micros) FILTER (WHERE e.event_type = 'outgoing_message'), 0) AS cost,
          min(e.message_time) FILTER (WHERE e.event_type = 'incoming_message') AS first_in,
          min(e.message_time) FILTER (WHERE e.event_type = 'outgoing_message') AS first_out
        FROM conv LEFT JOIN inbox.event e ON e.conversation_id = conv.id AND e.message_time >= $3 AND e.message_time < $4
        GROUP BY conv.id, conv.status, conv.stream_id, conv.team_ids, conv.agent_ids, conv.tag_ids
      )`;
    const rate = `COALESCE(round(100.0 * count(*) FILTER (WHERE f.first_in IS NOT NULL AND f.first_out > f.first_in) / NULLIF(count(*) FILTER (WHERE f.first_in IS NOT NULL), 0), 2), 0)::float`;
    const median = `(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM f.first_out - f.first_in)) FILTER (WHERE f.first_out > f.first_in))::float`;
    const money = (micros: unknown) => Number(micros ?? 0) / 1_000_000;
    const run = (sql: string) => this.ds.query(sql, params) as Promise<Row[]>;

    switch (report as InboxReportValue) {
      case InboxReport.Counters: {
        const [r] = await run(`${facts} SELECT count(*)::int AS conversations, COALESCE(sum(cost), 0)::text AS cost, ${rate} AS response_rate, COALESCE(sum(outbound), 0)::int AS outbound, COALESCE(sum(incoming), 0)::int AS incoming FROM f`);
        return { conversations: r.conversations, cost: money(r.cost), response_rate: r.response_rate, outbound: r.outbound, incoming: r.incoming };
      }
      case InboxReport.Messages: {
        const rows = await run(
          `WITH conv AS (${conv}) SELECT to_char(date_trunc('day', e.message_time AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS date,
             count(*) FILTER (WHERE e.event_type = 'incoming_message')::int AS incoming, count(*) FILTER (WHERE e.event_type = 'outgoing_message')::int AS outbound
           FROM conv JOIN inbox.event e ON e.conversation_id = conv.id AND e.message_time >= $3 AND e.message_time < $4 AND e.event_type IN ('incoming_message', 'outgoing_message')
           GROUP BY 1 ORDER BY 1`,
        );
        return { items: rows };
      }
      case InboxReport.ConversationsPerStatus:
        return { items: await run(`WITH conv AS (${conv}) SELECT status AS conversation_status, count(*)::int AS items FROM conv GROUP BY status ORDER BY status`) };
      case InboxReport.ConversationsPerChannel:
      case InboxReport.CostPerChannel: {
        const rows = await run(
          `${facts} SELECT s.stream_uid::text AS stream_uuid, s.name AS stream_name, s.stream_type, count(*)::int AS items, ${rate} AS response_rate, COALESCE(sum(f.cost), 0)::text AS total_cost
           FROM f JOIN inbox.stream s ON s.stream_id = f.stream_id GROUP BY s.stream_uid, s.name, s.stream_type ORDER BY items DESC, stream_name`,
        );
        return { items: rows.map((r) => ({ ...r, total_cost: money(r.total_cost) })) };
      }
      case InboxReport.ConversionStatusesPerChannel:
        return {
          items: await run(
            `WITH conv AS (${conv}) SELECT s.stream_uid::text AS stream_uuid, s.name AS stream_name, s.stream_type, conv.status AS conversation_status, count(*)::int AS items
             FROM conv JOIN inbox.stream s ON s.stream_id = conv.stream_id GROUP BY 1, 2, 3, 4 ORDER BY 2, 4`,
          ),
        };
      case InboxReport.ConversionStatusesPerTag:
        return {
          items: await run(
            `WITH conv AS (${conv}) SELECT t.id::int AS tag, t.name AS tag_name, conv.status AS conversation_status, count(*)::int AS items
             FROM conv CROSS JOIN LATERAL unnest(conv.tag_ids) tag_id JOIN inbox.conversation_tag t ON t.id = tag_id GROUP BY 1, 2, 3 ORDER BY 2, 3`,
          ),
        };
      case InboxReport.TeamsPerformanceConversionsSummary:
        return {
          items: await run(
            `${facts} SELECT t.id::int AS team, t.name AS team_name, count(*)::int AS conversations,
               count(*) FILTER (WHERE f.status = 'active')::int AS active, count(*) FILTER (WHERE f.status = 'unanswered')::int AS unanswered,
               count(*) FILTER (WHERE f.status = 'closed')::int AS closed, ${rate} AS response_rate, ${median} AS median_response_seconds
             FROM f CROSS JOIN LATERAL unnest(f.team_ids) team_id JOIN inbox.team t ON t.id = team_id GROUP BY t.id, t.name ORDER BY t.name`,
          ),
        };
      case InboxReport.AgentsPerformanceSummary:
        return {
          items: await run(
            `${facts} SELECT a.user_id::int AS agent, trim(a.first_name || ' ' || a.last_name) AS agent_name, count(*)::int AS conversations,
               count(*) FILTER (WHERE f.status = 'closed')::int AS closed, COALESCE(sum(f.outbound), 0)::int AS outbound, ${rate} AS response_rate, ${median} AS median_response_seconds
             FROM f CROSS JOIN LATERAL unnest(f.agent_ids) agent_id JOIN inbox.agent a ON a.account_id = $1 AND a.user_id = agent_id GROUP BY a.user_id, a.first_name, a.last_name ORDER BY 2`,
          ),
        };
    }
    throw AppError.notFound('report');
  }
}
