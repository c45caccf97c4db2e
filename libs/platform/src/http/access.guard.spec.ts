import { Body, Controller, Get, Injectable, Module, Post, Req } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { IsString } from 'class-validator';
import type { Request } from 'express';
import request from 'supertest';
import type { EventEnvelope, RealtimeMessage } from '@switchboard/contracts';
import { generateSigningKeys, TokenSigner, TokenVerifier, type AccessClaims } from '../auth/tokens';
import { EventBus, type SubscribeOptions } from '../bus/event-bus';
import { RequestContext, type Principal } from '../context/request-context';
import { Mailer, type MailMessage } from '../mail/mailer';
import { PlatformModule } from '../module/platform.module';
import { RealtimeFanout, type RealtimeListener } from '../realtime/realtime';
import { Authenticated, CurrentPrincipal, Permissions, Public, QueryToken, SuperAdmin } from './decorators';
import { configureHttpApp, listRoutes, trustProxySetting, type HttpAppOptions } from './http-app';

/* Minimal local drivers: the in-memory ones are written elsewhere. */
class StubBus extends EventBus {
  calls: string[] = [];
  async publish(_events: EventEnvelope[]): Promise<void> {}
  async subscribe(_o: SubscribeOptions): Promise<void> {}
  async start(): Promise<void> {
    this.calls.push('start');
  }
  async stop(): Promise<void> {
    this.calls.push('stop');
  }
}
class StubRealtime extends RealtimeFanout {
  closed = false;
  async publish(_s: string, _m: Omit<RealtimeMessage, 'id' | 'subject' | 'at'>): Promise<void> {}
  async subscribe(_p: string, _l: RealtimeListener): Promise<() => Promise<void>> {
    return async () => undefined;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}
class StubMailer extends Mailer {
  async send(_m: MailMessage): Promise<void> {}
}

/** A service reading the caller from the request context, across an await, as tenant repositories do. */
@Injectable()
class WhoAmIService {
  async describe(): Promise<{ userId: string | null; accountId: string; traceId: string | undefined }> {
    await new Promise((r) => setImmediate(r));
    return { userId: RequestContext.principal()?.userId ?? null, accountId: RequestContext.accountId(), traceId: RequestContext.current()?.traceId };
  }
}

class NoteDto {
  @IsString()
  text!: string;
}

@Controller('probe')
class ProbeController {
  constructor(private readonly who: WhoAmIService) {}

  @Get('forgotten')
  forgotten(): string {
    return 'this must never answer';
  }

  @Public()
  @Get('public')
  open(): { caller: string | null } {
    return { caller: RequestContext.principal()?.userId ?? null };
  }

  @Authenticated()
  @Get('me')
  me(@CurrentPrincipal() p: Principal): Principal {
    return p;
  }

  /** A download a browser opens by link: no header can be sent. */
  @Authenticated()
  @QueryToken()
  @Get('download')
  download(@CurrentPrincipal() p: Principal): { userId: string | null } {
    return { userId: p.userId };
  }

  @Authenticated({ accountRequired: true })
  @Get('account')
  account(): { ok: true } {
    return { ok: true };
  }

  @Permissions('STREAM_VIEW', 'STREAM_EDIT')
  @Get('streams')
  async streams(): Promise<unknown> {
    return this.who.describe();
  }

  @Permissions('INBOX_VIEW')
  @Post('notes')
  async note(@Body() dto: NoteDto): Promise<unknown> {
    return { text: dto.text, ...(await this.who.describe()) };
  }

  @SuperAdmin()
  @Get('admin')
  admin(): { ok: true } {
    return { ok: true };
  }

  @Public()
  @Get('ip')
  ip(@Req() req: Request): { ip: string | undefined; contextIp: string | null | undefined } {
    return { ip: req.ip, contextIp: RequestContext.current()?.ip };
  }
}

@Authenticated()
@Controller(['scoped', 'alias'])
class ClassRuleController {
  @Get()
  list(): { ok: true } {
    return { ok: true };
  }

  @Public()
  @Get('health')
  health(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [ProbeController, ClassRuleController], providers: [WhoAmIService] })
class ProbeModule {}

const keys = generateSigningKeys();
const signer = new TokenSigner(keys.privateKey);
const token = (c: Partial<Omit<AccessClaims, 'typ'>> = {}): string =>
  signer.signAccess({ sub: 'u1', email: 'u1@test.local', acc: '10', perms: [], roles: [], sa: false, sid: 's1', ...c }, 300);

async function boot(http: HttpAppOptions = {}) {
  const bus = new StubBus();
  const realtime = new StubRealtime();
  const ref = await Test.createTestingModule({
    imports: [
      PlatformModule.forRoot({ bus, realtime, mailer: new StubMailer(), verifier: new TokenVerifier(keys.publicKey), databaseUrl: 'postgres://unused', processName: 'test' }),
      ProbeModule,
    ],
  }).compile();
  const app = ref.createNestApplication<NestExpressApplication>({ logger: false });
  configureHttpApp(app, http);
  await app.init();
  return { app, bus, realtime };
}

describe('access guard and decorators', () => {
  let app: NestExpressApplication;
  let bus: StubBus;
  const get = (path: string, t?: string) => {
    const r = request(app.getHttpServer()).get(path);
    return t ? r.set('authorization', `Bearer ${t}`) : r;
  };

  beforeAll(async () => {
    ({ app, bus } = await boot());
  });
  afterAll(() => app.close());

  it('refuses a route that declares no access rule with 500, even for a super admin', async () => {
    const res = await get('/api/probe/forgotten', token({ sa: true })).expect(500);
    expect(res.body).toEqual({ code: '0x0', status: 500, message: 'route declares no access rule' });
    expect(res.text).not.toContain('never answer');
  });

  it('opens @Public routes to anyone, and still knows a caller with a valid token', async () => {
    expect((await get('/api/probe/public').expect(200)).body).toEqual({ caller: null });
    expect((await get('/api/probe/public', token()).expect(200)).body).toEqual({ caller: 'u1' });
    expect((await get('/api/probe/public', 'garbage').expect(200)).body).toEqual({ caller: null });
  });

  it('requires a token on @Authenticated routes: 401 0x11 without, 401 0x14 with a bad one', async () => {
    expect((await get('/api/probe/me').expect(401)).body).toEqual({ code: '0x11', status: 401, message: 'missing token' });
    expect((await get('/api/probe/me', 'not-a-jwt').expect(401)).body).toMatchObject({ code: '0x14', status: 401 });
    const stranger = new TokenSigner(generateSigningKeys().privateKey).signAccess({ sub: 'x', email: 'x@x', acc: null, perms: [], roles: [], sa: false, sid: 's' }, 60);
    expect((await get('/api/probe/me', stranger).expect(401)).body).toMatchObject({ code: '0x14' });
    const me = await get('/api/probe/me', token({ acc: null, roles: ['ROLE_USER'] })).expect(200);
    expect(me.body).toMatchObject({ kind: 'user', userId: 'u1', email: 'u1@test.local', accountId: null, roles: ['ROLE_USER'], superAdmin: false });
  });

  it('refuses a token in the URL of an ordinary GET with 401: only a header opens it', async () => {
    const res = await request(app.getHttpServer()).get(`/api/probe/me?access_token=${token()}`).expect(401);
    expect(res.body.code).toBe('0x11');
    await get('/api/probe/me', token()).expect(200);
  });

  it('takes access_token on a route marked @QueryToken() (downloads), when no Authorization header is sent', async () => {
    expect((await request(app.getHttpServer()).get(`/api/probe/download?access_token=${token()}`).expect(200)).body).toEqual({ userId: 'u1' });
    await request(app.getHttpServer()).get('/api/probe/download?access_token=not-a-token').expect(401);
  });

  it('ignores access_token in the URL of a state-changing request', async () => {
    const t = token({ perms: ['INBOX_VIEW'] });
    const res = await request(app.getHttpServer()).post(`/api/probe/notes?access_token=${t}`).send({ text: 'hi' }).expect(401);
    expect(res.body.code).toBe('0x11');
  });

  it('refuses an account-only route when no account is selected', async () => {
    expect((await get('/api/probe/account', token({ acc: null })).expect(403)).body).toMatchObject({ code: 'ACCESS_DENIED', status: 403 });
    await get('/api/probe/account', token()).expect(200);
  });

  it('refuses @Permissions(A, B) unless the caller holds both', async () => {
    expect((await get('/api/probe/streams').expect(401)).body.code).toBe('0x11');
    for (const perms of [[], ['STREAM_VIEW'], ['STREAM_EDIT'], ['STREAM_VIEW_ALL', 'INBOX_VIEW']]) {
      const res = await get('/api/probe/streams', token({ perms })).expect(403);
      expect(res.body).toMatchObject({ code: 'NO_PERMISSIONS', status: 403 });
    }
    await get('/api/probe/streams', token({ perms: ['STREAM_EDIT', 'STREAM_VIEW', 'INBOX_VIEW'] })).expect(200);
  });

  it('lets a super admin through permission checks without the strings', async () => {
    await get('/api/probe/streams', token({ sa: true, perms: [] })).expect(200);
  });

  it('refuses a permission route with no account selected (403), even with the permissions', async () => {
    const res = await get('/api/probe/streams', token({ acc: null, perms: ['STREAM_VIEW', 'STREAM_EDIT'] })).expect(403);
    expect(res.body).toMatchObject({ code: 'ACCESS_DENIED', status: 403 });
  });

  it('opens @SuperAdmin routes to super admins only', async () => {
    expect((await get('/api/probe/admin', token({ perms: ['STREAM_VIEW'] })).expect(403)).body.code).toBe('NO_PERMISSIONS');
    await get('/api/probe/admin', token({ sa: true })).expect(200);
  });

  it('applies a class rule to its routes, and lets a method rule override it', async () => {
    await get('/api/scoped').expect(401);
    await get('/api/alias').expect(401);
    await get('/api/scoped', token()).expect(200);
    await get('/api/scoped/health').expect(200);
  });

  it('carries the principal and account into service code through the request context', async () => {
    const res = await get('/api/probe/streams', token({ sub: 'u7', acc: '99', perms: ['STREAM_VIEW', 'STREAM_EDIT'] }))
      .set('x-request-id', 'trace-abcdefgh')
      .expect(200);
    expect(res.body).toEqual({ userId: 'u7', accountId: '99', traceId: 'trace-abcdefgh' });
  });

  it('keeps the request context on JSON and form bodies', async () => {
    const t = token({ sub: 'u8', acc: '5', perms: ['INBOX_VIEW'] });
    const json = await request(app.getHttpServer()).post('/api/probe/notes').set('authorization', `Bearer ${t}`).send({ text: 'hi' }).expect(201);
    expect(json.body).toMatchObject({ text: 'hi', userId: 'u8', accountId: '5' });
    const form = await request(app.getHttpServer()).post('/api/probe/notes').set('authorization', `Bearer ${t}`).type('form').send('text=hello').expect(201);
    expect(form.body).toMatchObject({ text: 'hello', userId: 'u8', accountId: '5' });
  });

  it('validates the body only after access is granted (bad input from a stranger is a 401, not a 400)', async () => {
    await request(app.getHttpServer()).post('/api/probe/notes').send({ nope: 1 }).expect(401);
  });

  it('lists every route with its rule', () => {
    const routes = listRoutes(app).map((r) => ({ method: r.method, path: r.path, rule: r.rule }));
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/probe/forgotten', rule: undefined },
        { method: 'GET', path: '/probe/public', rule: { kind: 'public' } },
        { method: 'GET', path: '/probe/me', rule: { kind: 'authenticated', accountRequired: false } },
        { method: 'GET', path: '/probe/account', rule: { kind: 'authenticated', accountRequired: true } },
        { method: 'GET', path: '/probe/streams', rule: { kind: 'permissions', permissions: ['STREAM_VIEW', 'STREAM_EDIT'] } },
        { method: 'POST', path: '/probe/notes', rule: { kind: 'permissions', permissions: ['INBOX_VIEW'] } },
        { method: 'GET', path: '/probe/admin', rule: { kind: 'superAdmin' } },
        { method: 'GET', path: '/scoped', rule: { kind: 'authenticated', accountRequired: false } },
        { method: 'GET', path: '/alias', rule: { kind: 'authenticated', accountRequired: false } },
        { method: 'GET', path: '/scoped/health', rule: { kind: 'public' } },
      ]),
    );
    expect(routes).toHaveLength(13);
    expect(routes.filter((r) => !r.rule)).toEqual([{ method: 'GET', path: '/probe/forgotten', rule: undefined }]);
  });

  it('refuses @Permissions() with no permission at declaration time', () => {
    expect(() => Permissions()).toThrow(/at least one permission/);
  });

  it('starts the bus when the application boots', () => {
    expect(bus.calls).toEqual(['start']);
  });
});

describe('client address', () => {
  it('ignores X-Forwarded-For when no proxy is trusted (the default)', async () => {
    const { app } = await boot();
    try {
      const res = await request(app.getHttpServer()).get('/api/probe/ip').set('x-forwarded-for', '203.0.113.9').expect(200);
      expect(res.body.ip).not.toBe('203.0.113.9');
      expect(res.body.ip).toMatch(/127\.0\.0\.1|::1/);
      expect(res.body.contextIp).toBe(res.body.ip);
    } finally {
      await app.close();
    }
  });

  it('honours X-Forwarded-For from a trusted proxy (loopback)', async () => {
    const { app } = await boot({ trustProxy: 'loopback' });
    try {
      const res = await request(app.getHttpServer()).get('/api/probe/ip').set('x-forwarded-for', '198.51.100.1, 203.0.113.9').expect(200);
      expect(res.body).toEqual({ ip: '203.0.113.9', contextIp: '203.0.113.9' });
    } finally {
      await app.close();
    }
  });

  it('reads the trust-proxy setting from env strings and refuses to trust every hop', () => {
    expect(trustProxySetting(undefined)).toBe(false);
    expect(trustProxySetting('false')).toBe(false);
    expect(trustProxySetting('')).toBe(false);
    expect(trustProxySetting('0')).toBe(false);
    expect(trustProxySetting('loopback, 10.0.0.0/8')).toBe('loopback, 10.0.0.0/8');
    expect(trustProxySetting(' 172.30.0.10 ,fd00::/8, 10.0.0.0/255.0.0.0')).toBe('172.30.0.10, fd00::/8, 10.0.0.0/255.0.0.0');
    // a hop count trusts whoever connects: refused, like `true`
    expect(() => trustProxySetting('1')).toThrow(/hop count/);
    expect(() => trustProxySetting(2)).toThrow(/hop count/);
    expect(() => trustProxySetting('gateway')).toThrow(/not an IP address/);
    expect(() => trustProxySetting('10.0.0.0/33')).toThrow(/not an IP address/);
    expect(() => trustProxySetting('true')).toThrow(/every hop/);
    expect(() => trustProxySetting(true)).toThrow(/every hop/);
  });
});

describe('platform module lifecycle', () => {
  it('stops the bus and closes realtime on shutdown', async () => {
    const { app, bus, realtime } = await boot();
    await app.close();
    expect(bus.calls).toEqual(['start', 'stop']);
    expect(realtime.closed).toBe(true);
  });
});
