import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { GENAI_SERVICES, GENAI_TONES } from '@switchboard/contracts';

/** What the genai routes take and answer, for the OpenAPI document. Shapes: libs/contracts/src/genai.ts. */

export class GenAiProviderSettingsBody {
  @ApiProperty({ enum: GENAI_SERVICES, example: 'openai' })
  service!: string;

  @ApiProperty({ type: Boolean, description: 'a key is stored (it never comes back)', example: true })
  has_key!: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'null: the vendor\'s public endpoint', example: null })
  base_url!: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'gpt-4o-mini' })
  model!: string | null;

  @ApiProperty({ type: String, nullable: true, format: 'date-time', example: '2026-11-25T22:00:00.000Z' })
  verified_at!: string | null;
}

export class GenAiSettingsResponse {
  @ApiProperty({ enum: GENAI_SERVICES, nullable: true, description: 'the account\'s choice, else genSettings.default_generative_service', example: 'openai' })
  default_generative_service!: string | null;

  @ApiProperty({ type: Boolean, description: 'customSettings.allow_generative_ai', example: true })
  allow_generative_ai!: boolean;

  @ApiProperty({ type: Boolean, description: 'customSettings.allow_spintax_ai', example: true })
  allow_spintax_ai!: boolean;

  @ApiProperty({ type: [GenAiProviderSettingsBody] })
  providers!: GenAiProviderSettingsBody[];
}

export class GenAiSettingsInput {
  @ApiPropertyOptional({ enum: GENAI_SERVICES, example: 'openai' })
  default_generative_service?: string;

  @ApiPropertyOptional({ enum: GENAI_SERVICES, description: 'the provider whose key, base URL or model is set', example: 'openai' })
  service?: string;

  @ApiPropertyOptional({ type: String, description: 'checked with the vendor before it is stored; "" removes it; omitted keeps the stored one', example: 'sk-proj-abc123' })
  api_key?: string;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'an OpenAI-compatible server, a Gemini proxy, the Ollama host', example: 'https://api.openai.com/v1' })
  base_url?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'gpt-4o-mini' })
  model?: string | null;
}

export class GenAiVerifyInput {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'default: the stored one, else the vendor\'s', example: 'https://api.openai.com/v1' })
  base_url?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'gpt-4o-mini' })
  model?: string | null;
}

export class GenAiVerifyResponse {
  @ApiProperty({ type: Number, enum: [1], example: 1 })
  status!: 1;

  @ApiProperty({ enum: GENAI_SERVICES, example: 'openai' })
  service!: string;
}

class TokenUsageBody {
  @ApiProperty({ type: Number, example: 42 })
  input!: number;

  @ApiProperty({ type: Number, example: 18 })
  output!: number;
}

export class GenAiTextResponse {
  @ApiProperty({ type: String, example: 'Hi! Your parcel left our warehouse today and should arrive tomorrow.' })
  text!: string;

  @ApiProperty({ enum: GENAI_SERVICES, example: 'openai' })
  service!: string;

  @ApiProperty({ type: String, example: 'gpt-4o-mini' })
  model!: string;

  @ApiProperty({ type: TokenUsageBody })
  usage!: TokenUsageBody;
}

export class RephraseInput {
  @ApiProperty({ type: String, maxLength: 2000, example: 'ur parcel left today' })
  text!: string;

  @ApiProperty({ enum: GENAI_TONES, example: 'friendly' })
  tone!: string;

  @ApiPropertyOptional({ enum: GENAI_SERVICES, description: 'default: the account\'s default provider', example: 'openai' })
  service?: string;

  @ApiPropertyOptional({ type: String, description: 'the inbox space the call is made in (its id, a number or a string, or /api/spaces/{id}): the space\'s AI assistant permission applies (update_permissions)', example: '3' })
  space?: number | string;
}

export class GenerateMessageInput {
  @ApiProperty({ type: String, maxLength: 2000, example: 'remind about the 20% sale ending Friday' })
  idea!: string;

  @ApiPropertyOptional({ type: Number, minimum: 10, maximum: 1600, default: 160, example: 160 })
  max_length?: number;

  @ApiPropertyOptional({ enum: GENAI_SERVICES, example: 'openai' })
  service?: string;

  @ApiPropertyOptional({ type: String, description: 'the inbox space the call is made in (its id, a number or a string, or /api/spaces/{id}): the space\'s AI assistant permission applies (update_permissions)', example: '3' })
  space?: number | string;
}

export class RespondInput {
  @ApiProperty({ type: Number, example: 6 })
  conversation_goal_id!: number;

  @ApiProperty({ type: String, description: 'from POST /inbox/ai_context/{id} (the inbox), valid two minutes', example: 'ps1:q1w2e3r4t5y6u7i8o9p0' })
  context!: string;

  @ApiPropertyOptional({ enum: GENAI_SERVICES, example: 'openai' })
  service?: string;
}

export class SpintaxInput {
  @ApiProperty({ type: String, maxLength: 2000, example: 'Hi {{firstName}}, our sale ends Friday.' })
  text!: string;

  @ApiPropertyOptional({ enum: GENAI_SERVICES, example: 'openai' })
  service?: string;

  @ApiPropertyOptional({ type: String, description: 'the inbox space the call is made in (its id, a number or a string, or /api/spaces/{id}): the space\'s AI assistant permission applies (update_permissions)', example: '3' })
  space?: number | string;
}

export class GenAiUsageResponse {
  @ApiProperty({ type: String, format: 'date', example: '2026-11-25' })
  day!: string;

  @ApiProperty({ enum: GENAI_SERVICES, example: 'openai' })
  service!: string;

  @ApiProperty({ type: Number, example: 12 })
  requests!: number;

  @ApiProperty({ type: Number, example: 3400 })
  input_tokens!: number;

  @ApiProperty({ type: Number, example: 910 })
  output_tokens!: number;
}
