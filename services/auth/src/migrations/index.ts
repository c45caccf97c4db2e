import { Init1795351353775 } from './1795351353775-init';

/** In order; a new migration is appended, never edited once released. */
export const AUTH_MIGRATIONS = [Init1795351353775];
