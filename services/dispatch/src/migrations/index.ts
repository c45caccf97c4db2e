import { Init1795500000000 } from './1795500000000-init';
import { OutboxPacked1795600000000 } from './1795600000000-outbox-packed';
import { InboundOwnership1796100000000 } from './1796100000000-inbound-ownership';
import { ProviderRefReuse1796230000000 } from './1796230000000-provider-ref-reuse';
import { DeadLetters1796300000000 } from './1796300000000-dead-letters';
import { ReceiptQueries1796500000000 } from './1796500000000-receipt-queries';
import { RateShares1796600000000 } from './1796600000000-rate-shares';
import { MessageDeferredBy1796800000000 } from './1796800000000-message-deferred-by';
import { MessageTraceparent1796700000000 } from './1796700000000-message-traceparent';
import { InboundMediaKept1796900000000 } from './1796900000000-inbound-media-kept';
import { CampaignHolds1796910000000 } from './1796910000000-campaign-holds';
import { InboundMediaPruning1796940000000 } from './1796940000000-inbound-media-pruning';
import { CampaignAborts1796970000000 } from './1796970000000-campaign-aborts';
import { MessageStatusHot1798800000206 } from './1798800000206-message-status-hot';
import { MessageAwaitingReceipt1798800000212 } from './1798800000212-message-awaiting-receipt';

/** In order; a new migration is appended, never edited once released. */
export const DISPATCH_MIGRATIONS = [Init1795500000000, OutboxPacked1795600000000, InboundOwnership1796100000000, ProviderRefReuse1796230000000, DeadLetters1796300000000, ReceiptQueries1796500000000, RateShares1796600000000, MessageTraceparent1796700000000, MessageDeferredBy1796800000000, InboundMediaKept1796900000000, CampaignHolds1796910000000, InboundMediaPruning1796940000000, CampaignAborts1796970000000, MessageStatusHot1798800000206, MessageAwaitingReceipt1798800000212];
