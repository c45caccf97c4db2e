import { frozenJsonCopy, jsonCopy } from './delivery';

describe.each([
  ['jsonCopy', jsonCopy],
  ['frozenJsonCopy', frozenJsonCopy],
])('%s (what a JSON record carries, without the text)', (_name, jsonCopy) => {
  const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

  it('equals the JSON round trip of values JSON changes: Dates, undefined, functions, NaN, -0, holes, toJSON, boxed values', () => {
    const sparse: unknown[] = [1];
    sparse[3] = 'x';
    const value = {
      at: new Date('2030-01-01T00:00:00Z'),
      gone: undefined,
      fn: () => 1,
      sym: Symbol('s'),
      nums: [NaN, Infinity, -0, 1.5, undefined, () => 2],
      sparse,
      custom: { toJSON: (key: string) => `custom at ${key}` },
      boxed: [new Number(3), new String('s'), new Boolean(false)],
      map: new Map([['a', 1]]),
      nested: { deeper: { list: [{ a: null, b: true, c: 'c' }], empty: {} } },
      '10': 'integer keys first',
      z: 'last',
    };
    const copy = jsonCopy(value);
    expect(copy).toEqual(viaJson(value));
    expect(Object.keys(copy)).toEqual(Object.keys(viaJson(value) as object));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
  });

  it('keeps a "__proto__" key as an own property, as JSON.parse does, and shares nothing with the original', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "list": [{"a": 1}]}') as { list: Array<{ a: number }> };
    const copy = jsonCopy(value);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(viaJson(value)));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    if (!Object.isFrozen(copy.list[0])) copy.list[0].a = 2;
    expect(value.list[0].a).toBe(1);
  });

  it('refuses what JSON refuses: a BigInt and a cycle; a very deep value is still copied', () => {
    expect(() => jsonCopy({ n: 1n })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => jsonCopy(cyclic)).toThrow(TypeError);
    let deep: Record<string, unknown> = { leaf: new Date(0) };
    for (let i = 0; i < 200; i++) deep = { next: deep };
    expect(jsonCopy(deep)).toEqual(viaJson(deep));
  });
});

describe('frozenJsonCopy', () => {
  const everyObject = (v: unknown, out: object[] = []): object[] => {
    if (v === null || typeof v !== 'object') return out;
    out.push(v);
    for (const k of Object.keys(v)) everyObject((v as Record<string, unknown>)[k], out);
    return out;
  };

  it('freezes every object and array of the copy, a very deep one too, and leaves the original writable', () => {
    const value = { at: new Date(0), list: [{ a: 1 }, [2, { b: [] }]], nested: { deeper: {} } };
    let deep: Record<string, unknown> = { leaf: { list: [1] } };
    for (let i = 0; i < 200; i++) deep = { next: deep };
    for (const v of [value, deep]) {
      const copy = frozenJsonCopy(v);
      const objects = everyObject(copy);
      expect(objects.length).toBeGreaterThan(4);
      expect(objects.filter((o) => !Object.isFrozen(o))).toEqual([]);
      expect(everyObject(v).filter((o) => Object.isFrozen(o))).toEqual([]);
    }
    const copy = frozenJsonCopy(value);
    expect(() => ((copy.list[0] as { a: number }).a = 2)).toThrow(TypeError);
    expect(() => (copy.list as unknown[]).push(3)).toThrow(TypeError);
  });
});
