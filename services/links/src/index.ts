export { LinksModule } from './links.module';
export type { LinksRoleParts } from './role-parts';
export { LINKS_CONNECTION, LINKS_SCHEMA, LINKS_OPTIONS, resolveLinksOptions, type LinksModuleOptions, type LinksRoles, type ResolvedLinksOptions, type DnsTargets } from './links.options';
export { linksConfigSchema, linksModuleOptionsFromConfig, platformRolesFromConfig, loadLinksConfig, type LinksConfig } from './links.config';
export { Clock, ManualClock, SystemClock } from './clock';
export { LINKS_MIGRATIONS } from './migrations';
export { LinksUnitOfWork, LinksOutboxRelay } from './services/links-events.service';
