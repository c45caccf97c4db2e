import { AppError } from '../errors/app-error';
import { parseListQuery, type ListQueryOptions } from './list';

const opts: ListQueryOptions = { sortable: ['id', 'name', 'createdAt'] };

function refusal(query: Record<string, unknown>, o: ListQueryOptions = opts): AppError {
  try {
    parseListQuery(query, o);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error('query was accepted');
}

function expectViolation(query: Record<string, unknown>, propertyPath: string, o: ListQueryOptions = opts): void {
  const e = refusal(query, o);
  expect(e.toBody()).toEqual({ code: '0x1', status: 400, message: 'request validation failed', violations: [expect.objectContaining({ propertyPath })] });
}

describe('parseListQuery', () => {
  it('defaults to page 1, 25 per page, id descending', () => {
    expect(parseListQuery({}, opts)).toEqual({ page: 1, itemsPerPage: 25, skip: 0, take: 25, order: { id: 'DESC' } });
  });

  it('uses the route defaults for size and order', () => {
    const q = parseListQuery({}, { ...opts, defaultItemsPerPage: 200, defaultOrder: { name: 'ASC' } });
    expect(q).toMatchObject({ itemsPerPage: 200, take: 200, order: { name: 'ASC' } });
  });

  it('turns page and itemsPerPage into skip and take', () => {
    expect(parseListQuery({ page: '3', itemsPerPage: '50' }, opts)).toMatchObject({ page: 3, itemsPerPage: 50, skip: 100, take: 50 });
    expect(parseListQuery({ page: '', itemsPerPage: '' }, opts)).toMatchObject({ page: 1, itemsPerPage: 25 });
  });

  it('accepts itemsPerPage up to the maximum and refuses beyond it', () => {
    expect(parseListQuery({ itemsPerPage: '2000' }, opts).take).toBe(2000);
    expectViolation({ itemsPerPage: '2001' }, 'itemsPerPage');
    expect(parseListQuery({ itemsPerPage: '10' }, { ...opts, maxItemsPerPage: 10 }).take).toBe(10);
    expectViolation({ itemsPerPage: '11' }, 'itemsPerPage', { ...opts, maxItemsPerPage: 10 });
  });

  it('refuses page and itemsPerPage that are not positive integers', () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '1e3', '0x10', ' 2', ['1', '2']]) {
      expectViolation({ page: bad }, 'page');
      expectViolation({ itemsPerPage: bad }, 'itemsPerPage');
    }
  });

  it('reads order[field] parsed by qs as an object', () => {
    expect(parseListQuery({ order: { id: 'desc' } }, opts).order).toEqual({ id: 'DESC' });
    expect(parseListQuery({ order: { name: 'asc', id: 'DESC' } }, opts).order).toEqual({ name: 'ASC', id: 'DESC' });
  });

  it('reads order[field] as raw bracket keys (the simple query parser)', () => {
    expect(parseListQuery({ 'order[createdAt]': 'asc' }, opts).order).toEqual({ createdAt: 'ASC' });
    expect(Object.keys(parseListQuery({ 'order[name]': 'asc', 'order[id]': 'desc' }, opts).order)).toEqual(['name', 'id']);
  });

  it('refuses an unknown sort field with a 0x1 violation, in both shapes', () => {
    expectViolation({ order: { password: 'asc' } }, 'order[password]');
    expectViolation({ 'order[password]': 'asc' }, 'order[password]');
    expectViolation({ 'order[__proto__]': 'asc' }, 'order[__proto__]');
    expectViolation({ 'order[]': 'asc' }, 'order[]');
  });

  it('refuses a direction other than asc or desc', () => {
    for (const bad of ['up', '', 'asc;drop table', ['asc', 'desc'], { x: 'asc' }]) {
      expectViolation({ order: { id: bad } }, 'order[id]');
      expectViolation({ 'order[id]': bad }, 'order[id]');
    }
  });

  it('refuses order given in another shape', () => {
    expectViolation({ order: 'id' }, 'order');
    expectViolation({ order: ['id'] }, 'order');
  });
});
