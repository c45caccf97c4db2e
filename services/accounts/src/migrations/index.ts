import { Init1795400000000 } from './1795400000000-init';
import { OutboxPacked1795600000000 } from './1795600000000-outbox-packed';
import { DeadLetters1796300000000 } from './1796300000000-dead-letters';
import { LedgerEntryNoFk1798000000115 } from './1798000000115-ledger-entry-no-fk';
import { ChargeReconcile1798100000000 } from './1798100000000-charge-reconcile';
import { MessagingGroupDeadLetters1798200000124 } from './1798200000124-messaging-group-dead-letters';
import { UsageBatches1798700000199 } from './1798700000199-usage-batches';
import { LedgerEntryAccountKey1798900000222 } from './1798900000222-ledger-entry-account-key';

/** In order; a new migration is appended, never edited once released. */
export const ACCOUNTS_MIGRATIONS = [Init1795400000000, OutboxPacked1795600000000, DeadLetters1796300000000, LedgerEntryNoFk1798000000115, ChargeReconcile1798100000000, MessagingGroupDeadLetters1798200000124, UsageBatches1798700000199, LedgerEntryAccountKey1798900000222];
