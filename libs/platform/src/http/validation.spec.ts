import { Body, Controller, Get, HttpCode, Logger, Module, Param, ParseIntPipe, Post, Query } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { Type } from 'class-transformer';
import { IsEmail, IsInt, IsOptional, IsString, Max, Min, MinLength, ValidateNested } from 'class-validator';
import request from 'supertest';
import { AppError } from '../errors/app-error';
import { configureHttpApp } from './http-app';

class AddressDto {
  @IsString()
  @MinLength(2)
  city!: string;
}

class CreateContactDto {
  @IsString()
  @MinLength(1)
  name!: string;

  @IsEmail()
  email!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(150)
  age?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => AddressDto)
  address?: AddressDto;
}

@Controller('contacts')
class ContactsController {
  @Post()
  @HttpCode(201)
  create(@Body() dto: CreateContactDto): { created: CreateContactDto; isDto: boolean } {
    return { created: dto, isDto: dto instanceof CreateContactDto };
  }

  @Get('boom')
  boom(): never {
    throw new Error('connection to postgres://app:secret@db failed');
  }

  @Get('conflict')
  conflict(): never {
    throw AppError.conflict('name already used', '0x19');
  }

  @Get('search')
  search(@Query('minAge') minAge?: number, @Query('active') active?: boolean): { minAge: number | undefined; active: boolean | undefined } {
    return { minAge, active };
  }

  @Get(':id')
  one(@Param('id', ParseIntPipe) id: number): { id: number } {
    return { id };
  }
}

@Module({ controllers: [ContactsController] })
class TestModule {}

describe('validation pipe and error filter', () => {
  let app: NestExpressApplication;
  const server = () => app.getHttpServer();

  beforeAll(async () => {
    const ref = await Test.createTestingModule({ imports: [TestModule] }).compile();
    app = ref.createNestApplication<NestExpressApplication>({ logger: false });
    configureHttpApp(app, { bodyLimit: '2kb' });
    await app.init();
  });
  afterAll(() => app.close());

  it('passes a valid body to the handler as the DTO class', async () => {
    const res = await request(server()).post('/api/contacts').send({ name: 'Ada', email: 'ada@example.com', address: { city: 'Paris' } }).expect(201);
    expect(res.body).toEqual({ created: { name: 'Ada', email: 'ada@example.com', address: { city: 'Paris' } }, isDto: true });
  });

  it('answers 400 0x1 with one violation per broken rule', async () => {
    const res = await request(server()).post('/api/contacts').send({ name: '', email: 'nope', age: 200 }).expect(400);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toMatchObject({ code: '0x1', status: 400, message: 'request validation failed' });
    expect(res.body.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ propertyPath: 'name', code: 'minLength' }),
        expect.objectContaining({ propertyPath: 'email', code: 'isEmail', message: 'email must be an email' }),
        expect.objectContaining({ propertyPath: 'age', code: 'max' }),
      ]),
    );
    expect(Object.keys(res.body).sort()).toEqual(['code', 'message', 'status', 'violations']);
  });

  it('names nested fields by their path', async () => {
    const res = await request(server()).post('/api/contacts').send({ name: 'Ada', email: 'ada@example.com', address: { city: 'P' } }).expect(400);
    expect(res.body.violations).toEqual([expect.objectContaining({ propertyPath: 'address.city', code: 'minLength' })]);
  });

  it('refuses unknown fields', async () => {
    const res = await request(server()).post('/api/contacts').send({ name: 'Ada', email: 'ada@example.com', isAdmin: true }).expect(400);
    expect(res.body).toMatchObject({ code: '0x1', status: 400, violations: [{ propertyPath: 'isAdmin', code: 'whitelistValidation', message: 'property isAdmin should not exist' }] });
  });

  it('refuses a missing body field by field', async () => {
    const res = await request(server()).post('/api/contacts').expect(400);
    expect(res.body.code).toBe('0x1');
    expect(res.body.violations.map((v: { propertyPath: string }) => v.propertyPath)).toEqual(expect.arrayContaining(['name', 'email']));
  });

  it('refuses a JSON array where an object is expected', async () => {
    const res = await request(server()).post('/api/contacts').send([{ name: 'Ada', email: 'ada@example.com' }]).expect(400);
    expect(res.body).toMatchObject({ code: '0x1', status: 400 });
  });

  it('answers malformed JSON with a 400 error body', async () => {
    const res = await request(server()).post('/api/contacts').set('content-type', 'application/json').send('{"name": "Ada",').expect(400);
    expect(res.body).toEqual({ code: '0x1', status: 400, message: 'malformed JSON body' });
  });

  it('answers a body over the limit with 413', async () => {
    const res = await request(server()).post('/api/contacts').send({ name: 'x'.repeat(5000), email: 'ada@example.com' }).expect(413);
    expect(res.body).toEqual({ code: '0x1', status: 413, message: 'request body too large' });
  });

  it('answers an unknown error with 500 0x0 without leaking its message', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const res = await request(server()).get('/api/contacts/boom').expect(500);
    expect(res.body).toEqual({ code: '0x0', message: 'internal error', status: 500 });
    expect(res.text).not.toContain('secret');
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
  });

  it('passes an AppError through as its body', async () => {
    const res = await request(server()).get('/api/contacts/conflict').expect(409);
    expect(res.body).toEqual({ code: '0x19', message: 'name already used', status: 409 });
  });

  it("answers Nest's own HTTP exceptions with the error body", async () => {
    const bad = await request(server()).get('/api/contacts/abc').expect(400);
    expect(bad.body).toMatchObject({ code: '0x1', status: 400 });
    const missing = await request(server()).get('/api/nowhere').expect(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', status: 404, message: 'Cannot GET /api/nowhere' });
  });

  it('converts numeric and boolean query parameters, refusing what they cannot read', async () => {
    expect((await request(server()).get('/api/contacts/search?minAge=18&active=false').expect(200)).body).toEqual({ minAge: 18, active: false });
    expect((await request(server()).get('/api/contacts/search').expect(200)).body).toEqual({});
    for (const bad of ['minAge=abc', 'minAge=', 'minAge=1e3', 'active=yes', 'active=']) {
      const res = await request(server()).get(`/api/contacts/search?${bad}`).expect(400);
      expect(res.body).toMatchObject({ code: '0x1', status: 400, violations: [{ propertyPath: bad.split('=')[0] }] });
    }
  });

  it('tags every response with a request id, keeping a sane one from the caller', async () => {
    const own = await request(server()).get('/api/contacts/1').set('x-request-id', 'trace-12345678').expect(200);
    expect(own.headers['x-request-id']).toBe('trace-12345678');
    const forged = await request(server()).get('/api/contacts/1').set('x-request-id', '<script>').expect(200);
    expect(forged.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(forged.headers['x-powered-by']).toBeUndefined();
  });
});
