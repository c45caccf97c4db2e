import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Permission, type OfferDto, type OfferOptionDto } from '@switchboard/contracts';
import { ApiListResponse, Permissions, type ListResult } from '@switchboard/platform';
import { OfferInput } from '../dtos/inputs.dto';
import { OfferOptionResponse, OfferResponse } from '../dtos/responses.dto';
import { OfferService } from '../services/offer.service';

const P = Permission;
const body = (b: object): Record<string, unknown> => b as Record<string, unknown>;

@ApiTags('offers')
@ApiBearerAuth()
@Controller('offers')
export class OffersController {
  constructor(private readonly offers: OfferService) {}

  @ApiQuery({ name: 'state', type: String, required: false, description: 'disabled, active, expired or about_to_expire', example: 'active' })
  @ApiQuery({ name: 'name', type: String, required: false, description: 'name contains', example: 'spring' })
  @ApiListResponse(OfferResponse)
  @Get() @Permissions(P.UrlOfferView)
  list(@Query() q: Record<string, unknown>): Promise<ListResult<OfferDto>> { return this.offers.list(q); }

  @ApiListResponse(OfferOptionResponse, { description: 'offers a link may use: neither disabled nor expired' })
  @Get('dropdown') @Permissions(P.UrlOfferView)
  dropdown(): Promise<ListResult<OfferOptionDto>> { return this.offers.dropdown(); }

  @ApiOkResponse({ type: OfferResponse })
  @Get(':id') @Permissions(P.UrlOfferView)
  get(@Param('id') id: string): Promise<OfferDto> { return this.offers.get(id); }

  @ApiCreatedResponse({ type: OfferResponse })
  @Post() @Permissions(P.UrlOfferAddEdit)
  create(@Body() dto: OfferInput): Promise<OfferDto> { return this.offers.create(body(dto)); }

  @ApiOkResponse({ type: OfferResponse })
  @Put(':id') @Permissions(P.UrlOfferAddEdit)
  update(@Param('id') id: string, @Body() dto: OfferInput): Promise<OfferDto> { return this.offers.update(id, body(dto)); }

  @Delete(':id') @Permissions(P.UrlOfferRemove) @HttpCode(204)
  remove(@Param('id') id: string): Promise<void> { return this.offers.remove(id); }
}
