import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/**
 * Create and update (spec 3 Campaign). The service checks every field (libs: services/campaign.service.ts) and answers
 * 400 0x1 with one violation per refused field; on update a field left out keeps its value, and the lists given
 * (campaignVariants, campaignsSenders, campaignTags, contactLists) replace the campaign's.
 */
export class CampaignInputDto {
  @ApiPropertyOptional({ type: String, description: 'required on create', example: 'Black Friday' }) @Allow() name?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Weekend promotion' }) @Allow() description?: unknown;
  @ApiPropertyOptional({ type: Number, enum: [0, 1, 2, 3, 4], description: 'outbound 0 (default), inbound-outbound 1, transactional 2, whatsapp 3, telegram 4', example: 0 }) @Allow() type?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'ISO 3166 alpha-2', example: 'DE' }) @Allow() country?: unknown;
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'the stream id (or IRI /api/streams/1)', example: 1 }) @Allow() stream?: unknown;
  @ApiPropertyOptional({ type: Boolean, example: false }) @Allow() hasShortURL?: unknown;
  @ApiPropertyOptional({ type: Boolean, description: 'default false', example: false }) @Allow() unsubscribeAutoAdd?: unknown;
  @ApiPropertyOptional({ type: Boolean, description: 'default false', example: false }) @Allow() sendDuplicates?: unknown;
  @ApiPropertyOptional({ type: [Number], description: 'ready contact lists and segments', example: [3] }) @Allow() contactLists?: unknown;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', properties: { name: { type: 'string' }, text: { type: 'string' }, color: { type: 'string' }, ratio: { type: 'integer' } }, required: ['text'] },
    description: 'at least one, every one with text (spintax); ratios whole and totalling 100, or none for an even split',
    example: [{ name: 'A', text: '{Hi|Hello} {{firstName}}!', color: '#ff9600', ratio: 50 }, { name: 'B', text: 'Hey {{firstName}}!', ratio: 50 }],
  })
  @Allow()
  campaignVariants?: unknown;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', properties: { sender: { type: 'integer' }, ratio: { type: 'integer' } }, required: ['sender'] },
    description: 'senders with ratios totalling 100, or none for an even split',
    example: [{ sender: 7, ratio: 100 }],
  })
  @Allow()
  campaignsSenders?: unknown;
  @ApiPropertyOptional({ type: [Number], description: 'tag ids (campaign_tags)', example: [2] }) @Allow() campaignTags?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    properties: {
      working_hours: { type: 'object', nullable: true, properties: { start: { type: 'string' }, end: { type: 'string' } } },
      working_days: { type: 'array', items: { type: 'integer' } },
      timezone: { type: 'string', nullable: true },
      timezone_mode: { type: 'string', enum: ['recipient', 'local', 'selected'] },
      dates: { type: 'object', properties: { start: { type: 'string', nullable: true }, end: { type: 'string', nullable: true }, scheduled: { type: 'string', nullable: true } } },
    },
    example: { working_hours: { start: '09:00', end: '18:00' }, working_days: [1, 2, 3, 4, 5], timezone: null, timezone_mode: 'recipient', dates: { start: null, end: null, scheduled: null } },
  })
  @Allow()
  activityTime?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    properties: {
      max_domains_per_pool: { type: 'integer', nullable: true },
      auto_pause_after_messages: { type: 'integer', nullable: true },
      auto_pause_after_every_messages: { type: 'integer', nullable: true },
      ctr_indicators: { type: 'array', items: { type: 'number' } },
      metadata: { type: 'object', properties: { space: { type: 'string', nullable: true }, team: { type: 'string', nullable: true }, tags: { type: 'array', items: { type: 'string' } } } },
    },
    example: { max_domains_per_pool: null, auto_pause_after_messages: 5000, auto_pause_after_every_messages: null, ctr_indicators: [1, 3], metadata: { space: null, team: null, tags: [] } },
  })
  @Allow()
  campaignSettings?: unknown;
  @ApiPropertyOptional({ type: Number, description: 'update only: the status to move to (1 start or play, 0 start with a schedule, 3 pause, 4 abort)', example: 3 }) @Allow() status?: unknown;
}

export class CampaignIdDto {
  @ApiPropertyOptional({ type: Number, description: 'the campaign to duplicate', example: 5 }) @Allow() id?: unknown;
}

export class RatiosDto {
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, ratio: { type: 'integer' } } }, example: [{ id: 11, ratio: 70 }, { id: 12, ratio: 30 }] })
  @Allow()
  campaignVariants?: unknown;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, ratio: { type: 'integer' } } }, example: [{ id: 3, ratio: 100 }] })
  @Allow()
  campaignsSenders?: unknown;
}

export class RejectDto {
  @ApiPropertyOptional({ type: String, description: 'required: shown to the account as declinedReason', example: 'Gambling content is not allowed' }) @Allow() reason?: unknown;
}

export class StreamEventLinkDto {
  @ApiPropertyOptional({ type: Number, example: 5 }) @Allow() campaign_id?: unknown;
  @ApiPropertyOptional({ type: Number, example: 4 }) @Allow() stream_event_id?: unknown;
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'object', properties: { name: { type: 'string' }, text: { type: 'string' } } }],
    description: 'the variant: its name, or { name, text } (default: the stream event\'s name and text)',
    example: 'order_shipped',
  })
  @Allow()
  variant?: unknown;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'template placeholder -> contact variable', example: { '1': 'firstName' } }) @Allow() variables_mapping?: unknown;
}

export class SpintaxPreviewDto {
  @ApiPropertyOptional({ type: String, description: 'required: the spintax text', example: '{Hi|Hello} {{firstName}}!' }) @Allow() text?: unknown;
  @ApiPropertyOptional({ type: Number, description: 'samples wanted, 1 to 50 (default 5)', example: 5 }) @Allow() samples?: unknown;
}
