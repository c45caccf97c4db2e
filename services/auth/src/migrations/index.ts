import { Init1795351353775 } from './1795351353775-init';
import { RolesInvitesApiKeys1795400000000 } from './1795400000000-roles-invites-api-keys';
import { OutboxPacked1795600000000 } from './1795600000000-outbox-packed';
import { LoginAsGrant1796000000000 } from './1796000000000-login-as-grant';
import { DeadLetters1796300000000 } from './1796300000000-dead-letters';
import { ZohoSso1797000000000 } from './1797000000000-zoho-sso';

/** In order; a new migration is appended, never edited once released. */
export const AUTH_MIGRATIONS = [Init1795351353775, RolesInvitesApiKeys1795400000000, OutboxPacked1795600000000, LoginAsGrant1796000000000, DeadLetters1796300000000, ZohoSso1797000000000];
