import { Init1796200000000 } from './1796200000000-init';

/** In order; a new migration is appended, never edited once released. */
export const WEBHOOKS_MIGRATIONS = [Init1796200000000];
