import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import * as bcrypt from 'bcryptjs';
import { randomBytes } from 'node:crypto';
import { AUTH_OPTIONS, type ResolvedAuthOptions } from '../auth.options';

/** bcrypt hashing. A missing user is checked against a dummy hash of the same cost, so timing does not reveal accounts. */
@Injectable()
export class PasswordService implements OnModuleInit {
  private dummyHash = '';

  constructor(@Inject(AUTH_OPTIONS) private readonly options: ResolvedAuthOptions) {}

  async onModuleInit(): Promise<void> {
    this.dummyHash = await bcrypt.hash(randomBytes(18).toString('base64'), this.options.passwordHashCost);
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.options.passwordHashCost);
  }

  /** Compares with the user's hash, or with the dummy when there is no user (always false then). */
  async verify(password: string, hash: string | null): Promise<boolean> {
    // '' is a user with no password yet (a CRM user invited as an inbox agent): checked like a missing user
    const usable = hash !== null && hash !== '';
    const ok = await bcrypt.compare(password, usable ? hash : this.dummyHash);
    return usable && ok;
  }
}
