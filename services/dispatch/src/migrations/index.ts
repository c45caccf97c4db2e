import { Init1795500000000 } from './1795500000000-init';
import { OutboxPacked1795600000000 } from './1795600000000-outbox-packed';

/** In order; a new migration is appended, never edited once released. */
export const DISPATCH_MIGRATIONS = [Init1795500000000, OutboxPacked1795600000000];
