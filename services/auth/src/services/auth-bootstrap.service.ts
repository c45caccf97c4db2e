import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { PermissionName, RoleType } from '@switchboard/contracts';
import { Clock } from '../clock';
import { MembershipStatus, type AccountEntity, type AccountStatus, type MembershipEntity, type MembershipStatusValue, type RoleEntity, type UserEntity } from '../entities';
import { AccountRepository, MembershipRepository, RoleRepository, UserRepository } from '../repositories';
import { normalizeEmail } from '../rules/email';
import { SYSTEM_ROLES, TENANT_OWNER_ROLE } from '../rules/system-roles';
import { AuthUnitOfWork } from './auth-events.service';
import { MemberEvents } from './member-events.service';
import { PasswordService } from './password.service';

export { TENANT_OWNER_ROLE };

export interface SeedInput {
  adminEmail: string;
  adminPassword: string;
  /**
   * The demo account as the accounts service created it (its id): written to the read model now if its
   * `accounts.customer.created` event has not arrived yet, and overwritten by it when it does.
   */
  demoAccount?: { id: string; name: string };
  /** Without the accounts service (auth alone, tests): an account found by name or created in the read model. */
  demoAccountName?: string;
}

export interface SeedResult {
  adminUserId: string;
  demoAccountId: string;
  /** False when everything already existed (a later start). */
  created: boolean;
  /** True when the super administrator was created now, with the password given. */
  adminCreated: boolean;
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
 * First-start seeding for the embedded server, and the helpers tests use to create users, accounts, roles and
 * memberships directly. Accounts belong to the accounts service: `createAccount` writes auth's read model only
 * (its events overwrite such rows). Keeps the system roles in step with the code on every start.
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
    private readonly memberEvents: MemberEvents,
    private readonly uow: AuthUnitOfWork,
    private readonly clock: Clock,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureSystemRoles();
  }

  /** The read-only system roles (Tenant owner, Inbox Admin, Inbox Manager, Inbox Agent); answers the owner role. */
  async ensureSystemRoles(): Promise<RoleEntity> {
    const now = this.clock.now();
    const saved: RoleEntity[] = [];
    for (const r of SYSTEM_ROLES) saved.push(await this.roles.upsertSystemRole({ ...r, permissions: [...r.permissions], readOnly: true }, now));
    return saved.find((r) => r.name === TENANT_OWNER_ROLE) as RoleEntity;
  }

  /** A system role by name (e.g. INBOX_AGENT_ROLE), for seeding and tests. */
  async systemRole(name: string): Promise<RoleEntity> {
    const role = await this.roles.findSystemRole(name);
    if (!role) throw new Error(`no system role named ${name}`);
    return role;
  }

  /** Idempotent: a super admin, a demo account, and the admin as its owner. An existing admin keeps their password. */
  async seed(input: SeedInput): Promise<SeedResult> {
    const owner = await this.ensureSystemRoles();
    let created = false;
    let adminCreated = false;
    let admin = await this.users.findByEmail(normalizeEmail(input.adminEmail));
    if (!admin) {
      admin = await this.createUser({ email: input.adminEmail, password: input.adminPassword, firstName: 'Admin', lastName: '', superAdmin: true });
      created = true;
      adminCreated = true;
    } else if (!admin.superAdmin || !admin.active) {
      await this.users.update(admin.id, { superAdmin: true, active: true, updatedAt: this.clock.now() });
    }
    let demo: AccountEntity | null;
    if (input.demoAccount) {
      demo = await this.accounts.findById(input.demoAccount.id);
      if (!demo) {
        demo = await this.createAccount({ id: input.demoAccount.id, name: input.demoAccount.name });
        created = true;
      }
    } else {
      const name = input.demoAccountName;
      if (!name) throw new Error('seed: demoAccount or demoAccountName is required');
      // the look-up and the insert in one transaction that the accounts service's snapshots wait for (lockNames)
      [demo, created] = await this.uow.run(async (m): Promise<[AccountEntity, boolean]> => {
        await this.accounts.lockNames(m);
        const found = await this.accounts.findByName(name, m);
        return found ? [found, created] : [await this.createAccount({ name, shortName: shortNameOf(name) }, m), true];
      });
    }
    const ms = await this.memberships.find(admin.id, demo.id);
    if (!ms) {
      await this.addMember({ userId: admin.id, accountId: demo.id, platformRoleId: owner.id, status: MembershipStatus.Owner });
      created = true;
    }
    if (created) this.logger.log(`seeded super admin ${admin.email} and account "${demo.name}"`);
    return { adminUserId: admin.id, demoAccountId: demo.id, created, adminCreated };
  }

  /** Whether the user of `email` signs in with `password` (embedded mode refuses a network with the default one). */
  async passwordWorks(email: string, password: string): Promise<boolean> {
    const user = await this.users.findByEmail(normalizeEmail(email));
    return !!user && user.active && (await this.passwords.verify(password, user.passwordHash));
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

  createAccount(a: NewAccountInput, m?: EntityManager): Promise<AccountEntity> {
    return this.accounts.insert(
      {
        ...(a.id ? { id: a.id } : {}),
        name: a.name,
        shortName: a.shortName ?? shortNameOf(a.name),
        status: a.status ?? 'active',
        currency: a.currency ?? 'EUR',
        createdAt: this.clock.now(),
      },
      m,
    );
  }

  setAccountStatus(accountId: string, status: AccountStatus): Promise<void> {
    return this.accounts.setStatus(accountId, status);
  }

  createRole(r: NewRoleInput): Promise<RoleEntity> {
    return this.uow.run(async (m, emit) => {
      const role = await this.roles.insert(
        {
          accountId: r.accountId,
          name: r.name,
          description: r.description ?? '',
          roleType: r.roleType ?? 'platform',
          permissions: [...new Set(r.permissions)],
          readOnly: false,
          isDeleted: false,
          createdAt: this.clock.now(),
        },
        m,
      );
      this.memberEvents.role(emit, role);
      return role;
    });
  }

  /** Adds or updates a membership, and emits the member's snapshot like an accepted invite does. */
  async addMember(ms: MembershipInput): Promise<MembershipEntity> {
    const status = ms.status ?? MembershipStatus.Active;
    let platformRoleId = ms.platformRoleId ?? null;
    if (ms.platformRoleId === undefined && status === MembershipStatus.Owner) platformRoleId = (await this.ensureSystemRoles()).id;
    return this.uow.run(async (m, emit) => {
      const saved = await this.memberships.upsert({ userId: ms.userId, accountId: ms.accountId, platformRoleId, inboxRoleId: ms.inboxRoleId ?? null, status, createdAt: this.clock.now() }, m);
      await this.memberEvents.changed(m, emit, ms.accountId, [ms.userId]);
      return saved;
    });
  }
}

function shortNameOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  return (words.length > 1 ? words.map((w) => w[0]).join('') : name.slice(0, 2)).toUpperCase().slice(0, 4);
}
