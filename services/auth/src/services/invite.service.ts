import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ErrorCode, type Violation } from '@switchboard/contracts';
import { AppError, Mailer, parseListQuery, type ListResult, type Principal } from '@switchboard/platform';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';
import { Clock } from '../clock';
import { InviteStatus, MembershipStatus, type AccountEntity, type InviteEntity, type InviteStatusValue, type UserEntity } from '../entities';
import { AccountRepository, InviteRepository, MembershipRepository, RoleRepository, UserRepository } from '../repositories';
import { normalizeEmail } from '../rules/email';
import { passwordViolations } from '../rules/password-policy';
import { newSecret, sameDigest, sha256Hex } from '../rules/secrets';
import { ActorService, type Actor } from './actor.service';
import { AuthUnitOfWork, type Emit } from './auth-events.service';
import { MemberEvents } from './member-events.service';
import { PasswordService } from './password.service';
import { pairPermissions, resolveRolePair, type RolePair } from './role-assignment';
import { TeamNotifier } from './team-notifier.service';
import { statusWithRoles } from './team.service';
import type { InviteDto, InviteLink, InviteCheckDto, InviteAcceptedDto } from '@switchboard/contracts';

export type { InviteDto, InviteLink, InviteCheckDto, InviteAcceptedDto };



/** Spec 4: check answers an action, 1 for a new user (goes to /registration), 2 for a registered user (signs in, then accepts). */
export const InviteAction = { NewUser: 1, RegisteredUser: 2 } as const;



const INVITE_INVALID = 'this invite does not exist or is no longer valid';

/**
 * Invites (spec 3 and 4): an email with a single-use link `/team-member-invite/:customerID/:inviteID/:inviteToken`
 * that expires after 7 days. Only the SHA-256 of the token is stored. A new user registers through it; a
 * registered user signs in and accepts it. Either way they join with the invite's roles.
 */
@Injectable()
export class InviteService {
  private readonly logger = new Logger('auth');

  constructor(
    @Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions,
    @Inject(Mailer) private readonly mailer: Mailer,
    private readonly invites: InviteRepository,
    private readonly roles: RoleRepository,
    private readonly users: UserRepository,
    private readonly accounts: AccountRepository,
    private readonly memberships: MembershipRepository,
    private readonly passwords: PasswordService,
    private readonly actors: ActorService,
    private readonly memberEvents: MemberEvents,
    private readonly notifier: TeamNotifier,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async list(p: Principal, query: Record<string, unknown>): Promise<ListResult<InviteDto>> {
    const actor = await this.actors.resolve(p);
    const { status: rawStatus, ...rest } = query;
    const q = parseListQuery(rest, { sortable: ['id', 'email', 'createdAt'], defaultItemsPerPage: 500 });
    let status: InviteStatusValue | undefined;
    if (rawStatus !== undefined) {
      if (rawStatus !== '1' && rawStatus !== '2') throw AppError.validation([{ propertyPath: 'status', message: 'must be 1 (pending) or 2 (accepted)', code: 'status' }]);
      status = Number(rawStatus) as InviteStatusValue;
    }
    const [rows, total] = await this.invites.list(actor.accountId, { status, skip: q.skip, take: q.take, order: q.order });
    return { items: rows.map((r) => this.toDto(r)), total };
  }

  async get(p: Principal, id: string): Promise<InviteDto> {
    const actor = await this.actors.resolve(p);
    return this.toDto(await this.find(actor, id));
  }

  /** POST /user_invites: invites an address with one platform and one inbox role, and emails the link. */
  async create(p: Principal, input: { email: string; firstname?: string; lastname?: string; user_roles_ids: unknown[] }): Promise<InviteDto> {
    const actor = await this.actors.resolve(p);
    const email = normalizeEmail(input.email);
    const pair = await this.rolesFor(actor, input.user_roles_ids);
    const existing = await this.users.findByEmail(email);
    if (existing) {
      const ms = await this.memberships.find(existing.id, actor.accountId);
      if (ms && ms.status !== MembershipStatus.Disabled) throw AppError.conflict(`${email} is already a member of this account`);
    }
    const token = newSecret();
    const now = this.clock.now();
    const invite = await this.uow.run((m) =>
      this.invites.insertReplacingPending(
        {
          accountId: actor.accountId,
          email,
          firstName: input.firstname?.trim() ?? '',
          lastName: input.lastname?.trim() ?? '',
          platformRoleId: pair.platform?.id ?? null,
          inboxRoleId: pair.inbox?.id ?? null,
          tokenHash: sha256Hex(token),
          invitedBy: actor.userId,
          createdAt: now,
          expiresAt: new Date(now.getTime() + this.options.inviteTtlSeconds * 1000),
        },
        m,
      ),
    );
    await this.sendOrWithdraw(actor, invite, token);
    await this.notifier.changed(actor.accountId, 'invites.changed', { inviteId: invite.id });
    return this.toDto(invite);
  }

  /** PUT /user_invites/{id}: names and roles of a pending invite (the link stays the same). */
  async update(p: Principal, id: string, input: { firstname?: string; lastname?: string; user_roles_ids?: unknown[] }): Promise<InviteDto> {
    const actor = await this.actors.resolve(p);
    const invite = await this.find(actor, id);
    if (invite.status !== InviteStatus.Pending) throw AppError.conflict('this invite has been accepted');
    this.actors.assertCanGrant(actor, await this.permissionsOf(invite), 'change an invite');
    const patch: Parameters<InviteRepository['update']>[2] = {};
    if (input.firstname !== undefined) patch.firstName = input.firstname.trim();
    if (input.lastname !== undefined) patch.lastName = input.lastname.trim();
    if (input.user_roles_ids !== undefined) {
      const pair = await this.rolesFor(actor, input.user_roles_ids);
      patch.platformRoleId = pair.platform?.id ?? null;
      patch.inboxRoleId = pair.inbox?.id ?? null;
    }
    if (Object.keys(patch).length) await this.invites.update(actor.accountId, invite.id, patch);
    await this.notifier.changed(actor.accountId, 'invites.changed', { inviteId: invite.id });
    return this.toDto((await this.invites.findInAccount(actor.accountId, invite.id)) as InviteEntity);
  }

  /** POST /user_invites/{id}/resend: a new link (the old one stops working) and a new expiry. */
  async resend(p: Principal, id: string): Promise<InviteDto> {
    const actor = await this.actors.resolve(p);
    const invite = await this.find(actor, id);
    if (invite.status !== InviteStatus.Pending) throw AppError.conflict('this invite has been accepted');
    this.actors.assertCanGrant(actor, await this.permissionsOf(invite), 'send an invite');
    const token = newSecret();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.options.inviteTtlSeconds * 1000);
    await this.invites.update(actor.accountId, invite.id, { tokenHash: sha256Hex(token), expiresAt });
    const fresh = { ...invite, tokenHash: sha256Hex(token), expiresAt };
    await this.send(actor.accountId, fresh, token, actor.user);
    return this.toDto(fresh);
  }

  /** DELETE /user_invites/{id}: a pending invite's link stops working; an accepted one only leaves the list. */
  async delete(p: Principal, id: string): Promise<void> {
    const actor = await this.actors.resolve(p);
    const invite = await this.find(actor, id);
    if (invite.status === InviteStatus.Pending) this.actors.assertCanGrant(actor, await this.permissionsOf(invite), 'withdraw an invite');
    await this.invites.delete(actor.accountId, invite.id);
    await this.notifier.changed(actor.accountId, 'invites.changed', { inviteId: invite.id, deleted: true });
  }

  /** POST /user_invites/check (public): what the link leads to. */
  async check(link: InviteLink): Promise<InviteCheckDto> {
    const { invite, account } = await this.open(link);
    const user = await this.users.findByEmail(invite.email);
    return {
      status: 1,
      // a user without a password yet (a CRM user imported as an inbox agent) registers through the link
      action: user && user.passwordHash !== '' ? InviteAction.RegisteredUser : InviteAction.NewUser,
      email: invite.email,
      firstname: invite.firstName,
      lastname: invite.lastName,
      customer: { id: Number(account.id), name: account.name },
    };
  }

  /** POST /user_invites/register (public): a new user sets a password through the link and joins; then signs in as usual. */
  async register(input: InviteLink & { password: string; confirmPassword?: string; firstname?: string; lastname?: string }): Promise<InviteAcceptedDto> {
    const { invite, account } = await this.open(input);
    const violations: Violation[] = passwordViolations(input.password, 'password', invite.email);
    if (input.confirmPassword !== undefined && input.confirmPassword !== input.password) {
      violations.push({ propertyPath: 'confirmPassword', message: 'errors.client.passwordsDontMatch', code: 'passwordsDontMatch' });
    }
    if (violations.length) throw AppError.validation(violations);
    const known = await this.users.findByEmail(invite.email);
    if (known && known.passwordHash !== '') throw AppError.conflict('this address is already registered: sign in to accept the invite');
    const passwordHash = await this.passwords.hash(input.password);
    await this.uow.run(async (m, emit) => {
      const locked = await this.lockOpen(input, m);
      const now = this.clock.now();
      if (known) {
        // a user made without a password (a CRM user imported as an inbox agent) sets it here, once
        const claimed = (await m.query(`UPDATE auth.app_user SET password_hash = $2, first_name = COALESCE(NULLIF($3, ''), first_name), last_name = COALESCE(NULLIF($4, ''), last_name), updated_at = $5 WHERE id = $1 AND password_hash = '' RETURNING id`, [known.id, passwordHash, input.firstname?.trim() ?? '', input.lastname?.trim() ?? '', now])) as [unknown[], number];
        if (!claimed[0].length) throw AppError.conflict('this address is already registered: sign in to accept the invite');
        await this.join(m, emit, locked, { ...known, passwordHash });
        return;
      }
      const user = await this.users.insert(
        {
          email: locked.email,
          passwordHash,
          firstName: input.firstname?.trim() || locked.firstName,
          lastName: input.lastname?.trim() || locked.lastName,
          timezone: null,
          preferences: {},
          superAdmin: false,
          active: true,
          createdAt: now,
          updatedAt: now,
        },
        m,
      );
      await this.join(m, emit, locked, user);
    });
    await this.notifier.changed(account.id, 'team.changed', { inviteId: invite.id });
    return { status: 1, userType: 'newly-registered', customer: { id: Number(account.id), name: account.name } };
  }

  /** POST /user_invites/accept: the signed-in user whose address was invited joins the account. */
  async accept(p: Principal, link: InviteLink): Promise<InviteAcceptedDto> {
    const user = await this.actors.user(p);
    if (p.impersonatorId) throw AppError.forbidden('an invite cannot be accepted while logged in as someone else');
    const { invite, account } = await this.open(link);
    if (invite.email !== user.email) throw AppError.forbidden('this invite was sent to another address', ErrorCode.AccessDenied);
    await this.uow.run(async (m, emit) => this.join(m, emit, await this.lockOpen(link, m), user));
    await this.notifier.changed(account.id, 'team.changed', { inviteId: invite.id, userId: user.id });
    return { status: 1, userType: 'registered', customer: { id: Number(account.id), name: account.name } };
  }

  /** Adds or restores the membership with the invite's roles (an owner stays owner), and uses the invite up. */
  private async join(m: EntityManager, emit: Emit, invite: InviteEntity, user: UserEntity): Promise<void> {
    const now = this.clock.now();
    const current = await this.memberships.lock(user.id, invite.accountId, m);
    if (current?.status === MembershipStatus.Owner) {
      // the owner keeps their place; the invite is simply used up
    } else {
      const roles = await this.roles.findUsable([invite.platformRoleId, invite.inboxRoleId].filter((x): x is string => !!x), invite.accountId, m);
      const platform = roles.find((r) => r.roleType === 'platform') ?? null;
      const inbox = roles.find((r) => r.roleType === 'inbox') ?? null;
      await this.memberships.upsert(
        {
          userId: user.id,
          accountId: invite.accountId,
          platformRoleId: platform?.id ?? null,
          inboxRoleId: inbox?.id ?? null,
          status: statusWithRoles(MembershipStatus.Active, !!(platform || inbox)),
          createdAt: current?.createdAt ?? now,
        },
        m,
      );
    }
    await this.invites.markAccepted(invite.id, user.id, now, m);
    await this.memberEvents.changed(m, emit, invite.accountId, [user.id]);
  }

  /** The invite of a link, if the token is right and it is still open; the account must still be there. */
  private async open(link: InviteLink): Promise<{ invite: InviteEntity; account: AccountEntity }> {
    const invite = await this.invites.findInAccount(link.customerID, link.inviteID);
    this.assertOpen(invite, link);
    const account = await this.accounts.findById(invite!.accountId);
    if (!account || account.status === 'delete' || account.status === 'disable') throw AppError.notFound(INVITE_INVALID);
    return { invite: invite!, account };
  }

  private async lockOpen(link: InviteLink, m: EntityManager): Promise<InviteEntity> {
    const invite = await this.invites.lockInAccount(link.customerID, link.inviteID, m);
    this.assertOpen(invite, link);
    return invite!;
  }

  /** Wrong id or token: 404 (nothing to learn); the right token of a used or expired invite: 410 with why. */
  private assertOpen(invite: InviteEntity | null, link: InviteLink): void {
    if (!invite || !sameDigest(invite.tokenHash, sha256Hex(link.inviteToken))) throw new AppError(404, ErrorCode.NotFound, INVITE_INVALID);
    if (invite.status !== InviteStatus.Pending) throw new AppError(410, 'INVITE_USED', 'this invite has already been accepted');
    if (invite.expiresAt.getTime() <= this.clock.now().getTime()) throw new AppError(410, 'INVITE_EXPIRED', 'this invite has expired: ask for a new one');
  }

  private async find(actor: Actor, id: string): Promise<InviteEntity> {
    const invite = await this.invites.findInAccount(actor.accountId, id);
    if (!invite) throw AppError.notFound('invite');
    return invite;
  }

  private async rolesFor(actor: Actor, refs: unknown[]): Promise<RolePair> {
    const pair = await resolveRolePair(this.roles, actor.accountId, refs);
    if (!pair.platform && !pair.inbox) throw AppError.validation([{ propertyPath: 'user_roles_ids', message: 'errors.client.required', code: 'required' }]);
    this.actors.assertCanGrant(actor, pairPermissions(pair), 'invite someone');
    return pair;
  }

  private async permissionsOf(invite: InviteEntity): Promise<string[]> {
    const roles = await this.roles.findUsable([invite.platformRoleId, invite.inboxRoleId].filter((x): x is string => !!x), invite.accountId);
    return [...new Set(roles.flatMap((r) => r.permissions))];
  }

  private async sendOrWithdraw(actor: Actor, invite: InviteEntity, token: string): Promise<void> {
    try {
      await this.send(actor.accountId, invite, token, actor.user);
    } catch (e) {
      await this.invites.delete(actor.accountId, invite.id);
      throw e;
    }
  }

  private async send(accountId: string, invite: InviteEntity, token: string, inviter: UserEntity): Promise<void> {
    const account = await this.accounts.findById(accountId);
    const link = `${this.options.appUrl}/team-member-invite/${accountId}/${invite.id}/${token}`;
    const who = [inviter.firstName, inviter.lastName].filter(Boolean).join(' ') || inviter.email;
    const days = Math.round(this.options.inviteTtlSeconds / 86400);
    try {
      await this.mailer.send({
        to: invite.email,
        subject: `You are invited to join ${account?.name ?? 'an account'} on Switchboard`,
        text: [
          `${who} invited you to join ${account?.name ?? 'their account'} on Switchboard.`,
          '',
          `Open this link to accept: ${link}`,
          '',
          `The link works once and expires in ${days} day${days === 1 ? '' : 's'}.`,
        ].join('\n'),
      });
    } catch (e) {
      this.logger.error(`could not send invite ${invite.id}: ${e instanceof Error ? e.message : String(e)}`);
      throw new AppError(503, 'MAIL_UNAVAILABLE', 'the invite email could not be sent: try again later');
    }
  }

  private toDto(i: InviteEntity): InviteDto {
    return {
      id: Number(i.id),
      status: i.status,
      firstname: i.firstName,
      lastname: i.lastName,
      email: i.email,
      user_roles_ids: [i.platformRoleId, i.inboxRoleId].filter((x): x is string => !!x).map(Number),
      createdAt: i.createdAt.toISOString(),
      expiresAt: i.expiresAt.toISOString(),
      expired: i.status === InviteStatus.Pending && i.expiresAt.getTime() <= this.clock.now().getTime(),
      acceptedAt: i.acceptedAt ? i.acceptedAt.toISOString() : null,
    };
  }
}
