import { Init1795400000000 } from './1795400000000-init';
import { OutboxPacked1795600000000 } from './1795600000000-outbox-packed';
import { AcceptMessages1795716000000 } from './1795716000000-accept-messages';
import { DailyLimitLock1796000000000 } from './1796000000000-daily-limit-lock';
import { InboundClaims1796100000000 } from './1796100000000-inbound-claims';
import { DeadLetters1796300000000 } from './1796300000000-dead-letters';
import { SendBatches1796400000000 } from './1796400000000-send-batches';
import { StreamTpsBackfill1796650000000 } from './1796650000000-stream-tps-backfill';
import { SharedTps1797300000000 } from './1797300000000-shared-tps';
import { UndispatchedSweep1797700000000 } from './1797700000000-undispatched-sweep';
import { ChargeReconcile1798100000000 } from './1798100000000-charge-reconcile';
import { AcceptMessagesOnePass1798200000000 } from './1798200000000-accept-messages-one-pass';
import { AcceptMessagesSharedHeads1798600000167 } from './1798600000167-accept-messages-shared-heads';
import { UndispatchedFloor1798700000204 } from './1798700000204-undispatched-floor';
import { AcceptMessagesCompact1798800000210 } from './1798800000210-accept-messages-compact';

/** In order; a new migration is appended, never edited once released. */
export const STREAMS_MIGRATIONS = [Init1795400000000, OutboxPacked1795600000000, AcceptMessages1795716000000, DailyLimitLock1796000000000, InboundClaims1796100000000, DeadLetters1796300000000, SendBatches1796400000000, StreamTpsBackfill1796650000000, SharedTps1797300000000, UndispatchedSweep1797700000000, ChargeReconcile1798100000000, AcceptMessagesOnePass1798200000000, AcceptMessagesSharedHeads1798600000167, UndispatchedFloor1798700000204, AcceptMessagesCompact1798800000210];
