import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CAMPAIGN_STATUSES, CAMPAIGN_TIMEZONE_MODES, CAMPAIGN_TYPES } from '@switchboard/contracts';

/** What the campaigns routes answer, for the OpenAPI document (/api/docs.json). Shapes: libs/contracts/src/campaigns.ts. */
export class CampaignVariantResponse {
  @ApiProperty({ type: Number, example: 11 }) id!: number;
  @ApiProperty({ type: Number, example: 5 }) campaign!: number;
  @ApiProperty({ type: String, example: 'Variant 1' }) name!: string;
  @ApiProperty({ type: String, description: 'spintax: {a|b}, {{variable}}, [[word list]]', example: '{Hi|Hello} {{firstName}}, 20% off today: {{shorturl}}' }) text!: string;
  @ApiProperty({ type: String, example: '#ff9600' }) color!: string;
  @ApiProperty({ type: Number, description: 'whole percent; the variants of a campaign total 100', example: 50 }) ratio!: number;
}

export class CampaignSenderResponse {
  @ApiProperty({ type: Number, example: 3 }) id!: number;
  @ApiProperty({ type: Number, example: 5 }) campaign!: number;
  @ApiProperty({ type: Number, example: 7 }) sender!: number;
  @ApiProperty({ type: String, nullable: true, description: 'the sender ID or phone; null when the sender was deleted', example: 'ACME' }) senderValue!: string | null;
  @ApiProperty({ type: Number, example: 100 }) ratio!: number;
}

export class CampaignTagResponse {
  @ApiProperty({ type: Number, example: 2 }) id!: number;
  @ApiProperty({ type: String, example: 'black friday' }) value!: string;
}

export class WorkingHoursResponse {
  @ApiProperty({ type: String, example: '09:00' }) start!: string;
  @ApiProperty({ type: String, example: '18:00' }) end!: string;
}

export class CampaignDatesResponse {
  @ApiProperty({ type: String, nullable: true, example: '2026-12-01T00:00:00.000Z' }) start!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) end!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'a future date makes start give scheduled (0)', example: null }) scheduled!: string | null;
}

export class ActivityTimeResponse {
  @ApiProperty({ type: WorkingHoursResponse, nullable: true }) working_hours!: WorkingHoursResponse | null;
  @ApiProperty({ type: [Number], description: '1 Monday .. 7 Sunday', example: [1, 2, 3, 4, 5] }) working_days!: number[];
  @ApiProperty({ type: String, nullable: true, example: 'Europe/Berlin' }) timezone!: string | null;
  @ApiProperty({ enum: CAMPAIGN_TIMEZONE_MODES, example: 'recipient' }) timezone_mode!: string;
  @ApiProperty({ type: CampaignDatesResponse }) dates!: CampaignDatesResponse;
}

export class CampaignMetadataResponse {
  @ApiProperty({ type: String, nullable: true, example: null }) space!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) team!: string | null;
  @ApiProperty({ type: [String], example: [] }) tags!: string[];
}

export class CampaignSettingsResponse {
  @ApiProperty({ type: Number, nullable: true, example: null }) max_domains_per_pool!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 5000 }) auto_pause_after_messages!: number | null;
  @ApiProperty({ type: Number, nullable: true, example: null }) auto_pause_after_every_messages!: number | null;
  @ApiProperty({ type: [Number], description: '[bad, good] click rates in percent', example: [1, 3] }) ctr_indicators!: number[];
  @ApiProperty({ type: CampaignMetadataResponse }) metadata!: CampaignMetadataResponse;
}

export class CampaignStatsResponse {
  @ApiProperty({ type: Number, example: 1000 }) total!: number;
  @ApiProperty({ type: Number, example: 1000 }) created!: number;
  @ApiProperty({ type: Number, example: 990 }) sent!: number;
  @ApiProperty({ type: Number, example: 970 }) delivered!: number;
  @ApiProperty({ type: Number, example: 10 }) sentFailed!: number;
  @ApiProperty({ type: Number, example: 15 }) undelivered!: number;
  @ApiProperty({ type: Number, example: 5 }) dlrFailed!: number;
  @ApiProperty({ type: Number, example: 3 }) optedOut!: number;
  @ApiProperty({ type: Number, example: 42 }) clicked!: number;
  @ApiProperty({ type: Number, example: 0 }) register!: number;
  @ApiProperty({ type: Number, example: 0 }) ftd!: number;
  @ApiProperty({ type: Number, nullable: true, description: 'seconds from delivery to click, on average', example: 95 }) clickAvgTime!: number | null;
  @ApiProperty({ type: Number, example: 4.33 }) clickedPercentage!: number;
  @ApiProperty({ type: Number, example: 0.31 }) optedOutPercentage!: number;
  @ApiProperty({ type: Number, example: 4.33 }) ctr!: number;
  @ApiProperty({ type: String, description: 'in the currency, exact', example: '49.50' }) cost!: string;
}

export class CampaignActionsResponse {
  @ApiProperty({ type: Boolean, example: true }) edit!: boolean;
  @ApiProperty({ type: Boolean, example: true }) delete!: boolean;
  @ApiProperty({ type: Boolean, example: false }) duplicate!: boolean;
  @ApiProperty({ type: Boolean, example: false }) analytics!: boolean;
  @ApiProperty({ type: Boolean, example: false }) pause!: boolean;
  @ApiProperty({ type: Boolean, example: false }) play!: boolean;
  @ApiProperty({ type: Boolean, example: true }) ratio!: boolean;
  @ApiProperty({ type: Boolean, example: true }) start!: boolean;
  @ApiProperty({ type: Boolean, example: false }) abort!: boolean;
}

export class CampaignResponse {
  @ApiProperty({ type: Number, example: 5 }) id!: number;
  @ApiProperty({ type: String, example: 'Black Friday' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) description!: string | null;
  @ApiProperty({ enum: CAMPAIGN_TYPES, description: 'outbound 0, inbound-outbound 1, transactional 2, whatsapp 3, telegram 4', example: 0 }) type!: number;
  @ApiProperty({
    enum: CAMPAIGN_STATUSES,
    description: 'scheduled 0, started 1, processing 2, paused 3, aborted 4, ready 5, sending 6, finished 7, draft 8, suspended 9, halt 10, rejected 11',
    example: 8,
  })
  status!: number;
  @ApiProperty({ type: CampaignActionsResponse, description: 'what the status allows (spec 4)' }) actions!: CampaignActionsResponse;
  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' }) createdAt!: string;
  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' }) updatedAt!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) startedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) finishedAt!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'DE' }) country!: string | null;
  @ApiProperty({ type: Number, nullable: true, example: 1 }) stream!: number | null;
  @ApiProperty({ type: String, example: 'EUR' }) currency!: string;
  @ApiProperty({ type: String, example: '0.00' }) cost!: string;
  @ApiProperty({ type: Boolean, example: false }) hasShortURL!: boolean;
  @ApiProperty({ type: Boolean, example: false }) unsubscribeAutoAdd!: boolean;
  @ApiProperty({ type: Boolean, example: false }) sendDuplicates!: boolean;
  @ApiProperty({ type: [Number], example: [3] }) contactLists!: number[];
  @ApiProperty({ type: [CampaignVariantResponse] }) campaignVariants!: CampaignVariantResponse[];
  @ApiProperty({ type: [CampaignSenderResponse] }) campaignsSenders!: CampaignSenderResponse[];
  @ApiProperty({ type: [CampaignTagResponse] }) campaignTags!: CampaignTagResponse[];
  @ApiProperty({ type: ActivityTimeResponse }) activityTime!: ActivityTimeResponse;
  @ApiProperty({ type: CampaignSettingsResponse }) campaignSettings!: CampaignSettingsResponse;
  @ApiProperty({ type: String, nullable: true, description: 'why a super admin rejected it', example: null }) declinedReason!: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'halt 10 only: 1 tps limit, 2 no contacts in time zone, 3 very low click rate, 4 no clicks, 5 pools without valid options, 6 low balance, 7 auto pause, 8 daily limit, 9 sender daily limit, 10 stream disabled, 11 account disabled',
    example: null,
  })
  haltReasonId!: number | null;
  @ApiProperty({ type: [String], description: 'malicious keywords the spam review found', example: [] }) spamKeywords!: string[];
  @ApiProperty({ type: CampaignStatsResponse }) stats!: CampaignStatsResponse;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'detail only, a sending campaign: when nothing is due now because of its sending hours, when its next waiting recipient is due (modes local, selected: the next window opening)',
    example: '2026-11-30T09:00:00.000Z',
  })
  waitingUntil?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'with waitingUntil: the time zone of that next recipient (its own, when known)', example: 'America/New_York' })
  waitingZone?: string | null;
}

export class ReviewedCampaignResponse extends CampaignResponse {
  @ApiProperty({ type: Number, example: 2 }) accountId!: number;
}

export class VariantStatsResponse extends CampaignVariantResponse {
  @ApiProperty({ type: CampaignStatsResponse }) stats!: CampaignStatsResponse;
}

export class SenderStatsResponse extends CampaignSenderResponse {
  @ApiProperty({ type: CampaignStatsResponse }) stats!: CampaignStatsResponse;
}

export class CampaignAnalyticsResponse {
  @ApiProperty({ type: Number, example: 5 }) id!: number;
  @ApiProperty({ type: Number, example: 7 }) status!: number;
  @ApiProperty({ type: CampaignStatsResponse }) stats!: CampaignStatsResponse;
  @ApiProperty({ type: [VariantStatsResponse] }) variants!: VariantStatsResponse[];
  @ApiProperty({ type: [SenderStatsResponse] }) senders!: SenderStatsResponse[];
}

export class TemplateVariantResponse {
  @ApiProperty({ type: Number, example: 4 }) id!: number;
  @ApiProperty({ type: Number, example: 2 }) template!: number;
  @ApiProperty({ type: String, example: 'Variant 1' }) name!: string;
  @ApiProperty({ type: String, example: '{Hi|Hello} {{firstName}}!' }) text!: string;
  @ApiProperty({ type: Number, example: 100 }) ratio!: number;
  @ApiProperty({ type: String, example: '#ff9600' }) color!: string;
}

export class TemplateResponse {
  @ApiProperty({ type: Number, example: 2 }) id!: number;
  @ApiProperty({ type: String, example: 'Welcome' }) name!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) description!: string | null;
  @ApiProperty({ type: [TemplateVariantResponse] }) variants!: TemplateVariantResponse[];
  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' }) createdAt!: string;
  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' }) updatedAt!: string;
}

export class WordResponse {
  @ApiProperty({ type: Number, example: 9 }) id!: number;
  @ApiProperty({ type: Number, example: 3 }) wordList!: number;
  @ApiProperty({ type: String, example: 'amazing' }) value!: string;
}

export class WordListResponse {
  @ApiProperty({ type: Number, example: 3 }) id!: number;
  @ApiProperty({ type: String, description: 'referenced from spintax as [[name]]', example: 'adjectives' }) name!: string;
  @ApiProperty({ type: [WordResponse] }) words!: WordResponse[];
  @ApiProperty({ type: String, example: '2026-11-25T16:39:53.829Z' }) createdAt!: string;
}

export class TagResponse {
  @ApiProperty({ type: Number, example: 2 }) id!: number;
  @ApiProperty({ type: String, example: 'black friday' }) value!: string;
}

export class VariableLinkParamsResponse {
  @ApiPropertyOptional({ type: [Number], example: [1] }) domains?: number[];
  @ApiPropertyOptional({ type: Number, nullable: true, example: null }) domain_pool?: number | null;
  @ApiPropertyOptional({ type: Number, nullable: true, example: 30 }) expired?: number | null;
  @ApiPropertyOptional({ type: Number, nullable: true, example: 4 }) offer?: number | null;
  @ApiPropertyOptional({ type: String, nullable: true, example: null }) section?: string | null;
  @ApiPropertyOptional({ type: Number, nullable: true, example: null }) id?: number | null;
}

export class CampaignVariableResponse {
  @ApiProperty({ type: Number, example: 8 }) id!: number;
  @ApiProperty({ type: Number, example: 5 }) campaign!: number;
  @ApiProperty({ type: Number, example: 2 }) variable!: number;
  @ApiProperty({ type: String, example: 'firstName' }) variableName!: string;
  @ApiProperty({ type: String, nullable: true, example: 'friend' }) defaultValue!: string | null;
  @ApiProperty({ enum: [0, 1], description: '0: skip the recipient without a value; 1: use the default value', example: 1 }) missingRule!: number;
  @ApiProperty({ type: VariableLinkParamsResponse, description: 'link variables (shorturl): domains, domain_pool, expired, offer, section, id' }) params!: VariableLinkParamsResponse;
}

export class SpintaxPreviewResponse {
  @ApiProperty({ type: [String], example: ['Hi {{firstName}}!', 'Hello {{firstName}}!'] }) samples!: string[];
  @ApiProperty({ type: Number, description: 'different texts the spintax gives', example: 2 }) combinations!: number;
  @ApiProperty({ type: [String], example: ['firstName'] }) variables!: string[];
  @ApiProperty({ type: String, description: 'the longest expansion, variables filled to their assumed lengths', example: 'Hello xxxxxxxxxxxxxxxxxxxx!' }) longest!: string;
  @ApiProperty({ type: Number, example: 27 }) maxLength!: number;
  @ApiProperty({ enum: ['GSM7', 'UCS2'], example: 'GSM7' }) encoding!: string;
  @ApiProperty({ type: Number, example: 1 }) segments!: number;
}

export class VarsMaxLengthItemResponse {
  @ApiProperty({ type: Number, nullable: true, description: 'the campaign variant (null for a text given in the query)', example: 11 }) variant!: number | null;
  @ApiProperty({ type: String, example: 'Variant 1' }) name!: string;
  @ApiProperty({ type: Number, example: 140 }) maxLength!: number;
  @ApiProperty({ enum: ['GSM7', 'UCS2'], example: 'GSM7' }) encoding!: string;
  @ApiProperty({ type: Number, example: 1 }) segments!: number;
}

export class VarsMaxLengthResponse {
  @ApiProperty({ type: [VarsMaxLengthItemResponse] }) items!: VarsMaxLengthItemResponse[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'the length assumed for each variable', example: { firstName: 20, shorturl: 30 } })
  variables!: Record<string, number>;
  @ApiProperty({ type: Number, description: 'the longest of the items', example: 140 }) maxLength!: number;
  @ApiProperty({ type: Number, example: 1 }) segments!: number;
}
