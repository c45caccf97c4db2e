import { Init1795400000000 } from './1795400000000-init';

/** In order; a new migration is appended, never edited once released. */
export const ACCOUNTS_MIGRATIONS = [Init1795400000000];
