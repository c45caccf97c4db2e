/**
 * Distributed mode: which service owns `/api/<first path segment>`. A segment not listed here is 404 at the gateway.
 * Each service adds its resources here as it is split out; the embedded server needs none of this.
 */
export const GATEWAY_ROUTE_TABLE: Readonly<Record<string, string>> = Object.freeze({
  login_check: 'auth',
  login: 'auth',
  token_refresh: 'auth',
  logout: 'auth',
  users: 'auth',
  'login-as': 'auth',
  sso: 'auth',
  user_roles: 'auth',
  user_invites: 'auth',
  api_keys: 'auth',
  customers: 'accounts',
  daily_usage_and_limit: 'accounts',
  countries: 'accounts',
  timezones: 'accounts',
  variables: 'contacts',
  contacts_variables: 'contacts',
  import_lists: 'contacts',
  black_lists: 'contacts',
  contact_lists: 'contacts',
  contacts: 'contacts',
  tasks: 'contacts',
  task: 'contacts',
  streams: 'streams',
  stream: 'streams',
  senders: 'streams',
  malicious_keywords: 'streams',
  stream_events: 'streams',
  tech_provider: 'streams',
  // replies are stored by dispatch; sending one goes through the stream pipeline
  message_responses: 'dispatch',
  'message_responses/send': 'streams',
  service_type_manager: 'dispatch',
  channels: 'dispatch',
  dispatch: 'dispatch',
  // every service's dead letters, read over the shared database (docs/decisions/0022)
  dead_letters: 'dispatch',
  webhooks: 'webhooks',
  webhook_requests: 'webhooks',
  // reports from the rollups (docs/decisions/0028)
  dashboard_statistics: 'stats',
  // the stream pages' figures, from the rollups too (docs/decisions/0028, "Streams statistics")
  'streams/statistics': 'stats',
  'streams/subscribe': 'stats',
  // campaign, variant and domain reports from the events (docs/decisions/0046-campaign-reports.md)
  campaign_reports: 'stats',
  campaign_stats: 'stats',
  campaign_domain_statistics: 'stats',
  // message export files (docs/decisions/0046; the task list stays with contacts)
  message_exports: 'stats',
  // short links: domains, pools, offers (docs/decisions/0033-links-domains.md)
  domains: 'links',
  domain_pools: 'links',
  offers: 'links',
  // the campaign wizard's add domain (docs/decisions/0044): domains and pools are links' own
  'campaigns/add': 'links',
  // the shared inbox: conversations, organisation, media (docs/decisions/0035)
  inbox: 'inbox',
  spaces: 'inbox',
  teams: 'inbox',
  agents: 'inbox',
  conversation_tags: 'inbox',
  sender_profiles: 'inbox',
  canned_templates: 'inbox',
  conversation_goals: 'inbox',
  incoming_routings: 'inbox',
  // the goals belong to the inbox; the AI itself to integrations (docs/decisions/0041-generative-ai.md)
  'genai/team_goals': 'inbox',
  upload: 'inbox',
  stream_media: 'inbox',
  media_info: 'inbox',
  // campaigns, templates, word lists, tags, campaign variables and senders (docs/decisions/0031)
  campaigns: 'campaigns',
  campaign: 'campaigns',
  campaigns_variables: 'campaigns',
  campaigns_senders: 'campaigns',
  campaign_variants: 'campaigns',
  campaign_tags: 'campaigns',
  templates: 'campaigns',
  variants: 'campaigns',
  word_lists: 'campaigns',
  words: 'campaigns',
  // CRM and shop integrations (docs/decisions/0040-integrations.md); POST /import_lists/integration stays with contacts
  integration_keys: 'integrations',
  integration_config: 'integrations',
  // generative AI (docs/decisions/0041-generative-ai.md): settings, key check and usage, and the writing calls of the
  // inbox composer and the campaign message step; /api/inbox/ai_context stays with the inbox
  genai: 'integrations',
  'inbox/rephrase': 'integrations',
  'inbox/generate_message': 'integrations',
  'inbox/respond': 'integrations',
  'inbox/spintax': 'integrations',
});

/**
 * The service owning a path under /api, or null: `/api/users/connected?x=1` -> `auth`. A two-segment entry
 * (`message_responses/send`) wins over its first segment.
 */
export function serviceForPath(pathname: string, table: Readonly<Record<string, string>> = GATEWAY_ROUTE_TABLE): string | null {
  const m = /^\/api\/([^/?#]+)(?:\/([^/?#]+))?/.exec(pathname);
  if (!m) return null;
  const own = (key: string) => Object.prototype.hasOwnProperty.call(table, key);
  if (m[2] && own(`${m[1]}/${m[2]}`)) return table[`${m[1]}/${m[2]}`];
  return own(m[1]) ? table[m[1]] : null;
}

/**
 * `GATEWAY_ROUTES`: `auth=http://auth:3001,accounts=http://accounts:3002` (commas, semicolons or whitespace
 * between entries); a service with several replicas lists them with `|`: `dispatch=http://d1:3006|http://d2:3006`
 * (proxy/upstreams.ts). Throws on a malformed entry so a typo fails the boot instead of a request.
 */
export function parseGatewayRoutes(value: string | undefined): Record<string, string> {
  const routes: Record<string, string> = {};
  for (const entry of (value ?? '').split(/[,;\s]+/).filter(Boolean)) {
    const eq = entry.indexOf('=');
    const service = entry.slice(0, eq).trim();
    const bases = entry.slice(eq + 1).split('|').map((b) => b.trim());
    if (eq <= 0 || !/^[a-z][a-z0-9_-]*$/.test(service)) throw new Error(`GATEWAY_ROUTES: "${entry}" is not service=url`);
    const urls = bases.map((base) => {
      let url: URL;
      try {
        url = new URL(base);
      } catch {
        throw new Error(`GATEWAY_ROUTES: ${service} has an invalid URL "${base}"`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`GATEWAY_ROUTES: ${service} must use http or https`);
      if (url.search || url.hash) throw new Error(`GATEWAY_ROUTES: ${service} URL must not have a query or fragment`);
      return url.toString().replace(/\/$/, '');
    });
    if (new Set(urls).size !== urls.length) throw new Error(`GATEWAY_ROUTES: ${service} lists a replica twice`);
    routes[service] = urls.join('|');
  }
  return routes;
}
