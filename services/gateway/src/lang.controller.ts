import * as fs from 'node:fs';
import * as path from 'node:path';
import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError, Public } from '@switchboard/platform';
import { GATEWAY_OPTIONS, type GatewayOptions } from './gateway.options';

/** A locale: two lowercase letters. Nothing else reaches the file system. */
const LOCALE = /^[a-z]{2}$/;

/**
 * GET /api/lang/{locale}.json (spec 7, "Static"): the console's translations for a locale, as the admin build wrote
 * them next to itself (apps/admin/dist/lang), Russian completed from English. Public: they are the texts of the login
 * page too. Answered by the gateway, which serves the admin build; without one it has no catalogue to give (404).
 */
@ApiTags('static')
@Controller('lang')
export class LangController {
  constructor(@Inject(GATEWAY_OPTIONS) private readonly options: GatewayOptions) {}

  @ApiOkResponse({ description: "the console's catalogue of the locale: nested keys to texts", schema: { type: 'object', additionalProperties: true, example: { ra: { action: { save: 'Save' } } } } })
  @ApiNotFoundResponse({ description: 'no catalogue for that locale', schema: { $ref: '#/components/schemas/ErrorBodySchema' } })
  @Get(':locale.json')
  @Public()
  catalogue(@Param('locale') locale: string, @Res() res: Response): void {
    const dir = this.options.adminDistDir;
    const target = LOCALE.test(locale) && dir ? path.join(path.resolve(dir), 'lang', `${locale}.json`) : null;
    if (!target || !fs.existsSync(target)) throw AppError.notFound(`translations for ${JSON.stringify(locale)}`);
    // revalidated on every load (ETag): a deploy changes the texts under the same name
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json').sendFile(target);
  }
}
