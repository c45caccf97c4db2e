import { Init1795400000000 } from './1795400000000-init';

/** In order; a new migration is appended, never edited once released. */
export const STREAMS_MIGRATIONS = [Init1795400000000];
