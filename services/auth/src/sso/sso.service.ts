import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ErrorCode,
  SSO_REALTIME_ACCOUNT,
  SSO_REALTIME_TOPIC,
  SSO_TYPES,
  SessionRevocationReason,
  SessionRevokedV1,
  UserSignedInV1,
  realtimeSubject,
  type CompleteSsoData,
  type CrossdomainAuthAnswer,
  type SsoAccessRequest,
  type SsoAwaitAnswer,
  type SsoType,
} from '@switchboard/contracts';
import { AppError, RealtimeFanout, RequestContext, type Principal } from '@switchboard/platform';
import { AUTH_CONNECTION, AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import { ENTERING_STATUSES } from '../entities';
import { UserRepository } from '../repositories';
import { updatedRows } from '../repositories/sql';
import { normalizeIp } from '../rules/throttle-window';
import { AccessService } from '../services/access.service';
import { ActorService } from '../services/actor.service';
import { AuthUnitOfWork } from '../services/auth-events.service';
import { TokenService } from '../services/token.service';
import { ProviderError, ZohoOAuthClient } from './zoho-client';

export const PENDING_MESSAGE = 'Pending for access approval: an administrator of your Switchboard account approves Zoho Inbox sign-on for your address.';
/** Open flows one client address may hold at once (each is a row until it expires). */
const MAX_OPEN_FLOWS_PER_IP = 20;

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const secret = (): string => randomBytes(32).toString('base64url');
const KEY = /^[A-Za-z0-9_-]{43}$/;

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

interface FlowRow {
  id: string;
  provider: string;
  binding_hash: string;
  code_verifier: string;
  status: 'started' | 'success' | 'pending' | 'error' | 'redeemed';
  identity_id: string | null;
  message: string | null;
  claimed_by: string | null;
  expires_at: Date;
}

interface IdentityRow {
  id: string;
  status: 'pending' | 'approved' | 'rejected';
  user_id: string | null;
  account_id: string | null;
  email: string;
  email_verified: boolean;
  name: string;
  created_at: Date;
}

/**
 * Zoho Inbox single sign-on (spec 2, 4, 7; docs/decisions/0042). A flow is started by `POST /sso/crossdomain_auth`
 * and answered once over the gateway's socket. Its three secrets: the `cross_key` (the socket's handle), the binding
 * cookie (the browser that started it; the popup's callback and the socket must both carry it) and the OAuth `state`
 * (the popup's round trip), with a PKCE verifier for the code exchange. Only hashes of the first three are stored.
 * A Zoho user maps to exactly one member of one account, by an approval an admin of that account gives to Zoho's
 * verified email; until then the answer is "pending", and the session issued after never leaves that account.
 */
@Injectable()
export class SsoService {
  private readonly log = new Logger('ZohoSso');
  private readonly zoho: ZohoOAuthClient | null;

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    @InjectDataSource(AUTH_CONNECTION) private readonly ds: DataSource,
    private readonly users: UserRepository,
    private readonly access: AccessService,
    private readonly actors: ActorService,
    private readonly tokens: TokenService,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
    private readonly realtime: RealtimeFanout,
  ) {
    this.zoho = options.zoho ? new ZohoOAuthClient(options.zoho) : null;
  }

  /** POST /sso/crossdomain_auth. Returns the answer and the binding secret the controller sets as a cookie. */
  async start(type: unknown): Promise<{ answer: CrossdomainAuthAnswer; binding: string; maxAge: number }> {
    if (typeof type !== 'string' || !(SSO_TYPES as readonly string[]).includes(type)) {
      throw AppError.validation([{ propertyPath: 'type', message: `type must be one of: ${SSO_TYPES.join(', ')}` }]);
    }
    if (!this.zoho) {
      throw new AppError(503, ErrorCode.General, 'Zoho Inbox sign-on is not configured on this installation: set ZOHO_CLIENT_ID and ZOHO_CLIENT_SECRET (README, "Zoho Inbox sign-on")');
    }
    const ip = normalizeIp(RequestContext.current()?.ip);
    const now = this.clock.now();
    const ttl = this.options.ssoFlowTtlSeconds;
    if (ip) {
      const [{ n }] = await this.ds.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM auth.sso_flow WHERE ip = $1 AND expires_at > $2 AND status = 'started'`, [ip, now]);
      if (n >= MAX_OPEN_FLOWS_PER_IP) throw AppError.tooMany('too many sign-ons started from this address: finish or wait for one to expire');
    }
    const crossKey = secret();
    const binding = secret();
    const state = secret();
    const verifier = secret();
    const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
    const id = randomUUID();
    await this.ds.query(
      `INSERT INTO auth.sso_flow (id, provider, cross_key_hash, binding_hash, state_hash, code_verifier, created_at, expires_at, ip)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [id, type, sha256(crossKey), sha256(binding), sha256(state), verifier, now, new Date(now.getTime() + ttl * 1000), ip],
    );
    // a day after expiry a flow is only clutter
    await this.ds.query(`DELETE FROM auth.sso_flow WHERE expires_at < $1`, [new Date(now.getTime() - 24 * 3600 * 1000)]);
    return { answer: { success: true, url: this.zoho.authorizeUrl(state, challenge), cross_key: crossKey, expires_in: ttl }, binding, maxAge: ttl };
  }

  /**
   * GET /sso/zohoinbox/callback: the popup back from Zoho. The state is consumed first (a replayed callback finds
   * nothing), the browser must be the one that started the flow, then the code is exchanged with the PKCE verifier.
   * Whatever happens, the outcome is written to the flow and announced to the socket waiting on it.
   */
  async callback(q: { code?: unknown; state?: unknown; error?: unknown }, binding: string | null): Promise<'done' | 'unknown'> {
    const state = typeof q.state === 'string' && KEY.test(q.state) ? q.state : null;
    if (!state) return 'unknown';
    const now = this.clock.now();
    const rows = updatedRows<FlowRow>(
      await this.ds.query(
        `UPDATE auth.sso_flow SET state_hash = 'used:' || id::text WHERE state_hash = $1 AND status = 'started' RETURNING id, provider, binding_hash, code_verifier, status, expires_at`,
        [sha256(state)],
      ),
    );
    const flow = rows[0];
    if (!flow) return 'unknown';
    const outcome = await this.outcome(flow, q, binding, now);
    await this.ds.query(`UPDATE auth.sso_flow SET status = $2, identity_id = $3, message = $4, completed_at = $5 WHERE id = $1`, [flow.id, outcome.status, outcome.identityId, outcome.message, now]);
    await this.realtime
      .publish(realtimeSubject(SSO_REALTIME_ACCOUNT, SSO_REALTIME_TOPIC, flow.id), { accountId: SSO_REALTIME_ACCOUNT, topic: SSO_REALTIME_TOPIC, type: 'completed', data: { flow: flow.id } })
      .catch((e: unknown) => this.log.warn(`sso notify: ${String(e)}`));
    return 'done';
  }

  private async outcome(
    flow: FlowRow,
    q: { code?: unknown; error?: unknown },
    binding: string | null,
    now: Date,
  ): Promise<{ status: 'success' | 'pending' | 'error'; identityId: string | null; message: string | null }> {
    const fail = (message: string) => ({ status: 'error' as const, identityId: null, message });
    if (flow.expires_at.getTime() <= now.getTime()) return fail('this sign-on expired: start again');
    if (!binding || !sameHash(sha256(binding), flow.binding_hash)) return fail('this sign-on was started in another browser');
    if (typeof q.error === 'string') return fail(q.error === 'access_denied' ? 'access to Zoho was not granted' : 'Zoho refused the sign-on');
    if (typeof q.code !== 'string' || q.code.length === 0 || q.code.length > 2048) return fail('Zoho sent no authorisation code');
    if (!this.zoho) return fail('Zoho Inbox sign-on is not configured');
    let user;
    try {
      user = await this.zoho.user(await this.zoho.exchange(q.code, flow.code_verifier));
    } catch (e) {
      if (e instanceof ProviderError) return fail(e.message);
      throw e;
    }
    const [identity] = await this.ds.query<IdentityRow[]>(
      `INSERT INTO auth.sso_identity (provider, subject, email, email_verified, name, created_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (provider, subject) DO UPDATE SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified, name = EXCLUDED.name, last_seen_at = EXCLUDED.last_seen_at
       RETURNING id, status, user_id, account_id, email, email_verified, name, created_at`,
      [flow.provider, user.subject, user.email, user.emailVerified, user.name, now],
    );
    if (identity.status === 'rejected') return { status: 'error', identityId: identity.id, message: 'an administrator refused Zoho Inbox sign-on for this user' };
    if (identity.status !== 'approved') return { status: 'pending', identityId: identity.id, message: PENDING_MESSAGE };
    return { status: 'success', identityId: identity.id, message: null };
  }

  /**
   * POST /sso/crossdomain_auth/await, asked by the gateway's socket for the browser: the flow of `cross_key`, when the
   * binding cookie matches. The first socket claims the flow (`connection`); another is refused. A successful flow
   * is redeemed once: the session is started here, so tokens are never stored and never travel on the realtime bus.
   */
  async await(crossKey: unknown, connection: unknown, binding: string | null): Promise<SsoAwaitAnswer> {
    const notFound = AppError.notFound('sign-on');
    if (typeof crossKey !== 'string' || !KEY.test(crossKey) || typeof connection !== 'string' || !/^[A-Za-z0-9_-]{8,64}$/.test(connection)) throw notFound;
    if (!binding) throw notFound;
    return this.uow.run(async (m, emit) => {
      const [flow] = await m.query<FlowRow[]>(
        `SELECT id, provider, binding_hash, status, identity_id, message, claimed_by, expires_at FROM auth.sso_flow WHERE cross_key_hash = $1 FOR UPDATE`,
        [sha256(crossKey)],
      );
      // one answer for an unknown key and for another browser's key
      if (!flow || !sameHash(sha256(binding), flow.binding_hash)) throw notFound;
      if (flow.claimed_by && flow.claimed_by !== connection) throw AppError.conflict('this sign-on is already awaited elsewhere: start again');
      if (!flow.claimed_by) await m.query(`UPDATE auth.sso_flow SET claimed_by = $2 WHERE id = $1`, [flow.id, connection]);
      const now = this.clock.now();
      if (flow.status === 'redeemed') throw AppError.conflict('this sign-on was already used: start again');
      if (flow.status === 'started') {
        if (flow.expires_at.getTime() <= now.getTime()) return { state: 'done', flow: flow.id, data: { status: 'error', message: 'this sign-on expired: start again' } };
        return { state: 'waiting', flow: flow.id, expires_in: Math.ceil((flow.expires_at.getTime() - now.getTime()) / 1000) };
      }
      if (flow.status === 'pending') return { state: 'done', flow: flow.id, data: { status: 'pending', message: flow.message ?? PENDING_MESSAGE } };
      if (flow.status === 'error') return { state: 'done', flow: flow.id, data: { status: 'error', message: flow.message ?? 'Error occurred' } };
      await m.query(`UPDATE auth.sso_flow SET status = 'redeemed' WHERE id = $1`, [flow.id]);
      return { state: 'done', flow: flow.id, data: await this.signIn(m, emit, flow) };
    });
  }

  private async signIn(m: EntityManager, emit: Parameters<Parameters<AuthUnitOfWork['run']>[0]>[1], flow: FlowRow): Promise<CompleteSsoData> {
    const refused = (message: string): CompleteSsoData => ({ status: 'error', message });
    const [identity] = await m.query<IdentityRow[]>(`SELECT id, status, user_id, account_id FROM auth.sso_identity WHERE id = $1`, [flow.identity_id]);
    if (!identity || identity.status !== 'approved' || !identity.user_id || !identity.account_id) return refused('access is no longer approved');
    const user = await this.users.findById(identity.user_id, m);
    if (!user || !user.active) return refused('this user can no longer sign in');
    if (user.superAdmin) return refused('a super administrator cannot sign in through Zoho Inbox');
    const snap = await this.access.snapshot(user, identity.account_id, m);
    if (snap.accountId !== identity.account_id) return refused('this user can no longer work in the approved account');
    const session = await this.tokens.startSession(m, user, identity.account_id, null, true);
    emit(UserSignedInV1, { userId: user.id, accountId: session.accountId, familyId: session.familyId, ip: normalizeIp(RequestContext.current()?.ip) }, session.accountId);
    return { status: 'success', ...session.pair };
  }

  /**
   * GET /sso/access_requests: Zoho users whose verified email is that of a member of the caller's account, waiting
   * for approval, and those already approved into this account.
   */
  async listRequests(p: Principal): Promise<SsoAccessRequest[]> {
    const actor = await this.actors.resolve(p);
    const rows = await this.ds.query<Array<IdentityRow & { provider: SsoType; member_id: string; member_email: string }>>(
      `SELECT i.id, i.provider, i.status, i.email, i.name, i.created_at, u.id AS member_id, u.email AS member_email
         FROM auth.sso_identity i
         JOIN auth.app_user u ON (i.status = 'approved' AND u.id = i.user_id) OR (i.status = 'pending' AND i.email_verified AND u.email = i.email)
         JOIN auth.membership ms ON ms.user_id = u.id AND ms.account_id = $1 AND ms.status = ANY($2)
        WHERE (i.status = 'pending' OR i.account_id = $1)
        ORDER BY i.created_at DESC, i.id DESC
        LIMIT 500`,
      [actor.accountId, ENTERING_STATUSES],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      type: r.provider,
      email: r.email,
      name: r.name,
      user: { id: Number(r.member_id), email: r.member_email },
      status: r.status,
      createdAt: new Date(r.created_at).toISOString(),
    }));
  }

  /**
   * POST /sso/access_requests/{id}/approve: maps the Zoho identity to the member of the caller's account holding its
   * verified email. Exclusive: an identity maps to one member of one account, a member from one identity. The
   * approver must hold every permission the member has (approving hands them out), and never to a super admin.
   */
  async approve(p: Principal, id: string): Promise<SsoAccessRequest> {
    const actor = await this.actors.resolve(p);
    await this.uow.run(async (m) => {
      const [identity] = await m.query<IdentityRow[]>(`SELECT id, status, email, email_verified FROM auth.sso_identity WHERE id = $1 FOR UPDATE`, [id]);
      if (!identity || identity.status !== 'pending' || !identity.email_verified || !identity.email) throw AppError.notFound('access request');
      const user = await this.users.findByEmail(identity.email, m);
      const snap = user ? await this.access.snapshot(user, actor.accountId, m) : null;
      if (!user || !snap || snap.accountId !== actor.accountId || user.superAdmin) throw AppError.notFound('access request');
      this.actors.assertCanGrant(actor, snap.permissions, 'approve sign-on for a member');
      const [taken] = await m.query<Array<{ id: string }>>(`SELECT id FROM auth.sso_identity WHERE provider = (SELECT provider FROM auth.sso_identity WHERE id = $1) AND user_id = $2 AND status = 'approved'`, [id, user.id]);
      if (taken) throw AppError.conflict('this member already signs in with another Zoho user');
      await m.query(`UPDATE auth.sso_identity SET status = 'approved', user_id = $2, account_id = $3, decided_by = $4, decided_at = $5 WHERE id = $1`, [id, user.id, actor.accountId, actor.userId, this.clock.now()]);
    });
    return this.found(p, id);
  }

  /** POST /sso/access_requests/{id}/reject: a pending request of this account, or an approval this account gave. */
  async reject(p: Principal, id: string): Promise<SsoAccessRequest> {
    const actor = await this.actors.resolve(p);
    const visible = (await this.listRequests(p)).find((r) => String(r.id) === id);
    if (!visible) throw AppError.notFound('access request');
    const now = this.clock.now();
    await this.uow.run(async (m, emit) => {
      await m.query(`UPDATE auth.sso_identity SET status = 'rejected', user_id = NULL, account_id = NULL, decided_by = $2, decided_at = $3 WHERE id = $1`, [id, actor.userId, now]);
      if (visible.status !== 'approved') return;
      // the sign-on sessions this approval opened end now (the member's own password sessions go on)
      const ended = updatedRows<{ id: string }>(
        await m.query(
          `UPDATE auth.session_family SET revoked_at = $3, revoked_reason = $4 WHERE user_id = $1 AND grant_account_id = $2 AND impersonator_id IS NULL AND revoked_at IS NULL RETURNING id`,
          [String(visible.user.id), actor.accountId, now, SessionRevocationReason.Admin],
        ),
      );
      for (const f of ended) emit(SessionRevokedV1, { familyId: f.id, userId: String(visible.user.id), reason: SessionRevocationReason.Admin }, actor.accountId);
    });
    return { ...visible, status: 'rejected' };
  }

  private async found(p: Principal, id: string): Promise<SsoAccessRequest> {
    const r = (await this.listRequests(p)).find((x) => String(x.id) === id);
    if (!r) throw AppError.notFound('access request');
    return r;
  }
}
