import { StatsInit1796500000000 } from './1796500000000-init';

/** In order; a new migration is appended, never edited once released. */
export const STATS_MIGRATIONS = [StatsInit1796500000000];
