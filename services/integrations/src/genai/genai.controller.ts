import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Permission, type GenAiSettingsDto, type GenAiUsageRow, type GenAiVerifyAnswer } from '@switchboard/contracts';
import { ApiErrors, Permissions } from '@switchboard/platform';
import { GenAiSettingsInput, GenAiSettingsResponse, GenAiTextResponse, GenAiUsageResponse, GenAiVerifyInput, GenAiVerifyResponse, GenerateMessageInput, RephraseInput, RespondInput, SpintaxInput } from './genai.dto';
import { GenAiService } from './genai.service';
import { answerOrStream } from './stream-response';

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

const STREAMED =
  'With `Accept: application/x-ndjson` (or `text/event-stream`) the answer streams as the provider writes it: events ' +
  '`{"type":"text","text":...}`, then one `{"type":"done",...}` holding this JSON, or one `{"type":"error",code,message,status}` ' +
  '(docs/decisions/0050). Errors found before the first piece are the JSON errors below.';
/** Streamed or whole: the writing calls answer both ways. */
const Writes = () => ApiProduces('application/json', 'application/x-ndjson', 'text/event-stream');

/** The writing calls of the inbox composer and the campaign message step. */
@ApiTags('generative AI')
@ApiBearerAuth()
@Controller('inbox')
export class GenAiWritingController {
  constructor(private readonly genai: GenAiService) {}

  @ApiBody({ type: RephraseInput })
  @ApiOkResponse({ type: GenAiTextResponse, description: STREAMED })
  @Writes() @ProviderErrors()
  @Post('rephrase') @Permissions(P.InboxView, P.InboxAiAssistant) @HttpCode(200)
  rephrase(@Body() body: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    return answerOrStream(req, res, () => this.genai.rephrase(body), (signal) => this.genai.rephraseStream(body, signal));
  }

  @ApiBody({ type: GenerateMessageInput })
  @ApiOkResponse({ type: GenAiTextResponse, description: STREAMED })
  @Writes() @ProviderErrors()
  @Post('generate_message') @Permissions(P.InboxView, P.InboxAiAssistant) @HttpCode(200)
  generate(@Body() body: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    return answerOrStream(req, res, () => this.genai.generate(body), (signal) => this.genai.generateStream(body, signal));
  }

  @ApiParam({ name: 'id', type: String, description: 'the conversation uuid', example: '3f1c2b7e-8f7a-4a55-9d6c-0a4c6b2f9e11' })
  @ApiBody({ type: RespondInput })
  @ApiOkResponse({ type: GenAiTextResponse, description: STREAMED })
  @Writes() @ProviderErrors()
  @Post('respond/:id') @Permissions(P.InboxView, P.InboxAiAssistant) @HttpCode(200)
  respond(@Param('id') id: string, @Body() body: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    return answerOrStream(req, res, () => this.genai.respond(id, body), (signal) => this.genai.respondStream(id, body, signal));
  }

  @ApiBody({ type: SpintaxInput })
  @ApiOkResponse({ type: GenAiTextResponse, description: `only spintax the campaigns' parser reads; otherwise 422 E-GENAI_SPINTAX_INVALID (streamed: an error event after the text). ${STREAMED}` })
  @Writes() @ProviderErrors({ status: 422, code: 'E-GENAI_SPINTAX_INVALID', message: 'the AI\'s spintax does not parse or adds variables or word lists' })
  @Post('spintax') @Permissions(P.CampaignAddEdit) @HttpCode(200)
  spintax(@Body() body: unknown, @Req() req: Request, @Res() res: Response): Promise<void> {
    return answerOrStream(req, res, () => this.genai.spintax(body), (signal) => this.genai.spintaxStream(body, signal));
  }
}

export const GENAI_CONTROLLERS = [GenAiSettingsController, GenAiWritingController];
