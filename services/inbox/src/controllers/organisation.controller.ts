import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { Permission } from '@switchboard/contracts';
import { Permissions } from '@switchboard/platform';
import {
  AgentSchema,
  bodies,
  CannedSchema,
  DropdownSchema,
  GoalSchema,
  list,
  RoutingSchema,
  SenderProfileSchema,
  SpaceSchema,
  SwitchSpaceSchema,
  TagSchema,
  TeamSchema,
} from '../http/schemas';
import { OrganisationService } from '../services/organisation.service';

const P = Permission;
type Q = Record<string, unknown>;

export const Ok = (schema: SchemaObject) => ApiOkResponse({ schema });
export const Created = (schema: SchemaObject) => ApiCreatedResponse({ schema });
export const In = (schema: SchemaObject) => ApiBody({ schema });
const SpaceQuery = () => ApiQuery({ name: 'space', required: false, type: String, description: 'only this space (id or IRI)', example: '/api/spaces/1' });
const Gone = () => applyDecorators(ApiNoContentResponse({ description: 'deleted' }), HttpCode(204));

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('spaces')
export class SpacesController {
  constructor(private readonly org: OrganisationService) {}

  @Get() @Permissions(P.InboxView) @Ok(list(SpaceSchema))
  list(@Query() q: Q) { return this.org.listSpaceItems(q); }

  @Get('agent') @Permissions(P.InboxView) @Ok(list(SpaceSchema))
  agent(@Query() q: Q) { return this.org.listSpaceItems(q); }

  @Get('dropdown') @Permissions(P.InboxView) @Ok(DropdownSchema)
  async dropdown(@Query() q: Q) { return OrganisationService.dropdown(await this.org.listSpaceItems(q)); }

  @Get(':id') @Permissions(P.InboxView) @Ok(SpaceSchema)
  get(@Param('id') id: string) { return this.org.getSpace(id); }

  @Post() @Permissions(P.InboxAdmin) @In(bodies.space) @Created(SpaceSchema)
  create(@Body() b: unknown) { return this.org.createSpace(b); }

  @Put(':id') @Permissions(P.InboxAdmin) @In(bodies.space) @Ok(SpaceSchema)
  update(@Param('id') id: string, @Body() b: unknown) { return this.org.updateSpace(id, b); }

  @Delete(':id') @Permissions(P.InboxAdmin) @Gone()
  remove(@Param('id') id: string) { return this.org.removeSpace(id); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('inbox/space')
export class SpaceSwitchController {
  constructor(private readonly org: OrganisationService) {}

  @Post() @HttpCode(200) @Permissions(P.InboxView) @In(bodies.switchSpace) @Ok(SwitchSpaceSchema)
  switch(@Body() b: unknown) { return this.org.switchSpace(b); }

  @Put(':id') @Permissions(P.InboxAdmin) @In(bodies.spaceConfigure) @Ok(SwitchSpaceSchema)
  configure(@Param('id') id: string, @Body() b: unknown) { return this.org.configureSpace(id, b); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('teams')
export class TeamsController {
  constructor(private readonly org: OrganisationService) {}

  @Get() @Permissions(P.InboxView) @SpaceQuery() @Ok(list(TeamSchema))
  list(@Query() q: Q) { return this.org.listTeams(q); }

  @Get('dropdown') @Permissions(P.InboxView) @SpaceQuery() @Ok(DropdownSchema)
  async dropdown(@Query() q: Q) { return OrganisationService.dropdown(await this.org.listTeams(q)); }

  @Get('agent') @Permissions(P.InboxView) @SpaceQuery() @Ok(list(TeamSchema))
  agent(@Query() q: Q) { return this.org.listTeams(q, 'agent'); }

  @Get('manager') @Permissions(P.InboxView) @SpaceQuery() @Ok(list(TeamSchema))
  manager(@Query() q: Q) { return this.org.listTeams(q, 'manager'); }

  @Get(':id/agents') @Permissions(P.InboxView) @Ok(list(AgentSchema))
  agents(@Param('id') id: string) { return this.org.teamAgents(id); }

  @Get(':id') @Permissions(P.InboxView) @Ok(TeamSchema)
  get(@Param('id') id: string) { return this.org.getTeam(id); }

  @Post() @Permissions(P.InboxTeamManagement) @In(bodies.team) @Created(TeamSchema)
  create(@Body() b: unknown) { return this.org.createTeam(b); }

  @Put(':id') @Permissions(P.InboxTeamManagement) @In(bodies.team) @Ok(TeamSchema)
  update(@Param('id') id: string, @Body() b: unknown) { return this.org.updateTeam(id, b); }

  @Delete(':id') @Permissions(P.InboxTeamManagement) @Gone()
  remove(@Param('id') id: string) { return this.org.removeTeam(id); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('agents')
export class AgentsController {
  constructor(private readonly org: OrganisationService) {}

  @Get('manager') @Permissions(P.InboxView) @Ok(list(AgentSchema))
  manager(@Query() q: Q) { return this.org.managerAgents(q); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('conversation_tags')
export class TagsController {
  constructor(private readonly org: OrganisationService) {}

  @Get() @Permissions(P.InboxView) @SpaceQuery() @Ok(list(TagSchema))
  list(@Query() q: Q) { return this.org.listTags(q); }

  @Get('agent') @Permissions(P.InboxView) @SpaceQuery() @Ok(list(TagSchema))
  agent(@Query() q: Q) { return this.org.listTags(q); }

  @Get('dropdown') @Permissions(P.InboxView) @SpaceQuery() @Ok(DropdownSchema)
  async dropdown(@Query() q: Q) { return OrganisationService.dropdown(await this.org.listTags(q)); }

  @Get(':id') @Permissions(P.InboxView) @Ok(TagSchema)
  get(@Param('id') id: string) { return this.org.getTag(id); }

  @Post() @Permissions(P.InboxConversationTags) @In(bodies.tag) @Created(TagSchema)
  create(@Body() b: unknown) { return this.org.createTag(b); }

  @Put(':id') @Permissions(P.InboxConversationTags) @In(bodies.tag) @Ok(TagSchema)
  update(@Param('id') id: string, @Body() b: unknown) { return this.org.updateTag(id, b); }

  @Delete(':id') @Permissions(P.InboxConversationTags) @Gone()
  remove(@Param('id') id: string) { return this.org.removeTag(id); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('sender_profiles')
export class SenderProfilesController {
  constructor(private readonly org: OrganisationService) {}

  @Get() @Permissions(P.InboxView) @SpaceQuery() @Ok(list(SenderProfileSchema))
  list(@Query() q: Q) { return this.org.listProfiles(q); }

  @Get('dropdown') @Permissions(P.InboxView) @SpaceQuery() @Ok(DropdownSchema)
  async dropdown(@Query() q: Q) { return OrganisationService.dropdown(await this.org.listProfiles(q)); }

  @Get(':id') @Permissions(P.InboxView) @Ok(SenderProfileSchema)
  get(@Param('id') id: string) { return this.org.getProfile(id); }

  @Post() @Permissions(P.InboxSenderProfile) @In(bodies.senderProfile) @Created(SenderProfileSchema)
  create(@Body() b: unknown) { return this.org.createProfile(b); }

  @Put(':id') @Permissions(P.InboxSenderProfile) @In(bodies.senderProfile) @Ok(SenderProfileSchema)
  update(@Param('id') id: string, @Body() b: unknown) { return this.org.updateProfile(id, b); }

  @Delete(':id') @Permissions(P.InboxSenderProfile) @Gone()
  remove(@Param('id') id: string) { return this.org.removeProfile(id); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('canned_templates')
export class CannedTemplatesController {
  constructor(private readonly org: OrganisationService) {}

  @Get() @Permissions(P.InboxView) @SpaceQuery() @Ok(list(CannedSchema))
  list(@Query() q: Q) { return this.org.listCanned(q); }

  @Get(':id') @Permissions(P.InboxView) @Ok(CannedSchema)
  get(@Param('id') id: string) { return this.org.getCanned(id); }

  @Post() @Permissions(P.InboxCannedTemplates) @In(bodies.canned) @Created(CannedSchema)
  create(@Body() b: unknown) { return this.org.createCanned(b); }

  @Put(':id') @Permissions(P.InboxCannedTemplates) @In(bodies.canned) @Ok(CannedSchema)
  update(@Param('id') id: string, @Body() b: unknown) { return this.org.updateCanned(id, b); }

  @Delete(':id') @Permissions(P.InboxCannedTemplates) @Gone()
  remove(@Param('id') id: string) { return this.org.removeCanned(id); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('conversation_goals')
export class ConversationGoalsController {
  constructor(private readonly org: OrganisationService) {}

  @Get() @Permissions(P.InboxView) @SpaceQuery() @Ok(list(GoalSchema))
  list(@Query() q: Q) { return this.org.listGoals(q); }

  @Get(':id') @Permissions(P.InboxView) @Ok(GoalSchema)
  get(@Param('id') id: string) { return this.org.getGoal(id); }

  @Post() @Permissions(P.InboxConversationGoals) @In(bodies.goal) @Created(GoalSchema)
  create(@Body() b: unknown) { return this.org.createGoal(b); }

  @Put(':id') @Permissions(P.InboxConversationGoals) @In(bodies.goal) @Ok(GoalSchema)
  update(@Param('id') id: string, @Body() b: unknown) { return this.org.updateGoal(id, b); }

  @Delete(':id') @Permissions(P.InboxConversationGoals) @Gone()
  remove(@Param('id') id: string) { return this.org.removeGoal(id); }
}

@ApiTags('inbox organisation')
@ApiBearerAuth()
@Controller('incoming_routings')
export class IncomingRoutingsController {
  constructor(private readonly org: OrganisationService) {}

  @Get() @Permissions(P.InboxIncomingRouting) @SpaceQuery() @Ok(list(RoutingSchema))
  list(@Query() q: Q) { return this.org.listRoutings(q); }

  @Get(':id') @Permissions(P.InboxIncomingRouting) @Ok(RoutingSchema)
  get(@Param('id') id: string) { return this.org.getRouting(id); }

  @Post() @Permissions(P.InboxIncomingRouting) @In(bodies.routing) @Created(RoutingSchema)
  create(@Body() b: unknown) { return this.org.createRouting(b); }

  @Put(':id') @Permissions(P.InboxIncomingRouting) @In(bodies.routing) @Ok(RoutingSchema)
  update(@Param('id') id: string, @Body() b: unknown) { return this.org.updateRouting(id, b); }

  @Delete(':id') @Permissions(P.InboxIncomingRouting) @Gone()
  remove(@Param('id') id: string) { return this.org.removeRouting(id); }
}

export const ORGANISATION_CONTROLLERS = [
  SpacesController,
  SpaceSwitchController,
  TeamsController,
  AgentsController,
  TagsController,
  SenderProfilesController,
  CannedTemplatesController,
  ConversationGoalsController,
  IncomingRoutingsController,
];
