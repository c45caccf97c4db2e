import type { LinksRoleParts } from './role-parts';

/** The console API (domains, pools, offers, DNS verification): mounted when the `admin` role is on. */
export const ADMIN_ROLE: LinksRoleParts = { controllers: [], providers: [] };
