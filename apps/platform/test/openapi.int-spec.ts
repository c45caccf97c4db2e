import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { createValidationPipe, listRoutes } from '@switchboard/platform';
import type { OpenAPIObject } from '@nestjs/swagger';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { AuthBootstrapService } from '@switchboard/auth';
import { GatewayModule } from '@switchboard/gateway';
import { DevModule, embeddedServiceModules } from '../src/embedded-server';
import { buildOpenApiDocument } from '../src/openapi';

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * The OpenAPI document an integrator reads (/api/docs.json), built from every module embedded mode mounts, the way
 * the embedded server builds it. Each finding names the operation or schema, so an empty one is found at once.
 */
describe('the OpenAPI document at /api/docs.json', () => {
  let t: TestApp;
  let doc: OpenAPIObject;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-openapi-'));

  beforeAll(async () => {
    t = await createTestApp(({ keys }) => ({
      imports: [...embeddedServiceModules({ privateKey: keys.privateKey, dataDir, appUrl: 'http://127.0.0.1:3000' }), GatewayModule.register({ mode: 'embedded' }), DevModule],
    }));
    doc = buildOpenApiDocument(t.app);
    // OPENAPI_OUT=file writes the document, e.g. for /work/shared/tools/spec-coverage.py
    if (process.env.OPENAPI_OUT) fs.writeFileSync(process.env.OPENAPI_OUT, JSON.stringify(doc, null, 2));
  }, 120000);

  afterAll(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const schemas = (): Json => (doc.components?.schemas ?? {}) as Json;
  const resolve = (s: unknown): Json | undefined => {
    const ref = (s as Json | undefined)?.$ref;
    return typeof ref === 'string' ? (schemas()[ref.replace('#/components/schemas/', '')] as Json | undefined) : (s as Json | undefined);
  };
  const operations = (): { id: string; method: string; path: string; op: Json }[] =>
    Object.entries(doc.paths).flatMap(([p, item]) =>
      METHODS.filter((m) => (item as Json)[m]).map((m) => ({ id: `${m.toUpperCase()} ${p}`, method: m, path: p, op: (item as Json)[m] as Json })),
    );

  /** Where a schema says nothing: no type, no reference, no composition, or an object with neither properties nor a documented map. */
  function emptySchemas(s: unknown, at: string, out: string[], seen = new Set<unknown>()): void {
    if (!s || typeof s !== 'object' || seen.has(s)) return;
    seen.add(s);
    const o = s as Json;
    if (o.$ref) return;
    const composed = ['allOf', 'oneOf', 'anyOf'].find((k) => Array.isArray(o[k]));
    if (composed) {
      (o[composed] as unknown[]).forEach((x, i) => emptySchemas(x, `${at}.${composed}[${i}]`, out, seen));
      return;
    }
    const props = o.properties as Json | undefined;
    if (!o.type && !props) out.push(`${at}: no type, $ref, allOf/oneOf or properties`);
    else if ((o.type === 'object' || !o.type) && (!props || Object.keys(props).length === 0) && o.additionalProperties === undefined) out.push(`${at}: an object without properties`);
    else if (o.type === 'array' && !o.items) out.push(`${at}: an array without items`);
    for (const [k, v] of Object.entries(props ?? {})) emptySchemas(v, `${at}.${k}`, out, seen);
    if (o.items) emptySchemas(o.items, `${at}[]`, out, seen);
    if (o.additionalProperties && typeof o.additionalProperties === 'object') emptySchemas(o.additionalProperties, `${at}{}`, out, seen);
  }

  /** True when an example is anywhere in the schema, following references. */
  function hasExample(s: unknown, seen = new Set<unknown>()): boolean {
    if (!s || typeof s !== 'object' || seen.has(s)) return false;
    seen.add(s);
    const o = s as Json;
    if (o.example !== undefined || (o.examples && Object.keys(o.examples as Json).length)) return true;
    if (o.$ref) return hasExample(resolve(o), seen);
    return [...Object.values((o.properties as Json) ?? {}), o.items, o.additionalProperties, ...((o.allOf as unknown[]) ?? []), ...((o.oneOf as unknown[]) ?? []), ...((o.anyOf as unknown[]) ?? [])].some((x) => hasExample(x, seen));
  }

  const mediaHasExample = (content: Json | undefined): boolean =>
    Object.values(content ?? {}).some((m) => (m as Json).example !== undefined || (m as Json).examples !== undefined || hasExample((m as Json).schema));

  it('describes every route the platform mounts', () => {
    const documented = new Set(operations().map((o) => o.id));
    const missing = listRoutes(t.app)
      .map((r) => `${r.method} ${r.path === '/realtime' ? '' : '/api'}${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .filter((id) => !documented.has(id));
    expect(missing).toEqual([]);
    expect(documented.size).toBeGreaterThan(150);
  });

  it('gives every operation a success response with a schema and an example', () => {
    const missing: string[] = [];
    for (const { id, op } of operations()) {
      const responses = op.responses as Json;
      const success = Object.keys(responses).filter((c) => /^[23]\d\d$/.test(c));
      if (!success.length) missing.push(`${id}: no success response`);
      for (const code of success) {
        if (code === '204') continue;
        // a redirect (the Zoho sign-on callback) answers its Location, not a body
        if (code.startsWith('3')) {
          if (!((responses[code] as Json).headers as Json | undefined)?.Location) missing.push(`${id} ${code}: a redirect without Location`);
          continue;
        }
        const content = (responses[code] as Json).content as Json | undefined;
        if (!content || !Object.keys(content).length) missing.push(`${id} ${code}: no response schema`);
        else if (Object.values(content).some((m) => !(m as Json).schema)) missing.push(`${id} ${code}: a media type without a schema`);
        else if (!mediaHasExample(content)) missing.push(`${id} ${code}: no example`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('gives every route that reads a body a request body schema with an example; uploads are multipart with a binary file', () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = t.app.get(MetadataScanner);
    const readsBody = new Set<string>();
    for (const w of discovery.getControllers()) {
      const type = w.metatype as (new () => object) | undefined;
      if (!type?.prototype) continue;
      for (const name of scanner.getAllMethodNames(type.prototype)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Json;
        if (Object.keys(args).some((k) => [RouteParamtypes.BODY, RouteParamtypes.REQUEST].includes(Number(k.split(':')[0])))) readsBody.add(`${type.name}_${name}`);
      }
    }
    const missing: string[] = [];
    for (const { id, method, op } of operations()) {
      if (!['post', 'put', 'patch'].includes(method) || !readsBody.has(op.operationId as string)) continue;
      const body = op.requestBody as Json | undefined;
      const content = body?.content as Json | undefined;
      if (!content || !Object.keys(content).length) {
        missing.push(`${id}: no request body`);
        continue;
      }
      for (const [type, media] of Object.entries(content)) {
        const schema = resolve((media as Json).schema);
        if (!schema) missing.push(`${id} ${type}: no request body schema`);
        if (type === 'multipart/form-data' && (schema?.properties as Json | undefined)?.file && ((schema?.properties as Json).file as Json).format !== 'binary') missing.push(`${id}: the file is not binary`);
      }
      if (!mediaHasExample(content)) missing.push(`${id}: no request example`);
    }
    expect(missing).toEqual([]);
    const upload = ((doc.paths['/api/import_lists'] as Json).post as Json).requestBody as Json;
    const multipart = (upload.content as Json)['multipart/form-data'] as Json;
    expect(resolve(multipart.schema)).toMatchObject({ properties: { file: { type: 'string', format: 'binary' } } });
  });

  it('has no empty schema anywhere: components, parameters, request bodies, responses', () => {
    const empty: string[] = [];
    for (const [name, s] of Object.entries(schemas())) emptySchemas(s, `components.schemas.${name}`, empty);
    for (const { id, op } of operations()) {
      for (const p of (op.parameters as Json[] | undefined) ?? []) emptySchemas(p.schema ?? {}, `${id} parameter ${String(p.name)}`, empty);
      for (const [type, m] of Object.entries(((op.requestBody as Json | undefined)?.content as Json | undefined) ?? {})) emptySchemas((m as Json).schema ?? {}, `${id} request ${type}`, empty);
      for (const [code, r] of Object.entries(op.responses as Json)) {
        for (const [type, m] of Object.entries(((r as Json).content as Json | undefined) ?? {})) emptySchemas((m as Json).schema ?? {}, `${id} ${code} ${type}`, empty);
      }
    }
    expect(empty).toEqual([]);
  });

  it('has an example in every schema and for every path and query parameter', () => {
    const missing = Object.entries(schemas()).filter(([, s]) => !hasExample(s)).map(([name]) => `components.schemas.${name}: no example`);
    for (const { id, op } of operations()) {
      for (const p of (op.parameters as Json[] | undefined) ?? []) {
        if (p.in !== 'header' && p.example === undefined && p.examples === undefined && !hasExample(p.schema)) missing.push(`${id} parameter ${String(p.name)}: no example`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents the error body with the spec codes on every operation, and 401 on every signed-in one', () => {
    const error = schemas().ErrorBodySchema as Json;
    expect(Object.keys(error.properties as Json).sort()).toEqual(['code', 'message', 'status', 'violations']);
    for (const code of ['0x1', '0x11', '0x12', '0x13', '0x14', '0x31', '0x41', '0x30', '0x21']) expect(String((error.properties as Json & { code: Json }).code.description)).toContain(`\`${code}\``);
    const missing: string[] = [];
    for (const { id, op } of operations()) {
      const errors = Object.entries(op.responses as Json).filter(([c]) => /^[45]\d\d$/.test(c));
      if ((op.security as unknown[] | undefined)?.length && !(op.responses as Json)['401']) missing.push(`${id}: signed-in route without 401`);
      if (!errors.length && !/\/health|\/dev\/|\/dispatch\/webhooks/.test(id)) missing.push(`${id}: no error response`);
      for (const [code, r] of errors) {
        const media = ((r as Json).content as Json | undefined)?.['application/json'] as Json | undefined;
        if ((media?.schema as Json | undefined)?.$ref !== '#/components/schemas/ErrorBodySchema') missing.push(`${id} ${code}: not the error body`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents the integration path: vendor with SMPP settings, routes, channels, the stream API', () => {
    const s = schemas();
    const smpp = s.SmppVendorConfigDto as Json;
    const props = smpp.properties as Record<string, Json>;
    for (const field of ['host', 'port', 'systemId', 'password', 'systemType', 'connections', 'window', 'tps', 'minTps', 'enquireLinkMs', 'submitTimeoutMs', 'sourceTon', 'sourceNpi', 'destTon', 'destNpi']) {
      expect([field, typeof props[field]?.description]).toEqual([field, 'string']);
    }
    expect(smpp.required).toEqual(expect.arrayContaining(['host', 'port', 'systemId', 'password']));
    for (const name of ['CreateVendorDto', 'UpdateVendorDto', 'CountryRouteDto', 'CustomerCountryRouteDto', 'UpdateChannelDto', 'StreamMessageDto', 'StreamMessageAcceptedResponse']) {
      expect([name, Object.keys(((s[name] as Json | undefined)?.properties as Json | undefined) ?? {}).length > 0]).toEqual([name, true]);
    }
    const send = (doc.paths['/api/streams/messages'] as Json).post as Json;
    expect(Object.keys(send.responses as Json)).toEqual(expect.arrayContaining(['202', '400', '401', '402', '409', '429']));
  });
  /** The example a reader would copy: each property's example, nested objects built from their own schemas. */
  function exampleOf(schema: unknown, depth = 0): unknown {
    const s = resolve(schema);
    if (!s || depth > 6) return undefined;
    if (s.example !== undefined) return s.example;
    if (s.properties) {
      const out: Json = {};
      for (const [k, v] of Object.entries(s.properties as Json)) {
        const e = exampleOf(v, depth + 1);
        if (e !== undefined) out[k] = e;
      }
      return out;
    }
    if (s.type === 'array') {
      const e = exampleOf(s.items, depth + 1);
      return e === undefined ? undefined : [e];
    }
    const variants = (s.oneOf ?? s.anyOf ?? s.allOf) as unknown[] | undefined;
    return variants ? exampleOf(variants[0], depth + 1) : undefined;
  }

  it("gives request bodies examples that pass the route's own validation", async () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = t.app.get(MetadataScanner);
    const pipe = createValidationPipe();
    const bodyClass = new Map<string, new () => object>();
    for (const w of discovery.getControllers()) {
      const type = w.metatype as (new () => object) | undefined;
      if (!type?.prototype) continue;
      for (const name of scanner.getAllMethodNames(type.prototype)) {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, type, name) ?? {}) as Record<string, { index: number }>;
        const key = Object.keys(args).find((k) => Number(k.split(':')[0]) === RouteParamtypes.BODY);
        const metatype = key ? ((Reflect.getMetadata('design:paramtypes', type.prototype, name) ?? []) as unknown[])[args[key].index] : undefined;
        if (typeof metatype === 'function' && metatype !== Object) bodyClass.set(`${type.name}_${name}`, metatype as new () => object);
      }
    }
    const refused: string[] = [];
    let checked = 0;
    for (const { id, op } of operations()) {
      const metatype = bodyClass.get(op.operationId as string);
      const media = (((op.requestBody as Json | undefined)?.content as Json | undefined)?.['application/json']) as Json | undefined;
      if (!metatype || !media) continue;
      const example = media.example ?? exampleOf(media.schema);
      try {
        await pipe.transform(example, { type: 'body', metatype, data: undefined });
        checked++;
      } catch (e) {
        refused.push(`${id} ${JSON.stringify(example)}: ${JSON.stringify((e as { violations?: unknown }).violations ?? String(e))}`);
      }
    }
    expect(refused).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  /** Where a real answer and its documented schema disagree: an undocumented field, a missing required one, a wrong type. */
  function drift(value: unknown, schema: unknown, at: string, out: string[], depth = 0): void {
    const s = resolve(schema);
    if (!s || depth > 8) return;
    if (value === null) {
      if (!s.nullable && !(s.oneOf as Json[] | undefined)?.some((x) => resolve(x)?.nullable)) out.push(`${at}: null, not documented as nullable`);
      return;
    }
    const variants = (s.oneOf ?? s.anyOf) as unknown[] | undefined;
    if (variants) {
      const results = variants.map((v) => {
        const o: string[] = [];
        drift(value, v, at, o, depth + 1);
        return o;
      });
      if (!results.some((r) => r.length === 0)) out.push(...results.sort((a, b) => a.length - b.length)[0]);
      return;
    }
    if (s.allOf) {
      for (const v of s.allOf as unknown[]) drift(value, v, at, out, depth + 1);
      return;
    }
    const type = s.type as string | undefined;
    const actual = Array.isArray(value) ? 'array' : typeof value;
    if (type === 'integer' || type === 'number') {
      if (actual !== 'number') out.push(`${at}: ${actual}, documented ${type}`);
    } else if (type === 'string') {
      if (actual !== 'string') out.push(`${at}: ${actual}, documented string`);
    } else if (type === 'boolean') {
      if (actual !== 'boolean') out.push(`${at}: ${actual}, documented boolean`);
    } else if (type === 'array') {
      if (actual !== 'array') out.push(`${at}: ${actual}, documented array`);
      else (value as unknown[]).slice(0, 3).forEach((v, i) => drift(v, s.items, `${at}[${i}]`, out, depth + 1));
    } else if (s.properties || type === 'object') {
      if (actual !== 'object') {
        out.push(`${at}: ${actual}, documented object`);
        return;
      }
      const props = (s.properties ?? {}) as Json;
      const v = value as Json;
      if (s.properties && s.additionalProperties === undefined) {
        for (const k of Object.keys(v)) if (!(k in props)) out.push(`${at}.${k}: in the answer, not documented`);
      }
      for (const k of (s.required as string[] | undefined) ?? []) if (!(k in v)) out.push(`${at}.${k}: documented as required, missing`);
      for (const [k, ps] of Object.entries(props)) if (k in v) drift(v[k], ps, `${at}.${k}`, out, depth + 1);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') for (const [k, x] of Object.entries(v)) if (!(k in props)) drift(x, s.additionalProperties, `${at}.${k}`, out, depth + 1);
    }
  }

  it('documents what the routes really answer: a signed-in super administrator reads every list and item of the embedded platform', async () => {
    const demo = await t.app.get(AccountsBootstrapService).seed({ demoAccountName: 'Demo account' });
    await t.app.get(AuthBootstrapService).seed({ adminEmail: 'admin@switchboard.local', adminPassword: 'openapi-test-password', demoAccount: { id: demo.demoAccountId, name: demo.snapshot.name } });
    const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> => {
      const res = await fetch(`${t.url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
    };
    const credentials = { username: 'admin@switchboard.local', password: 'openapi-test-password' };
    expect((await api('POST', '/api/login_check', credentials)).status).toBe(200);
    const pin = /\d{6}/.exec(t.mailbox.list(1)[0].text)?.[0];
    const signIn = await api('POST', '/api/login/manual', { ...credentials, pin });
    const auth = { authorization: `Bearer ${(signIn.body as Json).token as string}` };
    // something in the lists: a sender, a stream, a vendor with SMPP settings, a route, a key
    const created = [
      ['POST /api/senders', await api('POST', '/api/senders', { name: 'Acme', value: 'ACME' }, auth)],
      ['POST /api/streams', await api('POST', '/api/streams', { name: 'Orders', streamType: 2, sender: 'ACME' }, auth)],
      ['POST /api/service_type_manager/vendor', await api('POST', '/api/service_type_manager/vendor', { name: 'Acme SMSC', service_type: 'sms', adapter: 'smpp', active: false, config: { host: '127.0.0.1', port: 9, systemId: 'acme', password: 'secret' } }, auth)],
      ['PUT /api/service_type_manager/countries_mapping', await api('PUT', '/api/service_type_manager/countries_mapping', { iso2: 'GB', serviceType: 'sms', vendorIds: ['1'] }, auth)],
      ['POST /api/api_keys', await api('POST', '/api/api_keys', { name: 'integration', permissions: ['STREAM_VIEW'] }, auth)],
    ] as const;
    const findings: string[] = [];
    for (const [id, res] of created) {
      const [method, path] = id.split(' ');
      const op = (doc.paths[path] as Json)[method.toLowerCase()] as Json;
      const code = String(res.status);
      const media = (((op.responses as Json)[code] as Json | undefined)?.content as Json | undefined)?.['application/json'] as Json | undefined;
      if (!media) findings.push(`${id}: answered ${code}, not documented`);
      else drift(res.body, media.schema, id, findings);
    }
    const streamId = String(((created[1][1].body as Json).id as number) ?? 1);
    const ids: Record<string, string> = { '/api/countries/{id}': '77', '/api/countries/global/{id}': '77', '/api/timezones/{id}': '261', '/api/streams/{id}': streamId, '/api/streams/token/{id}': streamId };
    const query: Record<string, string> = { '/api/stream/code_snippet': `?streamId=${streamId}`, '/api/stream/diagnostics': `?streamId=${streamId}`, '/api/service_type_manager/current_routing': '?iso2=GB&serviceType=sms&customerId=1', '/api/service_type_manager/customer_countries_mapping': '?customerId=1' };
    let checked = 0;
    for (const { id, path, op } of operations().filter((o) => o.method === 'get')) {
      const media = ((((op.responses as Json)['200'] as Json | undefined)?.content as Json | undefined)?.['application/json']) as Json | undefined;
      if (!media || path === '/realtime' || path.includes('/dispatch/webhooks/')) continue;
      const url = path.replace(/\{[^}]+\}/, ids[path] ?? '1') + (query[path] ?? '');
      if (/\{/.test(url)) continue;
      const res = await api('GET', url, undefined, auth);
      if (res.status !== 200) continue; // an id that does not exist here (404), a provider that is not set up (WhatsApp)
      drift(res.body, media.schema, id, findings);
      checked++;
    }
    expect(findings).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  }, 60000);
});
