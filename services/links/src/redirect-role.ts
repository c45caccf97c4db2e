import { RedirectRoleService } from './redirect/redirect-role.service';
import type { LinksRoleParts } from './role-parts';

/** The redirect server (GET {domain}/{code}, click recording): mounted when the `redirect` role is on. */
export const REDIRECT_ROLE: LinksRoleParts = { controllers: [], providers: [RedirectRoleService] };
