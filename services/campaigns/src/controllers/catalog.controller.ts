import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission } from '@switchboard/contracts';
import { ApiErrors, ApiListResponse, Permissions } from '@switchboard/platform';
import {
  CampaignSenderInputDto,
  CampaignVariableInputDto,
  CampaignVariantInputDto,
  SpintaxPreviewDto,
  TagInputDto,
  TemplateInputDto,
  VariantInputDto,
  WordInputDto,
  WordListInputDto,
} from '../dtos/campaign.dto';
import {
  CampaignSenderResponse,
  CampaignVariableResponse,
  CampaignVariantResponse,
  SpintaxPreviewResponse,
  TagResponse,
  TemplateResponse,
  TemplateVariantResponse,
  VarsMaxLengthResponse,
  WordListResponse,
  WordResponse,
} from '../dtos/responses.dto';
import { CampaignPartsService } from '../services/campaign-parts.service';
import { TemplateService } from '../services/template.service';

const P = Permission;
type Q = Record<string, unknown>;
const NOT_ALLOWED = { status: 409, code: 'CAMPAIGN_ACTION_NOT_ALLOWED', message: 'a campaign that is started (1) cannot edit' };

/** Registered before CampaignsController: its static paths sit beside `campaigns/:id`. */
@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaigns')
export class CampaignToolsController {
  constructor(private readonly parts: CampaignPartsService) {}

  @ApiOkResponse({ type: SpintaxPreviewResponse, description: 'samples of a spintax text (the same ones for the same text), or 400 0x1 naming the position of bad syntax' })
  @Post('spintax_preview') @Permissions(P.CampaignView) @HttpCode(200)
  preview(@Body() dto: SpintaxPreviewDto) { return this.parts.preview(dto as Q); }

  @ApiQuery({ name: 'campaign', type: Number, required: false, description: 'every variant of this campaign', example: 5 })
  @ApiQuery({ name: 'text', type: String, required: false, description: 'or one text', example: '{Hi|Hello} {{firstName}}' })
  @ApiOkResponse({ type: VarsMaxLengthResponse, description: 'the longest message each variant can make, in characters and segments' })
  @Get('get_vars_max_length') @Permissions(P.CampaignView)
  varsMaxLength(@Query() q: Q) { return this.parts.varsMaxLength(q); }

  @ApiListResponse(CampaignVariableResponse)
  @Get(':id/variables') @Permissions(P.CampaignView)
  variables(@Param('id') id: string) { return this.parts.campaignVariables(id); }
}

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaigns_variables')
export class CampaignVariablesController {
  constructor(private readonly parts: CampaignPartsService) {}

  @ApiQuery({ name: 'campaign', type: Number, required: false, example: 5 })
  @ApiListResponse(CampaignVariableResponse)
  @Get() @Permissions(P.CampaignView)
  list(@Query() q: Q) { return this.parts.listVariables(q); }

  @ApiOkResponse({ type: CampaignVariableResponse })
  @Get(':id') @Permissions(P.CampaignView)
  get(@Param('id') id: string) { return this.parts.getVariable(id); }

  @ApiCreatedResponse({ type: CampaignVariableResponse })
  @ApiErrors(NOT_ALLOWED)
  @Post() @Permissions(P.CampaignAddEdit)
  create(@Body() dto: CampaignVariableInputDto) { return this.parts.createVariable(dto as Q); }

  @ApiOkResponse({ type: CampaignVariableResponse })
  @ApiErrors(NOT_ALLOWED)
  @Put(':id') @Permissions(P.CampaignAddEdit)
  update(@Param('id') id: string, @Body() dto: CampaignVariableInputDto) { return this.parts.updateVariable(id, dto as Q); }

  @ApiErrors(NOT_ALLOWED)
  @Delete(':id') @Permissions(P.CampaignAddEdit) @HttpCode(204)
  remove(@Param('id') id: string) { return this.parts.removeVariable(id); }
}

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaigns_senders')
export class CampaignSendersController {
  constructor(private readonly parts: CampaignPartsService) {}

  @ApiQuery({ name: 'campaign', type: Number, required: false, example: 5 })
  @ApiListResponse(CampaignSenderResponse)
  @Get() @Permissions(P.CampaignView)
  list(@Query() q: Q) { return this.parts.listSenders(q); }

  @ApiOkResponse({ type: CampaignSenderResponse })
  @Get(':id') @Permissions(P.CampaignView)
  get(@Param('id') id: string) { return this.parts.getSender(id); }

  @ApiCreatedResponse({ type: CampaignSenderResponse })
  @ApiErrors(NOT_ALLOWED)
  @Post() @Permissions(P.CampaignAddEdit)
  create(@Body() dto: CampaignSenderInputDto) { return this.parts.createSender(dto as Q); }

  @ApiOkResponse({ type: CampaignSenderResponse })
  @ApiErrors(NOT_ALLOWED)
  @Put(':id') @Permissions(P.CampaignAddEdit)
  update(@Param('id') id: string, @Body() dto: CampaignSenderInputDto) { return this.parts.updateSender(id, dto as Q); }

  @ApiErrors(NOT_ALLOWED)
  @Delete(':id') @Permissions(P.CampaignAddEdit) @HttpCode(204)
  remove(@Param('id') id: string) { return this.parts.removeSender(id); }
}

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaign_variants')
export class CampaignVariantsController {
  constructor(private readonly parts: CampaignPartsService) {}

  @ApiQuery({ name: 'campaign', type: Number, required: false, example: 5 })
  @ApiListResponse(CampaignVariantResponse)
  @Get() @Permissions(P.CampaignView)
  list(@Query() q: Q) { return this.parts.listVariants(q); }

  @ApiOkResponse({ type: CampaignVariantResponse })
  @Get(':id') @Permissions(P.CampaignView)
  get(@Param('id') id: string) { return this.parts.getVariant(id); }

  @ApiCreatedResponse({ type: CampaignVariantResponse })
  @ApiErrors(NOT_ALLOWED)
  @Post() @Permissions(P.CampaignAddEdit)
  create(@Body() dto: CampaignVariantInputDto) { return this.parts.createVariant(dto as Q); }

  @ApiOkResponse({ type: CampaignVariantResponse })
  @ApiErrors(NOT_ALLOWED)
  @Put(':id') @Permissions(P.CampaignAddEdit)
  update(@Param('id') id: string, @Body() dto: CampaignVariantInputDto) { return this.parts.updateVariant(id, dto as Q); }

  @ApiErrors(NOT_ALLOWED)
  @Delete(':id') @Permissions(P.CampaignAddEdit) @HttpCode(204)
  remove(@Param('id') id: string) { return this.parts.removeVariant(id); }
}

@ApiTags('campaigns')
@ApiBearerAuth()
@Controller('campaign_tags')
export class CampaignTagsController {
  constructor(private readonly templates: TemplateService) {}

  @ApiQuery({ name: 'value', type: String, required: false, description: 'value contains', example: 'friday' })
  @ApiListResponse(TagResponse)
  @Get() @Permissions(P.CampaignView)
  list(@Query() q: Q) { return this.templates.listTags(q); }

  @ApiQuery({ name: 'value', type: String, required: false, description: 'value contains', example: 'fri' })
  @ApiListResponse(TagResponse, { description: 'every tag of the account (up to 2000), by value' })
  @Get('dropdown') @Permissions(P.CampaignView)
  dropdown(@Query() q: Q) { return this.templates.listTags(q, true); }

  @ApiOkResponse({ type: TagResponse })
  @Get(':id') @Permissions(P.CampaignView)
  get(@Param('id') id: string) { return this.templates.getTag(id); }

  @ApiCreatedResponse({ type: TagResponse, description: 'the new tag, or the existing one with the same value' })
  @Post() @Permissions(P.CampaignAddEdit)
  create(@Body() dto: TagInputDto) { return this.templates.createTag(dto as Q); }

  @ApiOkResponse({ type: TagResponse })
  @Put(':id') @Permissions(P.CampaignAddEdit)
  update(@Param('id') id: string, @Body() dto: TagInputDto) { return this.templates.updateTag(id, dto as Q); }

  @Delete(':id') @Permissions(P.CampaignRemove) @HttpCode(204)
  remove(@Param('id') id: string) { return this.templates.removeTag(id); }
}

@ApiTags('templates')
@ApiBearerAuth()
@Controller('templates')
export class TemplatesController {
  constructor(private readonly templates: TemplateService) {}

  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'welcome' })
  @ApiListResponse(TemplateResponse)
  @Get() @Permissions(P.TemplateView)
  list(@Query() q: Q) { return this.templates.listTemplates(q); }

  @ApiOkResponse({ type: TemplateResponse })
  @Get(':id') @Permissions(P.TemplateView)
  get(@Param('id') id: string) { return this.templates.getTemplate(id); }

  @ApiListResponse(TemplateVariantResponse)
  @Get(':id/variants') @Permissions(P.TemplateView)
  variants(@Param('id') id: string) { return this.templates.templateVariants(id); }

  @ApiCreatedResponse({ type: TemplateResponse })
  @Post() @Permissions(P.TemplateAddEdit)
  create(@Body() dto: TemplateInputDto) { return this.templates.createTemplate(dto as Q); }

  @ApiCreatedResponse({ type: TemplateResponse, description: 'a copy named "copy X" with the same variants' })
  @Post(':id/copy') @Permissions(P.TemplateAddEdit)
  copy(@Param('id') id: string) { return this.templates.copyTemplate(id); }

  @ApiOkResponse({ type: TemplateResponse })
  @Put(':id') @Permissions(P.TemplateAddEdit)
  update(@Param('id') id: string, @Body() dto: TemplateInputDto) { return this.templates.updateTemplate(id, dto as Q); }

  @Delete(':id') @Permissions(P.TemplateRemove) @HttpCode(204)
  remove(@Param('id') id: string) { return this.templates.removeTemplate(id); }
}

@ApiTags('templates')
@ApiBearerAuth()
@Controller('variants')
export class VariantsController {
  constructor(private readonly templates: TemplateService) {}

  @ApiQuery({ name: 'template', type: Number, required: false, example: 2 })
  @ApiListResponse(TemplateVariantResponse)
  @Get() @Permissions(P.TemplateView)
  list(@Query() q: Q) { return this.templates.listVariants(q); }

  @ApiOkResponse({ type: TemplateVariantResponse })
  @Get(':id') @Permissions(P.TemplateView)
  get(@Param('id') id: string) { return this.templates.getVariant(id); }

  @ApiCreatedResponse({ type: TemplateVariantResponse })
  @Post() @Permissions(P.TemplateAddEdit)
  create(@Body() dto: VariantInputDto) { return this.templates.createVariant(dto as Q); }

  @ApiOkResponse({ type: TemplateVariantResponse })
  @Put(':id') @Permissions(P.TemplateAddEdit)
  update(@Param('id') id: string, @Body() dto: VariantInputDto) { return this.templates.updateVariant(id, dto as Q); }

  @Delete(':id') @Permissions(P.TemplateRemove) @HttpCode(204)
  remove(@Param('id') id: string) { return this.templates.removeVariant(id); }
}

@ApiTags('templates')
@ApiBearerAuth()
@Controller('word_lists')
export class WordListsController {
  constructor(private readonly templates: TemplateService) {}

  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'greet' })
  @ApiListResponse(WordListResponse)
  @Get() @Permissions(P.TemplateView)
  list(@Query() q: Q) { return this.templates.listWordLists(q); }

  @ApiOkResponse({ type: WordListResponse })
  @Get(':id') @Permissions(P.TemplateView)
  get(@Param('id') id: string) { return this.templates.getWordList(id); }

  @ApiCreatedResponse({ type: WordListResponse })
  @Post() @Permissions(P.TemplateAddEdit)
  create(@Body() dto: WordListInputDto) { return this.templates.createWordList(dto as Q); }

  @ApiOkResponse({ type: WordListResponse })
  @Put(':id') @Permissions(P.TemplateAddEdit)
  update(@Param('id') id: string, @Body() dto: WordListInputDto) { return this.templates.updateWordList(id, dto as Q); }

  @Delete(':id') @Permissions(P.TemplateRemove) @HttpCode(204)
  remove(@Param('id') id: string) { return this.templates.removeWordList(id); }
}

@ApiTags('templates')
@ApiBearerAuth()
@Controller('words')
export class WordsController {
  constructor(private readonly templates: TemplateService) {}

  @ApiQuery({ name: 'wordList', type: Number, required: false, example: 3 })
  @ApiListResponse(WordResponse)
  @Get() @Permissions(P.TemplateView)
  list(@Query() q: Q) { return this.templates.listWords(q); }

  @ApiOkResponse({ type: WordResponse })
  @Get(':id') @Permissions(P.TemplateView)
  get(@Param('id') id: string) { return this.templates.getWord(id); }

  @ApiCreatedResponse({ type: WordResponse })
  @Post() @Permissions(P.TemplateAddEdit)
  create(@Body() dto: WordInputDto) { return this.templates.createWord(dto as Q); }

  @ApiOkResponse({ type: WordResponse })
  @Put(':id') @Permissions(P.TemplateAddEdit)
  update(@Param('id') id: string, @Body() dto: WordInputDto) { return this.templates.updateWord(id, dto as Q); }

  @Delete(':id') @Permissions(P.TemplateRemove) @HttpCode(204)
  remove(@Param('id') id: string) { return this.templates.removeWord(id); }
}
