import type { INestApplication } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ParameterObject, ResponseObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ACCESS_KEY, API_ERRORS_KEY, ErrorBodySchema, ViolationSchema, type AccessRule, type DocumentedError } from '@switchboard/platform';

const ERROR_REF = { $ref: '#/components/schemas/ErrorBodySchema' };
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The OpenAPI document served at /api/docs.json: every mounted controller as @nestjs/swagger describes it, then
 * completed here with what each route's access rule implies (the bearer scheme, 401 and 403 answers), 400 for
 * routes that take input, 404 for routes with an id, each route's own errors (@ApiErrors), the list parameters of
 * list routes, and examples for path parameters. Every error has the one shape of ErrorBodySchema.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Switchboard API')
    .setDescription(
      'Multi-tenant business messaging. Console routes take `Authorization: Bearer <access token>` (from `POST /api/login/manual` ' +
        'or `POST /api/api_keys/token`); the stream API (`/api/streams/messages`, `/api/streams/otp/*`) takes the stream token ' +
        'as the whole `Authorization` header. Lists take `page`, `itemsPerPage` and `order[field]=asc|desc` and answer `{ items, total }`. ' +
        'Every error answers `{ code, message, status, violations? }` (ErrorBodySchema).',
    )
    .setVersion('0.2.0')
    .addBearerAuth()
    .build();
  const doc = SwaggerModule.createDocument(app, config, { extraModels: [ErrorBodySchema, ViolationSchema] });
  const handlers = routeMetadata(app);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as Method[]) {
      const op = item[method];
      if (!op) continue;
      const meta = op.operationId ? handlers.get(op.operationId) : undefined;
      complete(path, method, op, meta?.rule, meta?.errors ?? [], firstField(doc, op));
    }
  }
  return doc;
}

function complete(path: string, method: Method, op: OperationObject, rule: AccessRule | undefined, own: DocumentedError[], field: string): void {
  const params = (op.parameters ?? []) as ParameterObject[];
  for (const p of params) {
    if (p.in === 'path' && p.example === undefined && (p.schema as SchemaObject | undefined)?.example === undefined) p.example = pathExample(p.name);
  }
  if (method === 'get' && isList(op) && !params.some((p) => p.name === 'page')) {
    params.push(
      { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 }, example: 1, description: 'the page, from 1' },
      { name: 'itemsPerPage', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 2000, default: 25 }, example: 25 },
      {
        name: 'order[id]',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
        example: 'desc',
        description: 'sort order; `order[<field>]` for the other sortable fields of the list (an unknown field is a 400)',
      },
    );
  }
  if (params.length) op.parameters = params;

  const errors: DocumentedError[] = [];
  const streamApi = params.some((p) => p.in === 'header' && p.name === 'Authorization');
  if (op.requestBody || params.some((p) => p.in !== 'header')) errors.push({ status: 400, code: '0x1', message: 'request validation failed' });
  if (streamApi) {
    errors.push({ status: 401, code: '0x11', message: 'authentication required' }, { status: 401, code: '0x12', message: 'invalid token' }, { status: 403, code: '0x13', message: 'your IP address is not allowed to use this stream' });
  } else if (rule?.kind === 'public') {
    // public routes (login, invites, health, the API key exchange) take no access token, whatever their controller says
    op.security = [];
  } else if (rule) {
    op.security ??= [{ bearer: [] }];
    errors.push({ status: 401, code: '0x11', message: 'authentication required' }, { status: 401, code: '0x14', message: 'invalid or expired access token' });
    if (rule.kind === 'superAdmin') errors.push({ status: 403, code: 'NO_PERMISSIONS', message: 'super administrators only' });
    else if (rule.kind === 'permissions') errors.push({ status: 403, code: 'NO_PERMISSIONS', message: `needs the permission ${rule.permissions.join(', ')}` });
    else if (rule.accountRequired) errors.push({ status: 403, code: 'NO_PERMISSIONS', message: 'choose an account first' });
    if (rule.kind === 'permissions') op.description = [op.description, `Permission: \`${rule.permissions.join('`, `')}\`.`].filter(Boolean).join('\n\n');
    if (rule.kind === 'superAdmin') op.description = [op.description, 'Super administrators only.'].filter(Boolean).join('\n\n');
  }
  if (/\{[^}]+\}/.test(path)) errors.push({ status: 404, code: 'NOT_FOUND', message: 'not found' });
  errors.push(...own);

  const byStatus = new Map<number, DocumentedError[]>();
  for (const e of errors) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []).filter((x) => x.code !== e.code), e]);
  for (const [status, list] of byStatus) {
    const key = String(status);
    if (op.responses[key] && (op.responses[key] as ResponseObject).content) continue;
    const examples: Record<string, { summary: string; value: unknown }> = {};
    for (const e of list) {
      examples[String(e.code)] = {
        summary: e.message,
        value: { code: e.code, message: e.message, status, ...(e.code === '0x1' ? { violations: [violationExample(field)] } : {}) },
      };
    }
    op.responses[key] = {
      description: list.map((e) => `\`${e.code}\` ${e.message}`).join('; '),
      content: { 'application/json': { schema: ERROR_REF, examples } },
    };
  }
}

/** The field a 400 example names: the body's first required field, else the first parameter's name. */
function firstField(doc: OpenAPIObject, op: OperationObject): string {
  const body = (op.requestBody as { content?: Record<string, { schema?: SchemaObject & { $ref?: string } }> } | undefined)?.content;
  const schema = Object.values(body ?? {})[0]?.schema;
  const resolved = schema?.$ref ? (doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] as SchemaObject | undefined) : schema;
  const fromBody = resolved?.required?.[0] ?? Object.keys(resolved?.properties ?? {})[0];
  if (fromBody) return fromBody;
  const param = ((op.parameters ?? []) as ParameterObject[]).find((p) => p.in !== 'header');
  return param?.name ?? '';
}

function violationExample(field: string): { propertyPath: string; message: string; code?: string } {
  if (field === 'phone') return { propertyPath: 'phone', message: 'phone is not a valid number', code: 'impossiblePhoneNumber' };
  if (!field) return { propertyPath: '', message: 'the body must be a JSON object' };
  return { propertyPath: field, message: `${field} is not valid`, code: 'invalid' };
}

function isList(op: OperationObject): boolean {
  const ok = op.responses['200'] as ResponseObject | undefined;
  const schema = ok?.content?.['application/json']?.schema as SchemaObject | undefined;
  return !!schema?.properties?.items && !!schema.properties.total;
}

function pathExample(name: string): string {
  if (/uid$|^stream|^key$/i.test(name)) return '8c0e9f7a-2b1d-4e5f-9a6b-3c2d1e0f4a5b';
  if (/^(locale)$/.test(name)) return 'en';
  return '42';
}

/** operationId (`Controller_handler`, @nestjs/swagger's default) -> the handler's access rule and documented errors. */
function routeMetadata(app: INestApplication): Map<string, { rule?: AccessRule; errors: DocumentedError[] }> {
  const discovery = app.get(DiscoveryService);
  const scanner = app.get(MetadataScanner);
  const reflector = app.get(Reflector);
  const out = new Map<string, { rule?: AccessRule; errors: DocumentedError[] }>();
  for (const wrapper of discovery.getControllers()) {
    const metatype = wrapper.metatype as (new (...args: unknown[]) => object) | undefined;
    if (!metatype?.prototype) continue;
    for (const name of scanner.getAllMethodNames(metatype.prototype)) {
      const handler = (metatype.prototype as Record<string, unknown>)[name] as () => void;
      out.set(`${metatype.name}_${name}`, {
        rule: reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_KEY, [handler, metatype]),
        errors: [...(reflector.get<DocumentedError[] | undefined>(API_ERRORS_KEY, metatype) ?? []), ...(reflector.get<DocumentedError[] | undefined>(API_ERRORS_KEY, handler) ?? [])],
      });
    }
  }
  return out;
}
