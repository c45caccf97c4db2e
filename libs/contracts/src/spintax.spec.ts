import { analyzeSms } from './sms';
import { checkWordLists, combinations, longestExpansion, parseSpintax, previewSamples, spin, SpintaxError, variablesOf, wordListsOf } from './spintax';

const err = (text: string): { kind: string; position: number; message: string } => {
  try {
    parseSpintax(text);
  } catch (e) {
    if (e instanceof SpintaxError) return { kind: e.kind, position: e.position, message: e.message };
    throw e;
  }
  throw new Error(`"${text}" parsed`);
};

describe('spintax', () => {
  it('parses nested alternatives, variables, word lists and escapes', () => {
    const nodes = parseSpintax('{Hi|Hello|{Good morning|Good day}} {{firstName}}, [[Greetings]] \\{x\\|y\\} a|b [c]');
    expect(variablesOf(nodes)).toEqual(['firstName']);
    expect(wordListsOf(nodes)).toEqual(['greetings']);
    const lists = new Map([['greetings', ['cheers', 'thanks']]]);
    expect(combinations(nodes, lists)).toBe(8);
    const texts = new Set(Array.from({ length: 400 }, (_, i) => spin(nodes, `r${i}`, (n) => (n === 'firstName' ? 'Ann' : undefined), lists).text));
    expect([...texts].sort()).toEqual(
      ['Hi', 'Hello', 'Good morning', 'Good day']
        .flatMap((g) => ['cheers', 'thanks'].map((w) => `${g} Ann, ${w} {x|y} a|b [c]`))
        .sort(),
    );
  });

  it('chooses the same text for the same recipient every time, and spreads recipients over the alternatives', () => {
    const nodes = parseSpintax('{a|b|c|d} {1|2}');
    const first = Array.from({ length: 1000 }, (_, i) => spin(nodes, `campaign-7:contact-${i}`).text);
    const again = Array.from({ length: 1000 }, (_, i) => spin(parseSpintax('{a|b|c|d} {1|2}'), `campaign-7:contact-${i}`).text);
    expect(again).toEqual(first);
    const counts = new Map<string, number>();
    for (const t of first) counts.set(t[0], (counts.get(t[0]) ?? 0) + 1);
    for (const letter of ['a', 'b', 'c', 'd']) expect(Math.abs((counts.get(letter) ?? 0) - 250)).toBeLessThan(60);
  });

  it('reports the variables a recipient lacks and keeps their placeholders', () => {
    const r = spin(parseSpintax('Hi {{firstName}} {{lastName}}'), 1, (n) => (n === 'firstName' ? 'Bo' : undefined));
    expect(r).toEqual({ text: 'Hi Bo {{lastName}}', missing: ['lastName'] });
  });

  it('allows empty alternatives and single-alternative groups, and treats a lone | [ ] as text', () => {
    const nodes = parseSpintax('x{a|}y{b}z | [ ]');
    const texts = new Set(Array.from({ length: 50 }, (_, i) => spin(nodes, i).text));
    expect([...texts].sort()).toEqual(['xayzbz | [ ]'.replace('zbz', 'bz'), 'xybz | [ ]'].sort());
  });

  it('refuses bad syntax with a clear error naming the 1-based position', () => {
    expect(err('Hello {world|there')).toEqual({ kind: 'unclosed_group', position: 7, message: 'unclosed "{" (expected "}") at position 7' });
    expect(err('{a|{b|c}')).toMatchObject({ kind: 'unclosed_group', position: 1 });
    expect(err('Hi} there')).toMatchObject({ kind: 'unexpected_close', position: 3 });
    expect(err('a {} b')).toMatchObject({ kind: 'empty_group', position: 3 });
    expect(err('Hi {{first name}}')).toMatchObject({ kind: 'invalid_variable', position: 4 });
    expect(err('Hi [[colors')).toMatchObject({ kind: 'unclosed_word_list', position: 4 });
    expect(err('Hi [[ ]]')).toMatchObject({ kind: 'invalid_word_list', position: 4 });
    expect(err('{{a}}}')).toMatchObject({ kind: 'unexpected_close', position: 6 });
  });

  it('names unknown and empty word lists at their position', () => {
    const nodes = parseSpintax('Buy {now|[[Colors]]} or [[sizes]]');
    expect(() => checkWordLists(nodes, new Map([['colors', ['red']]]))).toThrow('unknown word list "sizes" at position 25');
    expect(() => checkWordLists(nodes, new Map([['colors', []], ['sizes', ['S']]]))).toThrow('word list "Colors" has no words at position 10');
    expect(() => checkWordLists(nodes, new Map([['colors', ['red']], ['sizes', ['S']]]))).not.toThrow();
  });

  it('computes the longest expansion with variable lengths and the longest words, for segment counting', () => {
    const nodes = parseSpintax('{Hi|Hello there} {{firstName}}: {a|{bb|cccc}} [[w]]');
    const longest = longestExpansion(nodes, (n) => (n === 'firstName' ? 10 : 0), new Map([['w', ['x', 'yyy']]]));
    expect(longest).toBe('Hello there xxxxxxxxxx: cccc yyy');
    const long = parseSpintax(`{${'a'.repeat(150)}|b} {{v}}`);
    expect(analyzeSms(longestExpansion(long, () => 20)).segments).toBe(2);
  });

  it('previews the same samples for the same text', () => {
    const nodes = parseSpintax('{a|b|c}{1|2|3}');
    expect(previewSamples(nodes, 5)).toEqual(previewSamples(parseSpintax('{a|b|c}{1|2|3}'), 5));
    expect(previewSamples(nodes, 5)).toHaveLength(5);
  });
});
