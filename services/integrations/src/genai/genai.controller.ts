import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type GenAiSettingsDto, type GenAiTextAnswer, type GenAiUsageRow, type GenAiVerifyAnswer } from '@switchboard/contracts';
import { ApiErrors, Permissions } from '@switchboard/platform';
import { GenAiSettingsInput, GenAiSettingsResponse, GenAiTextResponse, GenAiUsageResponse, GenAiVerifyInput, GenAiVerifyResponse, GenerateMessageInput, RephraseInput, RespondInput, SpintaxInput } from './genai.dto';
import { GenAiService } from './genai.service';

const P = Permission;
type DocumentedError = Parameters<typeof ApiErrors>[0];
const ProviderErrors = (...more: DocumentedError[]) =>
  ApiErrors(
    { status: 400, code: 'E-0159', message: 'invalid token: the provider refused the key' },
    { status: 403, code: 'E-GENAI_DISABLED', message: 'allow_generative_ai (allow_spintax_ai for spintax) is off for the account' },
    { status: 409, code: 'E-GENAI_NOT_CONFIGURED', message: 'no provider chosen, or the chosen one has no key' },
    { status: 422, code: 'E-GENAI_REJECTED', message: 'the provider refused the request (an unknown model, a blocked prompt)' },
    { status: 429, code: 'TOO_MANY_REQUESTS', message: 'the provider\'s rate limit or quota' },
    { status: 502, code: 'E-GENAI_UNAVAILABLE', message: 'the provider is down or answered outside its format' },
    { status: 504, code: 'E-CONNECTION_TIMEOUT', message: 'the provider did not answer in time' },
    ...more,
  );

/** The account's AI settings, the key check and the usage (docs/decisions/0041-generative-ai.md). */
@ApiTags('generative AI')
@ApiBearerAuth()
@Controller('genai')
export class GenAiSettingsController {
  constructor(private readonly genai: GenAiService) {}

  @ApiOkResponse({ type: GenAiSettingsResponse })
  @Get('settings') @Permissions(P.SettingsView)
  settings(): Promise<GenAiSettingsDto> { return this.genai.settings(); }

  @ApiBody({ type: GenAiSettingsInput })
  @ApiOkResponse({ type: GenAiSettingsResponse, description: 'a new key is checked with the vendor first; refused: E-0159 "invalid token", nothing stored' })
  @ProviderErrors()
  @Post('settings') @Permissions(P.SettingsEdit) @HttpCode(200)
  save(@Body() body: unknown): Promise<GenAiSettingsDto> { return this.genai.saveSettings(body); }

  @ApiParam({ name: 'service', enum: ['openai', 'gemini', 'ollama'], example: 'openai' })
  @ApiParam({ name: 'token', type: String, description: 'the key to check ("-" for an Ollama without one); redacted from logs', example: 'sk-proj-abc123' })
  @ApiBody({ type: GenAiVerifyInput, required: false })
  @ApiOkResponse({ type: GenAiVerifyResponse })
  @ProviderErrors()
  @Post('verify/:service/:token') @Permissions(P.SettingsEdit) @HttpCode(200)
  verify(@Param('service') service: string, @Param('token') token: string, @Body() body: unknown): Promise<GenAiVerifyAnswer> { return this.genai.verify(service, token, body); }

  @ApiQuery({ name: 'start', type: String, required: false, description: 'first UTC day (default: 29 days before end)', example: '2026-11-01' })
  @ApiQuery({ name: 'end', type: String, required: false, description: 'last UTC day (default: today)', example: '2026-11-25' })
  @ApiOkResponse({ type: [GenAiUsageResponse], description: 'tokens per provider and day' })
  @Get('usage') @Permissions(P.SettingsView)
  usage(@Query() q: Record<string, unknown>): Promise<GenAiUsageRow[]> { return this.genai.usage(q); }
}

/** The writing calls of the inbox composer and the campaign message step. */
@ApiTags('generative AI')
@ApiBearerAuth()
@Controller('inbox')
export class GenAiWritingController {
  constructor(private readonly genai: GenAiService) {}

  @ApiBody({ type: RephraseInput })
  @ApiOkResponse({ type: GenAiTextResponse })
  @ProviderErrors()
  @Post('rephrase') @Permissions(P.InboxView, P.InboxAiAssistant) @HttpCode(200)
  rephrase(@Body() body: unknown): Promise<GenAiTextAnswer> { return this.genai.rephrase(body); }

  @ApiBody({ type: GenerateMessageInput })
  @ApiOkResponse({ type: GenAiTextResponse })
  @ProviderErrors()
  @Post('generate_message') @Permissions(P.InboxView, P.InboxAiAssistant) @HttpCode(200)
  generate(@Body() body: unknown): Promise<GenAiTextAnswer> { return this.genai.generate(body); }

  @ApiParam({ name: 'id', type: String, description: 'the conversation uuid', example: '3f1c2b7e-8f7a-4a55-9d6c-0a4c6b2f9e11' })
  @ApiBody({ type: RespondInput })
  @ApiOkResponse({ type: GenAiTextResponse })
  @ProviderErrors()
  @Post('respond/:id') @Permissions(P.InboxView, P.InboxAiAssistant) @HttpCode(200)
  respond(@Param('id') id: string, @Body() body: unknown): Promise<GenAiTextAnswer> { return this.genai.respond(id, body); }

  @ApiBody({ type: SpintaxInput })
  @ApiOkResponse({ type: GenAiTextResponse, description: 'only spintax the campaigns\' parser reads; otherwise 422 E-GENAI_SPINTAX_INVALID' })
  @ProviderErrors({ status: 422, code: 'E-GENAI_SPINTAX_INVALID', message: 'the AI\'s spintax does not parse or adds variables or word lists' })
  @Post('spintax') @Permissions(P.CampaignAddEdit) @HttpCode(200)
  spintax(@Body() body: unknown): Promise<GenAiTextAnswer> { return this.genai.spintax(body); }
}

export const GENAI_CONTROLLERS = [GenAiSettingsController, GenAiWritingController];
