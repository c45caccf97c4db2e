import { Init1796600000000 } from './1796600000000-init';
import { SendOutcome1796700000000 } from './1796700000000-send-outcome';
import { EventCost1796800000000 } from './1796800000000-event-cost';
import { StatusCounts1796900000000 } from './1796900000000-status-counts';
import { SpaceAccess1797350000000 } from './1797350000000-space-access';
import { ImportedPlacements1797400000000 } from './1797400000000-imported-placements';
import { StatusPageVisibility1797600000000 } from './1797600000000-status-page-visibility';
import { StatusCountsPerStatement1797700000000 } from './1797700000000-status-counts-per-statement';
import { RoomPayloads1797800000000 } from './1797800000000-room-payloads';
import { ConversationWriteIndexes1798000000000 } from './1798000000000-conversation-write-indexes';
import { RoomPayloadPerStatement1798300000128 } from './1798300000128-room-payload-per-statement';

/** In order; a new migration is appended, never edited once released. */
export const INBOX_MIGRATIONS = [Init1796600000000, SendOutcome1796700000000, EventCost1796800000000, StatusCounts1796900000000, SpaceAccess1797350000000, ImportedPlacements1797400000000, StatusPageVisibility1797600000000, StatusCountsPerStatement1797700000000, RoomPayloads1797800000000, ConversationWriteIndexes1798000000000, RoomPayloadPerStatement1798300000128];
