import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/** The link params of a short URL or opt-out variable, as the OpenAPI document describes them. */
const LINK_PARAMS_SCHEMA = {
  type: 'object' as const,
  properties: {
    domains: { type: 'array' as const, items: { type: 'integer' as const } },
    domain_pool: { type: 'integer' as const, nullable: true },
    expired: { type: 'integer' as const, nullable: true },
    offer: { type: 'integer' as const, nullable: true },
    section: { type: 'string' as const, nullable: true },
    id: { type: 'integer' as const, nullable: true },
  },
};

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
  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'object',
      properties: {
        variable: { type: 'integer' },
        variableName: { type: 'string' },
        defaultValue: { type: 'string', nullable: true },
        missingRule: { type: 'integer', enum: [0, 1] },
        params: { ...LINK_PARAMS_SCHEMA, description: 'link params of a short URL or opt-out variable (absent: kept)' },
      },
      required: ['variable'],
    },
    description: 'the campaign variable links to set (by variable; others are kept, link params kept unless given): missingRule 0 skips a recipient without a value, 1 uses defaultValue (then required)',
    example: [{ variable: 2, variableName: 'firstName', defaultValue: 'friend', missingRule: 1 }],
  })
  @Allow()
  campaignVariables?: unknown;
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
  @ApiPropertyOptional({
    type: 'array',
    items: {
      type: 'object',
      properties: {
        variable: { type: 'integer' },
        variableName: { type: 'string' },
        defaultValue: { type: 'string', nullable: true },
        missingRule: { type: 'integer', enum: [0, 1] },
        params: { ...LINK_PARAMS_SCHEMA, description: 'link params of a short URL or opt-out variable (absent: kept)' },
      },
      required: ['variable'],
    },
    description: 'the campaign variable links to set (by variable; others are kept, link params kept unless given): missingRule 0 skips a recipient without a value, 1 uses defaultValue (then required)',
    example: [{ variable: 2, variableName: 'firstName', defaultValue: 'friend', missingRule: 1 }],
  })
  @Allow()
  campaignVariables?: unknown;
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

const VARIANTS_EXAMPLE = [{ name: 'Variant 1', text: '{Hi|Hello} {{firstName}}!', ratio: 100, color: '#ff9600' }];

export class TemplateInputDto {
  @ApiPropertyOptional({ type: String, description: 'required on create', example: 'Welcome' }) @Allow() name?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'First message to new contacts' }) @Allow() description?: unknown;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', properties: { name: { type: 'string' }, text: { type: 'string' }, ratio: { type: 'integer' }, color: { type: 'string' } }, required: ['text'] },
    description: 'replaces the variants: at least one, each with text; ratios totalling 100 or none (even split)',
    example: VARIANTS_EXAMPLE,
  })
  @Allow()
  variants?: unknown;
}

export class VariantInputDto {
  @ApiPropertyOptional({ type: Number, description: 'the template (create only)', example: 2 }) @Allow() template?: unknown;
  @ApiPropertyOptional({ type: String, example: 'Variant 2' }) @Allow() name?: unknown;
  @ApiPropertyOptional({ type: String, description: 'required on create; spintax', example: 'Hey {{firstName}}, [[greetings]]!' }) @Allow() text?: unknown;
  @ApiPropertyOptional({ type: Number, example: 50 }) @Allow() ratio?: unknown;
  @ApiPropertyOptional({ type: String, example: '#3b82f6' }) @Allow() color?: unknown;
}

export class CampaignVariantInputDto {
  @ApiPropertyOptional({ type: Number, description: 'the campaign (create only)', example: 5 }) @Allow() campaign?: unknown;
  @ApiPropertyOptional({ type: String, example: 'Variant 2' }) @Allow() name?: unknown;
  @ApiPropertyOptional({ type: String, description: 'required on create; spintax', example: 'Hey {{firstName}}!' }) @Allow() text?: unknown;
  @ApiPropertyOptional({ type: Number, example: 50 }) @Allow() ratio?: unknown;
  @ApiPropertyOptional({ type: String, example: '#3b82f6' }) @Allow() color?: unknown;
}

export class WordListInputDto {
  @ApiPropertyOptional({ type: String, description: 'required on create; spintax refers to it as [[name]]', example: 'greetings' }) @Allow() name?: unknown;
  @ApiPropertyOptional({ type: [String], description: 'replaces the words', example: ['cheers', 'thanks'] }) @Allow() words?: unknown;
}

export class WordInputDto {
  @ApiPropertyOptional({ type: Number, description: 'the word list (create only)', example: 3 }) @Allow() wordList?: unknown;
  @ApiPropertyOptional({ type: String, example: 'cheers' }) @Allow() value?: unknown;
}

export class TagInputDto {
  @ApiPropertyOptional({ type: String, description: 'at most 64 characters', example: 'black friday' }) @Allow() value?: unknown;
}

export class CampaignVariableInputDto {
  @ApiPropertyOptional({ type: Number, description: 'the campaign (create only)', example: 5 }) @Allow() campaign?: unknown;
  @ApiPropertyOptional({ type: Number, description: 'the contact variable id (contacts service)', example: 2 }) @Allow() variable?: unknown;
  @ApiPropertyOptional({ type: String, description: 'the name written in the text as {{name}} (known for standard variables)', example: 'firstName' }) @Allow() variableName?: unknown;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'friend' }) @Allow() defaultValue?: unknown;
  @ApiPropertyOptional({ type: Number, enum: [0, 1], description: '0 (default): skip a recipient without a value; 1: use defaultValue', example: 1 }) @Allow() missingRule?: unknown;
  @ApiPropertyOptional({
    ...LINK_PARAMS_SCHEMA,
    description: 'link variables (shorturl, optout)',
    example: { domains: [1], domain_pool: null, expired: 30, offer: 4 },
  })
  @Allow()
  params?: unknown;
}

export class CampaignSenderInputDto {
  @ApiPropertyOptional({ type: Number, description: 'the campaign (create only)', example: 5 }) @Allow() campaign?: unknown;
  @ApiPropertyOptional({ type: Number, description: 'the sender (create only)', example: 7 }) @Allow() sender?: unknown;
  @ApiPropertyOptional({ type: Number, description: 'whole percent (default on create: what is left of 100)', example: 50 }) @Allow() ratio?: unknown;
}
