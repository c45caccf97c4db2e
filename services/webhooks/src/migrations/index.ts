import { Init1796200000000 } from './1796200000000-init';
import { Bulk1796400000000 } from './1796400000000-bulk';
import { LogFailuresIndex1796600000000 } from './1796600000000-log-failures-index';
import { ClaimIndexes1796700000000 } from './1796700000000-claim-indexes';
import { LogWithoutForeignKey1797200000000 } from './1797200000000-log-without-foreign-key';
import { ClaimsWithoutWrites1797400000000 } from './1797400000000-claims-without-writes';

/** In order; a new migration is appended, never edited once released. */
export const WEBHOOKS_MIGRATIONS = [Init1796200000000, Bulk1796400000000, LogFailuresIndex1796600000000, ClaimIndexes1796700000000, LogWithoutForeignKey1797200000000, ClaimsWithoutWrites1797400000000];
