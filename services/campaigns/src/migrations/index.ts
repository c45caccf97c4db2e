import { CampaignsInit1796600000000 } from './1796600000000-init';
import { CampaignsRunner1796680000000 } from './1796680000000-runner';
import { CampaignsEstimates1796690000000 } from './1796690000000-estimates';
import { CampaignsRunnerCtr1796695000000 } from './1796695000000-runner-ctr';
import { CampaignsRunnerOptOuts1796697000000 } from './1796697000000-runner-opt-outs';
import { CampaignsRunnerDispatchTail1796970000000 } from './1796970000000-runner-dispatch-tail';
import { CampaignsTailCountOnCampaign1797040000000 } from './1797040000000-tail-count-on-campaign';
import { CampaignsRecipientStatusAsked1797800000000 } from './1797800000000-recipient-status-asked';
import { CampaignsRecipientInFlight1797900000000 } from './1797900000000-recipient-in-flight';
import { CampaignsRunNextOrdinal1798000000000 } from './1798000000000-run-next-ordinal';
import { CampaignsRecipientSnapshotIndexes1798400000136 } from './1798400000136-recipient-snapshot-indexes';
import { CampaignsRunAudienceAttempt1798500000140 } from './1798500000140-run-audience-attempt';
import { CampaignsSendBatch1798600000188 } from './1798600000188-send-batch';
import { CampaignsOutboxPacked1798700000202 } from './1798700000202-outbox-packed';
import { CampaignsRecipientStatusFloor1798800000207 } from './1798800000207-recipient-status-floor';
import { CampaignsRecipientAnswerHot1798900000209 } from './1798900000209-recipient-answer-hot';
import { CampaignsRecipientFillfactor1799000000215 } from './1799000000215-recipient-fillfactor';

/** In order; a new migration is appended, never edited once released. */
export const CAMPAIGNS_MIGRATIONS = [CampaignsInit1796600000000, CampaignsRunner1796680000000, CampaignsEstimates1796690000000, CampaignsRunnerCtr1796695000000, CampaignsRunnerOptOuts1796697000000, CampaignsRunnerDispatchTail1796970000000, CampaignsTailCountOnCampaign1797040000000, CampaignsRecipientStatusAsked1797800000000, CampaignsRecipientInFlight1797900000000, CampaignsRunNextOrdinal1798000000000, CampaignsRecipientSnapshotIndexes1798400000136, CampaignsRunAudienceAttempt1798500000140, CampaignsSendBatch1798600000188, CampaignsOutboxPacked1798700000202, CampaignsRecipientStatusFloor1798800000207, CampaignsRecipientAnswerHot1798900000209, CampaignsRecipientFillfactor1799000000215];
