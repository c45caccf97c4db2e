import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DATABASE_URL, ensureSchema, serviceDataSourceOptions } from '@switchboard/platform';
import { Clock } from './clock';
import { LINKS_MIGRATIONS } from './migrations';
import { createClock, LINKS_CONNECTION, LINKS_OPTIONS, LINKS_SCHEMA, resolveLinksOptions, type LinksModuleOptions } from './links.options';
import { ADMIN_ROLE } from './admin-role';
import { REDIRECT_ROLE } from './redirect-role';
import { RedirectRoleService } from './redirect/redirect-role.service';
import type { LinksRoleParts } from './role-parts';
import { LinksOutboxRelay, LinksUnitOfWork } from './services/links-events.service';
import { MintConsumer } from './mint/mint.consumer';


/**
 * Short links: domains verified in DNS, pools, offers (the admin role), and the redirect server with click recording
 * (the redirect role), from one code base (docs/decisions/0033-links-domains.md). Needs PlatformModule.forRoot.
 */
@Module({})
export class LinksModule {
  static register(options: LinksModuleOptions = {}): DynamicModule {
    const resolved = resolveLinksOptions(options);
    const parts = [resolved.roles.admin ? ADMIN_ROLE : null, resolved.roles.redirect ? REDIRECT_ROLE : null].filter((p): p is LinksRoleParts => p !== null);
    return {
      module: LinksModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: LINKS_CONNECTION,
          inject: [DATABASE_URL],
          useFactory: async (url: string) => {
            await ensureSchema(url, LINKS_SCHEMA);
            return {
              ...serviceDataSourceOptions({ name: LINKS_CONNECTION, url, schema: LINKS_SCHEMA, entities: [], migrations: LINKS_MIGRATIONS, migrationsRun: resolved.migrationsRun }),
              retryAttempts: 1,
              retryDelay: 500,
            };
          },
        }),
      ],
      controllers: parts.flatMap((p) => p.controllers),
      providers: [
        { provide: LINKS_OPTIONS, useValue: resolved },
        { provide: Clock, useValue: createClock(options) },
        LinksOutboxRelay,
        LinksUnitOfWork,
        // personal links for campaign batches: a consumer, whichever role the process has (docs/decisions/0034)
        MintConsumer,
        ...new Set(parts.flatMap((p) => p.providers)),
      ],
      exports: [LinksUnitOfWork, MintConsumer, ...(resolved.roles.redirect ? [RedirectRoleService] : [])],
    };
  }
}
