import { frozenJsonCopy, frozenJsonHandedOver, jsonCopy } from './delivery';

describe.each([
  ['jsonCopy', jsonCopy],
  ['frozenJsonCopy', frozenJsonCopy],
  ['frozenJsonHandedOver', frozenJsonHandedOver],
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

describe('frozenJsonHandedOver (docs/decisions/0194)', () => {
  const everyObject = (v: unknown, out: object[] = []): object[] => {
    if (v === null || typeof v !== 'object') return out;
    out.push(v);
    for (const k of Object.keys(v)) everyObject((v as Record<string, unknown>)[k], out);
    return out;
  };
  const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

  it('freezes what JSON.parse made where it is: the same objects, every one frozen, nothing copied', () => {
    const value = JSON.parse('{"id":"e1","data":{"items":[{"n":1,"t":"a"},{"n":-2.5e-7,"t":null}],"ok":true,"empty":{},"none":[]},"__proto__":{"x":1}}') as {
      data: { items: Array<{ n: number }> };
    };
    const items = value.data.items;
    const out = frozenJsonHandedOver(value);
    expect(out).toBe(value);
    expect(out.data.items).toBe(items);
    expect(everyObject(out).filter((o) => !Object.isFrozen(o))).toEqual([]);
    expect(() => (out.data.items[0].n = 2)).toThrow(TypeError);
    expect(() => out.data.items.push({ n: 3 })).toThrow(TypeError);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('copies, as frozenJsonCopy does, what a JSON round trip would change, wherever it sits, and a frozen part that is not frozen through', () => {
    const sparse: unknown[] = [1];
    sparse[2] = 2;
    class Point {
      constructor(readonly x: number) {}
    }
    const inherited = Object.create({ inheritedKey: 1 }) as object;
    const cases: unknown[] = [
      { at: new Date(0) },
      { list: [1, { deep: undefined }] },
      { n: -0 },
      { n: [NaN] },
      { n: Infinity },
      { sparse },
      { custom: { toJSON: () => 'x' } },
      { boxed: new String('s') },
      { point: new Point(1) },
      { f: () => 1 },
      { inherited },
      { nullProto: Object.create(null) as object },
      Object.freeze({ shallow: { writable: 1 } }),
    ];
    for (const value of cases) {
      const before = JSON.stringify(value);
      const out = frozenJsonHandedOver(value);
      expect(out).not.toBe(value);
      expect(out).toEqual(viaJson(value));
      expect(JSON.stringify(out)).toBe(before);
      expect(everyObject(out).filter((o) => !Object.isFrozen(o))).toEqual([]);
    }
  });

  it('gives the JSON round trip of generated values, frozen through, in place exactly when the value is JSON data', () => {
    let seed = 194;
    const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    const odd = [undefined, -0, NaN, () => 1, new Date(5), { toJSON: () => 7 }];
    const leaf = (): unknown => (random() < 0.03 ? pick(odd) : pick<unknown>(['s', 'é\n"\\', '', 0, 1.5, -3, 1e21, 1.5e-7, true, false, null]));
    const gen = (depth: number): unknown => {
      if (depth > 4 || random() < 0.3) return leaf();
      if (random() < 0.5) return Array.from({ length: Math.floor(random() * 4) }, () => gen(depth + 1));
      const o: Record<string, unknown> = {};
      // an own "__proto__" as JSON.parse makes it (an assignment would set the prototype)
      for (let i = Math.floor(random() * 4); i > 0; i--) {
        Object.defineProperty(o, pick(['a', 'b', '10', '2', 'data', '__proto__']), { value: gen(depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return o;
    };
    let inPlace = 0;
    let copied = 0;
    for (let round = 0; round < 2000; round++) {
      const value = gen(0);
      const expected = JSON.stringify(value);
      const json = expected === undefined ? undefined : JSON.stringify(viaJson(value));
      const isJson = json === expected && expected !== undefined && typeof value === 'object' && value !== null && JSON.stringify(frozenJsonCopy(value)) === expected && !hasOdd(value);
      const out = frozenJsonHandedOver(value);
      expect(JSON.stringify(out)).toBe(expected);
      expect(everyObject(out).filter((o) => !Object.isFrozen(o))).toEqual([]);
      if (typeof value === 'object' && value !== null) {
        if (isJson) {
          expect(out).toBe(value);
          inPlace++;
        } else {
          expect(out).not.toBe(value);
          copied++;
        }
      }
    }
    expect(inPlace).toBeGreaterThan(100);
    expect(copied).toBeGreaterThan(100);

    function hasOdd(v: unknown): boolean {
      if (typeof v === 'number') return !Number.isFinite(v) || Object.is(v, -0);
      if (v === undefined || typeof v === 'function') return true;
      if (v === null || typeof v !== 'object') return false;
      if (v instanceof Date || typeof (v as { toJSON?: unknown }).toJSON === 'function') return true;
      return Object.keys(v).some((k) => hasOdd((v as Record<string, unknown>)[k]));
    }
  });
});
