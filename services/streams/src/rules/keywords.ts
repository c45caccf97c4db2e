/** Malicious keyword types: 1 matches a whole word, 2 matches anywhere in the text (docs/decisions/0014-streams.md). */
export const KeywordType = { WholeWord: 1, Anywhere: 2 } as const;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One compiled pattern for the whole global list: a send checks its text once, whatever the list's size. */
export class KeywordMatcher {
  private readonly pattern: RegExp | null;

  constructor(keywords: ReadonlyArray<{ word: string; type: number }>) {
    const parts = keywords
      .filter((k) => k.word.trim() !== '')
      .map((k) => (k.type === KeywordType.Anywhere ? escape(k.word.trim()) : `(?<![\\p{L}\\p{N}])${escape(k.word.trim())}(?![\\p{L}\\p{N}])`));
    this.pattern = parts.length ? new RegExp(parts.join('|'), 'iu') : null;
  }

  /** The first keyword found in the text, or null. */
  find(text: string): string | null {
    if (!this.pattern) return null;
    const m = this.pattern.exec(text);
    return m ? m[0] : null;
  }
}
