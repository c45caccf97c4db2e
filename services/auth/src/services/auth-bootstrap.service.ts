import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ALL_PERMISSIONS, type PermissionName, type RoleType } from '@switchboard/contracts';
import { Clock } from '../clock';
import { MembershipStatus, type AccountEntity, type AccountStatus, type MembershipEntity, type MembershipStatusValue, type RoleEntity, type UserEntity } from '../entities';
import { AccountRepository, MembershipRepository, RoleRepository, UserRepository } from '../repositories';
import { normalizeEmail } from '../rules/email';
import { PasswordService } from './password.service';

export const TENANT_OWNER_ROLE = 'Tenant owner';

export interface SeedInput {
  adminEmail: string;
  adminPassword: string;
  demoAccountName: string;
}

export interface SeedResult {
  adminUserId: string;
  demoAccountId: string;
  /** False when everything already existed (a later start). */
  created: boolean;
}

export interface NewUserInput {
  email: string;
  password: string;
  firstName?: string;
  lastName?: string;
  timezone?: string | null;
  superAdmin?: boolean;
  active?: boolean;
}

export interface NewAccountInput {
  name: string;
  shortName?: string;
  status?: AccountStatus;
  currency?: string;
  /** The accounts service's id, when projecting its events. */
  id?: string;
}

export interface NewRoleInput {
  accountId: string;
  name: string;
  permissions: PermissionName[];
  roleType?: RoleType;
  description?: string;
}

export interface MembershipInput {
  userId: string;
  accountId: string;
  /** Default: the system "Tenant owner" role for owners, none otherwise. */
  platformRoleId?: string | null;
  inboxRoleId?: string | null;
  status?: MembershipStatusValue;
}

/**
 * First-start seeding for the embedded server, and the helpers tests (and, until invites exist, operators) use to
 * create users, accounts, roles and memberships. Keeps the system roles in step with the permission list on every start.
 */
@Injectable()
export class AuthBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('auth');

  constructor(
    private readonly users: UserRepository,
    private readonly accounts: AccountRepository,
    private readonly roles: RoleRepository,
    private readonly memberships: MembershipRepository,
    private readonly passwords: PasswordService,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureSystemRoles();
  }

  /** The read-only system role holding every permission; owners get it. */
  async ensureSystemRoles(): Promise<RoleEntity> {
    return this.roles.upsertSystemRole(
      { name: TENANT_OWNER_ROLE, description: 'Owns the account: every permission', roleType: 'platform', permissions: [...ALL_PERMISSIONS], readOnly: true },
      this.clock.now(),
    );
  }

  /** Idempotent: a super admin, a demo account, and the admin as its owner. An existing admin keeps their password. */
  async seed(input: SeedInput): Promise<SeedResult> {
    const owner = await this.ensureSystemRoles();
    let created = false;
    let admin = await this.users.findByEmail(normalizeEmail(input.adminEmail));
    if (!admin) {
      admin = await this.createUser({ email: input.adminEmail, password: input.adminPassword, firstName: 'Admin', lastName: '', superAdmin: true });
      created = true;
    } else if (!admin.superAdmin || !admin.active) {
      await this.users.update(admin.id, { superAdmin: true, active: true, updatedAt: this.clock.now() });
    }
    let demo = await this.accounts.findByName(input.demoAccountName);
    if (!demo) {
      demo = await this.createAccount({ name: input.demoAccountName, shortName: shortNameOf(input.demoAccountName) });
      created = true;
    }
    const ms = await this.memberships.find(admin.id, demo.id);
    if (!ms) {
      await this.addMember({ userId: admin.id, accountId: demo.id, platformRoleId: owner.id, status: MembershipStatus.Owner });
      created = true;
    }
    if (created) this.logger.log(`seeded super admin ${admin.email} and account "${demo.name}"`);
    return { adminUserId: admin.id, demoAccountId: demo.id, created };
  }

  async createUser(u: NewUserInput): Promise<UserEntity> {
    const now = this.clock.now();
    return this.users.insert({
      email: normalizeEmail(u.email),
      passwordHash: await this.passwords.hash(u.password),
      firstName: u.firstName ?? '',
      lastName: u.lastName ?? '',
      timezone: u.timezone ?? null,
      preferences: {},
      superAdmin: u.superAdmin ?? false,
      active: u.active ?? true,
      createdAt: now,
      updatedAt: now,
    });
  }

  createAccount(a: NewAccountInput): Promise<AccountEntity> {
    return this.accounts.insert({
      ...(a.id ? { id: a.id } : {}),
      name: a.name,
      shortName: a.shortName ?? shortNameOf(a.name),
      status: a.status ?? 'active',
      currency: a.currency ?? 'EUR',
      createdAt: this.clock.now(),
    });
  }

  setAccountStatus(accountId: string, status: AccountStatus): Promise<void> {
    return this.accounts.setStatus(accountId, status);
  }

  createRole(r: NewRoleInput): Promise<RoleEntity> {
    return this.roles.insert({
      accountId: r.accountId,
      name: r.name,
      description: r.description ?? '',
      roleType: r.roleType ?? 'platform',
      permissions: [...new Set(r.permissions)],
      readOnly: false,
      isDeleted: false,
      createdAt: this.clock.now(),
    });
  }

  async addMember(ms: MembershipInput): Promise<MembershipEntity> {
    const status = ms.status ?? MembershipStatus.Active;
    let platformRoleId = ms.platformRoleId ?? null;
    if (ms.platformRoleId === undefined && status === MembershipStatus.Owner) platformRoleId = (await this.ensureSystemRoles()).id;
    return this.memberships.upsert({ userId: ms.userId, accountId: ms.accountId, platformRoleId, inboxRoleId: ms.inboxRoleId ?? null, status, createdAt: this.clock.now() });
  }
}

function shortNameOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return (words.length > 1 ? words.map((w) => w[0]).join('') : name.slice(0, 2)).toUpperCase().slice(0, 4);
}
