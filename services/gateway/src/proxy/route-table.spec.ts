import { parseGatewayRoutes, serviceForPath } from './route-table';

describe('gateway route table', () => {
  it('routes by the first segment under /api', () => {
    expect(serviceForPath('/api/users/connected')).toBe('auth');
    expect(serviceForPath('/api/login_check')).toBe('auth');
    expect(serviceForPath('/api/login-as')).toBe('auth');
    expect(serviceForPath('/api/dead_letters/dispatch-1/replay')).toBe('dispatch');
    expect(serviceForPath('/api/campaigns/1')).toBe('campaigns');
    expect(serviceForPath('/api/campaign/stream_events')).toBe('campaigns');
    expect(serviceForPath('/api/constructor')).toBeNull();
    expect(serviceForPath('/users')).toBeNull();
  });

  it('lets a two-segment entry win over its first segment', () => {
    expect(serviceForPath('/api/message_responses/send')).toBe('streams');
    expect(serviceForPath('/api/message_responses/chat?destination=1')).toBe('dispatch');
    expect(serviceForPath('/api/message_responses')).toBe('dispatch');
    // the campaign wizard's add domain is the links service's; the rest of /campaigns stays with campaigns
    expect(serviceForPath('/api/campaigns/add/domain')).toBe('links');
    expect(serviceForPath('/api/campaigns/12/start')).toBe('campaigns');
  });

  it('sends the AI calls under /api/inbox to integrations and keeps the goals and the conversation context with the inbox', () => {
    for (const p of ['/api/inbox/rephrase', '/api/inbox/generate_message', '/api/inbox/respond/3f1c2b7e-8f7a-4a55-9d6c-0a4c6b2f9e11', '/api/inbox/spintax', '/api/genai/settings/', '/api/genai/verify/openai/sk-x', '/api/genai/usage']) {
      expect([p, serviceForPath(p)]).toEqual([p, 'integrations']);
    }
    for (const p of ['/api/genai/team_goals/', '/api/genai/team_goals?space=1', '/api/inbox/ai_context/3f1c2b7e-8f7a-4a55-9d6c-0a4c6b2f9e11', '/api/inbox/conversations']) {
      expect([p, serviceForPath(p)]).toEqual([p, 'inbox']);
    }
  });

  it('parses GATEWAY_ROUTES and refuses malformed entries', () => {
    expect(parseGatewayRoutes('auth=http://auth:3001, accounts=http://accounts:3002/')).toEqual({
      auth: 'http://auth:3001',
      accounts: 'http://accounts:3002',
    });
    expect(parseGatewayRoutes('')).toEqual({});
    expect(() => parseGatewayRoutes('auth')).toThrow(/service=url/);
    expect(() => parseGatewayRoutes('auth=not a url')).toThrow(/invalid URL/);
    expect(() => parseGatewayRoutes('auth=ftp://x')).toThrow(/http/);
    // several replicas of one service
    expect(parseGatewayRoutes('dispatch=http://d1:3006/|http://d2:3006 auth=http://auth:3001')).toEqual({ dispatch: 'http://d1:3006|http://d2:3006', auth: 'http://auth:3001' });
    expect(() => parseGatewayRoutes('dispatch=http://d1:3006|nope')).toThrow(/invalid URL/);
    expect(() => parseGatewayRoutes('dispatch=http://d1:3006|http://d1:3006')).toThrow(/twice/);
  });
});
